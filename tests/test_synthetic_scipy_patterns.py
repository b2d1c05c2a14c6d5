"""The offline generator against the rejects of issue 32's round-61 held-out sample, SciPy 1.10's
API reference (``benchmarks/synthetic_grading/round61/heldout``, graded blind by an independent
grader; development data since), passages read from the committed sheet:

- a method or function named bare ("What does reshape() do?", "What does solve() do?": "a
  generic name; no class given", 32 of the sample's 44 rejects) on a page whose title ends on
  the qualified name of its class ("SciPy scipy.sparse.csc_array") or brackets its module
  ("SciPy Linear algebra (scipy.linalg): Basics"): asked with that name.
"""

from __future__ import annotations

import pytest

from labeling.synthetic.subject_checks import owned_by_qualified_title
from tests import grading_sheets

SCIPY = "round61/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("scipy/generated/scipy.sparse.csc_array-01-05", "What does reshape() do?",
     "What does scipy.sparse.csc_array.reshape() do?"),
    ("scipy/generated/scipy.odr.ODR-01-05", "What does run() do?",
     "What does scipy.odr.ODR.run() do?"),
    ("scipy/linalg-02-01", "What does solve() do?", "What does scipy.linalg.solve() do?"),
])
def test_a_bare_member_is_named_as_its_page_title_qualifies_it(chunk_id: str, rejected: str,
                                                                asked: str):
    questions = grading_sheets.questions(SCIPY, chunk_id)
    assert rejected not in questions
    assert asked in questions


def test_a_title_in_words_or_the_member_itself_qualifies_nothing():
    assert owned_by_qualified_title("What does minimize() do?", "SciPy scipy.optimize.minimize") \
        == "What does minimize() do?"
    assert owned_by_qualified_title("What does read() return?", "Linux read(2)") \
        == "What does read() return?"
