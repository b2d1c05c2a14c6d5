"""The offline generator against the rejects of issue 32's round-34 held-out sample, the Racket
Reference (``benchmarks/synthetic_grading/round34/heldout``, graded blind by an independent
grader; development data since), passages read from the committed sheet: a description's
opening verb read as the subject of its "are" ("What are returns a list whose elements?" of
"Returns a list whose elements are ..."), and a relative clause cut before its verb ("What is
a pair whose car?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

RACKET = "round34/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("racket/streams-12-01", "What are returns a list whose elements?"),
    ("racket/symbols-05-01", "What are returns an interned symbol whose characters?"),
    ("racket/keywords-03-01", "What is returns a keyword whose displayed form?"),
    ("racket/serialization-03-04", "What is a pair whose car?"),
])
def test_a_verb_read_as_a_subject_or_a_cut_relative_clause_is_not_asked(chunk_id: str,
                                                                        rejected: str):
    assert rejected not in grading_sheets.questions(RACKET, chunk_id)


@pytest.mark.parametrize("question", ["What is process substitution?",
                                      "What is access control?", "What are status codes?"])
def test_a_noun_ending_in_s_is_a_subject(question: str):
    assert not screens.verb_as_subject(question)
