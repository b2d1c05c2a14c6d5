"""The offline generator against the rejects of issue 32's round-22 held-out sample, Node.js's
API documentation (``benchmarks/synthetic_grading/round22/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: an
argument named without the function whose signature heads the passage ("What is the
windowSize?" under ``http2session.setLocalWindowSize(windowSize)``).
"""

from __future__ import annotations

import json

import pytest

from labeling.synthetic import subject_checks
from tests import grading_sheets

NODEJS = "round22/heldout"
CANDIDATES = grading_sheets.GRADING / NODEJS / "candidates.jsonl"


def _chunk_of(question: str) -> str:
    for line in CANDIDATES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["question"] == question:
            return row["chunk_id"]
    raise AssertionError(f"{question!r} is not in the sample")


@pytest.mark.parametrize(("rejected", "asked"), [
    ("What is the windowSize?", "What is the windowSize of http2session.setLocalWindowSize()?"),
    ("What is the optional callback?", "What is the optional callback of subprocess.send()?"),
    ("What is the length parameter?", "What is the length parameter of buf.write()?"),
    ("What is the signature argument?", "What is the signature argument of crypto.verify()?"),
])
def test_an_argument_is_asked_with_the_function_of_its_signature(rejected: str, asked: str):
    questions = grading_sheets.questions(NODEJS, _chunk_of(rejected))
    assert rejected not in questions
    assert asked in questions


def test_only_the_signatures_own_arguments_get_its_function():
    title = "Node.js HTTP: http.createServer(options)"
    assert subject_checks.signature_of(title) == ("http.createServer", ["options"])
    assert subject_checks.own_arguments("What is the requestListener?", title) == \
        "What is the requestListener?"  # another overload's argument: not this signature's
    assert subject_checks.own_arguments("What does http.createServer() return?", title) == \
        "What does http.createServer() return?"
    assert subject_checks.signature_of("setpriv(1): Options") is None
