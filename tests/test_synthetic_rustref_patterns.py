"""The offline generator against the rejects of issue 32's round-19 held-out sample, the Rust
Reference (``benchmarks/synthetic_grading/round19/heldout``, graded blind by an independent
grader; development data since), passages read from the committed sheet: a generic head
defined ("What is a common example?"), an adverb copied between the copula and its subject
("What is here the capture path?"), "every" as the subject, and a bracket the source's markup
left open ("What is the #[diagnostic attribute namespace?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

RUSTREF = "round19/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("items/associated-items-02-01", "What is a common example?"),
    ("macros-by-example-11-01", "What is a special case?"),
    ("introduction-05-01", "What is an example term?"),
    ("types/closure-05-01", "What is here the capture path?"),
    ("expressions/literal-expr-08-01", "What is otherwise the represented character?"),
    ("crates-and-source-files-01-02", "What is every source file?"),
    ("attributes/diagnostics-09-01", "What is the #[diagnostic attribute namespace?"),
    ("attributes/diagnostics-10-01", "What is the #[diagnostic::on_unimplemented attribute?"),
])
def test_a_rejected_question_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(RUSTREF, chunk_id)


def test_a_named_item_is_still_defined():
    assert not screens.GENERIC_HEAD.search("What is a match guard?")
    assert not screens.GENERIC_HEAD.search("What is a constant item?")
    assert not screens.unbalanced("What does Vec::push() do?")
