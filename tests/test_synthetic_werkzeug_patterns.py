"""The offline generator against the rejects of issue 32's round-64 held-out sample, Werkzeug
2.2's documentation (``benchmarks/synthetic_grading/round64/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheets:

- a method named bare under a class whose signature names its module ("class
  werkzeug.datastructures.ETags(...)"): "What does contains() do?" ("a generic name") is asked
  of the class; the owner is the last class signature above the answer, so a passage that opens
  inside another class's entry does not lend it the next class's name (Jinja's "push()", round
  63, stays unowned rather than becoming "Token's push()").
"""

from __future__ import annotations

from tests import grading_sheets


def test_a_member_is_owned_by_the_qualified_class_signature_above_it():
    questions = grading_sheets.questions("round64/heldout", "werkzeug/datastructures-03-13")
    assert "What does contains() do?" not in questions
    assert "What does ETags's contains() do?" in questions


def test_a_class_signature_below_the_answer_owns_nothing():
    questions = grading_sheets.questions("round63/heldout", "jinja/extensions-18-05")
    assert "What does Token's push() do?" not in questions
