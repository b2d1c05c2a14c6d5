"""The offline generator against the rejects of issue 32's round-28 held-out sample, the doc
comments of Go's standard library (``benchmarks/synthetic_grading/round28/heldout``, graded
blind by an independent grader; development data since), passages read from the committed
sheet: a function asked about by its bare name ("What does NewWriter return?": bufio's, csv's,
gzip's, zip's...), named now with the package its title gives ("What does NewWriter in Go
bufio return?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import subject_checks
from tests import grading_sheets

GOLANG = "round28/heldout"


@pytest.mark.parametrize(("chunk_id", "bare", "owned"), [
    ("go/bufio.NewWriter-01", "What does NewWriter return?",
     "What does NewWriter in Go bufio return?"),
    ("go/strings.ReplaceAll-01", "What does ReplaceAll return?",
     "What does ReplaceAll in Go strings return?"),
    ("go/encoding/hex.DecodeString-01", "What does DecodeString return?",
     "What does DecodeString in Go encoding/hex return?"),
])
def test_a_function_is_asked_about_with_its_package(chunk_id: str, bare: str, owned: str):
    questions = grading_sheets.questions(GOLANG, chunk_id)
    assert bare not in questions
    assert owned in questions


@pytest.mark.parametrize(("title", "member"), [
    ("Go bufio: NewWriter", ("NewWriter", "NewWriter in Go bufio")),
    ("Go net: TCPAddr.AddrPort", ("AddrPort", "TCPAddr.AddrPort")),
    ("Ruby Zlib::GzipWriter#flush", ("flush", "Zlib::GzipWriter#flush")),
    ("tornado.web: RequestHandler.write", ("write", "RequestHandler.write")),
    ("ProcessBuilder: start()", None),  # a class's member: ``qualify`` names the class
    ("gzip(1): Description", None),  # words, not a name
    ("Go net/smtp: package", None),
    ("SWI-Prolog seek/4", ("seek", "seek/4 in SWI-Prolog")),  # a predicate indicator
    ("SWI-Prolog csv//1", ("csv", "csv//1 in SWI-Prolog")),
    ("Erlang lists:keysort/2", ("keysort", "lists:keysort/2")),  # under its module
])
def test_the_member_a_title_names(title: str, member: tuple[str, str] | None):
    assert subject_checks.title_member(title) == member
