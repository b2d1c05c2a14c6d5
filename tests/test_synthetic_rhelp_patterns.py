"""The offline generator against the rejects of issue 32's round-30 held-out sample, the help
pages of R's base packages (``benchmarks/synthetic_grading/round30/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: a key of
a ``key: value`` list asked "in the <topic>" ("What is FUN in the R base tapply?", read as a
template's phrasing), now "in <topic>" as a term of a definition list is (``reference._owner``:
"What is CASCADE in PostgreSQL DROP VIEW?"); and one value of a return asked as the return
value ("is.character return value" answered "TRUE" of "returns 'TRUE' or 'FALSE' depending on
...").
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

RHELP = "round30/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("r/base/tapply-03-01", "What is FUN in the R base tapply?", "What is FUN in R base tapply?"),
    ("r/base/apply-03-01", "What is MARGIN in the R base apply?",
     "What is MARGIN in R base apply?"),
])
def test_a_key_is_owned_by_the_topic_as_a_term_is(chunk_id: str, rejected: str, asked: str):
    questions = grading_sheets.questions(RHELP, chunk_id)
    assert rejected not in questions
    assert asked in questions


@pytest.mark.parametrize("chunk_id", ["r/base/character-05-01"])
def test_one_of_two_return_values_is_not_the_return_value(chunk_id: str):
    questions = grading_sheets.questions(RHELP, chunk_id)
    assert "is.character return value" not in questions
    assert "What does is.character return?" not in questions
