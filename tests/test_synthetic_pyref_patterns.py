"""The offline generator against the rejects of issue 32's round-9 held-out sample (the Python
Language Reference as ``pydoc_data.topics`` ships it, ``benchmarks/synthetic_corpora.py
pyref``), graded blind by an independent grader, and the same failures where earlier rounds
met them (Javadoc, round 7; Vim help, round 6; Perl POD, round 4). Passages are read from the
committed blind sheets (``tests/grading_sheets.py``).

What the grader rejected, and what is tested here:
- answers cut before what completes them ("a copy of the string" of "... where all tab
  characters are replaced"; "an object" of "an object's type"): an answer runs on to the end
  of its sentence, never into the next item of a list; what a method returns is asked once,
  as what it does, answered by the whole first sentence under its signature;
- how-tos with the title's words appended ("... with Python reference?");
- conditions with no verb ("What does str.encode() do if strict?");
- a capital copied from mid-sentence ("What is As SO_SNDBUF?"), a pointing phrase ("related
  to this object").
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

PYREF = "round9/heldout"


def answer(folder: str, chunk_id: str, question: str) -> str:
    found = grading_sheets.answers(folder, chunk_id)
    assert question in found, sorted(found)
    return " ".join(found[question].split())


@pytest.mark.parametrize(("folder", "chunk_id", "question", "ending"), [
    (PYREF, "objects-01-01", "What does the type() function return?",
     "an object\u2019s type (which is an object itself)"),
    (PYREF, "sequence-types-01-05", "What should object.__iter__() return?",
     "a new iterator object that can iterate over all the objects in the container"),
    ("round7/heldout", "java/lang/Double-001-03", "What does compareTo define for comparisons?",
     "considered greater than positive infinity"),
    ("round4/heldout", "File::Basename-03-03", "What does basename() return?",
     "even if the last level is clearly directory"),
])
def test_an_answer_runs_to_the_end_of_its_sentence(folder: str, chunk_id: str, question: str,
                                                   ending: str):
    assert answer(folder, chunk_id, question).endswith(ending)


@pytest.mark.parametrize(("chunk_id", "name", "description"), [
    ("string-methods-01-05", "str.find",
     'Return the lowest index in the string where substring *sub* is found within the slice '
     '"s[start:end]"'),
    ("string-methods-01-04", "str.expandtabs",
     "Return a copy of the string where all tab characters are replaced by one or more spaces, "
     "depending on the current column and the given tab size"),
])
def test_a_method_is_asked_what_it_does_answered_by_its_first_sentence(chunk_id: str,
                                                                       name: str,
                                                                       description: str):
    assert answer(PYREF, chunk_id, f"What does {name}() do?") == description
    assert f"What does {name}() return?" not in grading_sheets.questions(PYREF, chunk_id)


def test_an_answer_stops_before_the_next_item_of_its_list():
    # "Parameters:" lines of Javadoc: "decimalPattern - a decimal pattern ...", then "symbols - ..."
    assert answer("round7/heldout", "java/text/CompactNumberFormat-022-01",
                  "What is the decimalPattern parameter of the CompactNumberFormat() "
                  "constructor?") == "a decimal pattern for general number formatting"


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (PYREF, "typesmapping-01-05",
     "How do I remove all items from the dictionary with Python reference?"),
    (PYREF, "string-methods-01-03", "What does str.encode() do if strict?"),
    ("round7/heldout", "java/net/DatagramSocket-024-01", "What is As SO_SNDBUF?"),
])
def test_a_rejected_question_is_not_asked(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


def test_no_question_ends_with_a_title_phrase_or_points_at_unnamed_text():
    asked = [q for cid in grading_sheets.passages(PYREF)
             for q in grading_sheets.questions(PYREF, cid)]
    assert len(asked) > 20
    assert not [q for q in asked if q.endswith("with Python reference?") or "this object" in q]
