"""The offline generator against the rejects of issue 32's rounds 42 and 43, held-out samples of
Qt 5's QDoc class reference and LLVM 19's Sphinx documentation
(``benchmarks/synthetic_grading/round42/heldout`` and ``round43/heldout``, graded blind by
independent graders; development data since), passages read from the committed sheets:

- a variable, macro or opcode whose name has an underscore asked as a call ("What does
  QMAKE_CXXFLAGS() do?", "What does G_VSCALE() do?": 29 rejected, none accepted): a name is a
  function only where the title or the passage writes it as one;
- a member asked without the class its page declares ("What does the name() function
  return?" on "Qt QColor Class: Detailed Description": "of which class?");
- a table row's value read into the subject ("What does QStandardPaths::PicturesLocation 6
  return?");
- a ``KEY: value`` line's key asked as a term of the page ("What is INFO in LLVM libFuzzer?",
  "What is CMake in LLVM MyFirstTypoFix?": 1 of 70 accepted over six held-out kinds);
- a line of an example read as the signature heading the entry ("What does button.show() do?",
  "What does func() do?" of "int func(int x, int y) {", answered by prose about the example).
"""

from __future__ import annotations

import pytest

from labeling.synthetic import keywords
from tests import grading_sheets

QT = "round42/heldout"
LLVM = "round43/heldout"


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (QT, "qt/qmake/qmake-variable-reference-73-01", "What does QMAKE_CXXFLAGS() do?"),
    (QT, "qt/qtcore/qobject-81-01", "What does Q_GADGET() do?"),
    (LLVM, "llvm/GlobalISel/GenericOpcode-77-01", "What does G_VSCALE() do?"),
])
def test_a_name_with_an_underscore_is_a_call_only_where_it_is_written_as_one(
        folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("qt/qtgui/qcolor-01-02", "What does the name() function return?",
     "What does the name() function of QColor return?"),
    ("qt/qtcore/qstring-05-01", "What does toUtf8() return?",
     "What does QString's toUtf8() return?"),
])
def test_a_member_is_owned_by_the_class_its_page_declares(chunk_id: str, rejected: str,
                                                          asked: str):
    questions = grading_sheets.questions(QT, chunk_id)
    assert rejected not in questions
    assert asked in questions


def test_an_owned_member_keeps_its_keyword_query():
    assert keywords.keyword_for("What does QString's toUtf8() return?") == \
        "QString toUtf8 return value"
    assert keywords.keyword_for("What does the daysTo() function of QDate return?") == \
        "QDate daysTo function"
    assert "QString toUtf8 return value" in grading_sheets.questions(QT, "qt/qtcore/qstring-05-01")


def test_a_table_rows_value_is_not_read_into_the_subject():
    questions = grading_sheets.questions(QT, "qt/qtcore/qstandardpaths-04-03")
    assert "What does QStandardPaths::PicturesLocation 6 return?" not in questions
    assert not [q for q in questions if " 7 " in q or " 6 " in q]


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("llvm/LibFuzzer-16-01", "What is INFO in LLVM libFuzzer?"),
    ("llvm/MyFirstTypoFix-04-01", "What is CMake in LLVM MyFirstTypoFix?"),
])
def test_a_key_value_lines_key_is_not_asked_as_a_term(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(LLVM, chunk_id)


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (QT, "qt/qtwidgets/qtwidgets-statemachine-twowaybutton-example-00-02",
     "What does button.show() do?"),
    (QT, "qt/qtcore/qmultihash-01-02", "What does hash2.insert() do?"),
    (LLVM, "llvm/CoverageMappingFormat-05-03", "What does func() do?"),
    (LLVM, "llvm/LoopTerminology-09-01", "What does test() do?"),
])
def test_a_line_of_an_example_is_not_a_signature(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)
