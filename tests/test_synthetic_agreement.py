"""The graders' majority and the agreement report's reading of a sample's grades files
(``benchmarks/synthetic_agreement.py``)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def agreement():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module("synthetic_agreement")
    finally:
        sys.path.remove(str(BENCHMARKS))


def _sample(folder: Path, grades: dict[str, list[str]]) -> Path:
    """A graded sample of three questions: ``grades`` maps a grades file to each question's
    grade (``accept`` or a reject reason)."""
    folder.mkdir(parents=True)
    keys = ["ga", "gb", "gc"]
    folder.joinpath("candidates.jsonl").write_text("".join(
        json.dumps({"key": k, "id": i, "quality": 0.5, "question": f"q{i}?"}) + "\n"
        for i, k in enumerate(keys, 1)), encoding="utf-8")
    for name, marks in grades.items():
        folder.joinpath(name).write_text("".join(
            f"{k}\taccept\tok\n" if m == "accept" else f"{k}\treject\t{m}\n"
            for k, m in zip(keys, marks, strict=True)), encoding="utf-8")
    return folder


def test_the_majority_counts_and_a_reject_keeps_the_first_rejecting_graders_reason(
        agreement, tmp_path) -> None:
    folder = _sample(tmp_path / "round1" / "heldout", {
        "grades-1.tsv": ["accept", "vague", "accept"],
        "grades-2.tsv": ["copy", "unnatural", "accept"],
        "grades-3.tsv": ["accept", "accept", "trivial"]})
    agreement.majority(folder)
    lines = folder.joinpath("grades.tsv").read_text(encoding="utf-8").splitlines()
    assert lines == ["ga\taccept\tok", "gb\treject\tvague", "gc\taccept\tok"]


def test_graders_are_numbered_files_or_the_first_graders_grades_before_them(
        agreement, tmp_path) -> None:
    later = _sample(tmp_path / "a", {f"grades{s}.tsv": ["accept"] * 3
                                     for s in ("", "-2", "-10", "-3")})
    assert agreement.grader_files(later) == [
        "grades.tsv", "grades-2.tsv", "grades-3.tsv", "grades-10.tsv"]
    alone = _sample(tmp_path / "b", {"grades.tsv": ["accept"] * 3})
    assert agreement.grader_files(alone) == []


def test_a_grader_who_left_out_a_question_is_named(agreement, tmp_path) -> None:
    folder = _sample(tmp_path / "c", {name: ["accept"] * 3 for name in (
        "grades-1.tsv", "grades-2.tsv", "grades-3.tsv")})
    text = folder.joinpath("grades-2.tsv").read_text(encoding="utf-8")
    folder.joinpath("grades-2.tsv").write_text(text.split("\n", 1)[1], encoding="utf-8")
    with pytest.raises(SystemExit, match="grades-2.tsv"):
        agreement.graded(folder, agreement.grader_files(folder))
