"""The offline generator against the rejects of issue 32's round-30 held-out sample, the help pages
of R's base packages (``benchmarks/synthetic_grading/round30/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: a key of a
``key: value`` list asked "in the <topic>" ("What is FUN in the R base tapply?", read as a
template's phrasing), now not asked at all (1 of 70 such questions accepted over six held-out
kinds, to round 43); and one value of a return asked as the return value ("is.character return
value" answered "TRUE" of "returns 'TRUE' or 'FALSE' depending on ...").
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

RHELP = "round30/heldout"


@pytest.mark.parametrize(("chunk_id", "key"), [
    ("r/base/tapply-03-01", "FUN"), ("r/base/apply-03-01", "MARGIN"),
])
def test_a_key_of_a_key_value_list_is_not_asked_as_a_term(chunk_id: str, key: str):
    questions = grading_sheets.questions(RHELP, chunk_id)
    assert not [q for q in questions if q.startswith(f"What is {key} in ")]


@pytest.mark.parametrize("chunk_id", ["r/base/character-05-01"])
def test_one_of_two_return_values_is_not_the_return_value(chunk_id: str):
    questions = grading_sheets.questions(RHELP, chunk_id)
    assert "is.character return value" not in questions
    assert "What does is.character return?" not in questions
