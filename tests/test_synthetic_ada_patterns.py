"""The offline generator against the rejects of issue 32's round-41 held-out sample, the Ada 2012
Reference Manual (``benchmarks/synthetic_grading/round41/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: a
paragraph's number read into the subject ("What is 2/3 a categorization pragma?", "What does 92
To_String return?", the keyword query "15/2 CPU_Time_Unit").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

ADA = "round41/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("ada/E.2-01-01", "What is 2/3 a categorization pragma?"),
    ("ada/A.4.4-13-11", "What does 92 To_String return?"),
    ("ada/D.14-22-03", "15/2 CPU_Time_Unit"),
    ("ada/2.1-00-04", "What shall 16/3 an Ada implementation accept?"),
])
def test_a_paragraph_number_is_not_read_into_the_subject(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(ADA, chunk_id)


def test_an_accepted_question_of_the_same_sample_is_still_asked():
    assert "What does PCS stand for?" in grading_sheets.questions(ADA, "ada/E.2.3-04-03")


@pytest.mark.parametrize("question", ["What does 3 mean?", "404 error meaning",
                                      "What is HTTP/2?", "What is a 64-bit integer?"])
def test_a_number_that_is_the_subject_is_no_label(question: str):
    assert not screens.NUMBER_LABEL.search(question)
