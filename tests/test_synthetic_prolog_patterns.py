"""The offline generator against the rejects of issue 32's round-32 held-out sample, the
SWI-Prolog reference manual's predicate definitions
(``benchmarks/synthetic_grading/round32/heldout``, graded blind by an independent grader;
development data since), passages read from the committed sheet: a predicate asked about by
its bare name, which many languages share ("What does seek() do?"), named now by its indicator
and system as the title names it ("What does seek/4 in SWI-Prolog do?"), and a how-to answered
by that bare name ("How do I print a term for debugging purposes?" answered "print"), which is
not asked; and round 33's (the Erlang/OTP module reference): a function by its bare name, now
by its module, name and arity ("What does lists:keysort/2 do?").
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

PROLOG = "round32/heldout"


@pytest.mark.parametrize(("chunk_id", "bare", "owned"), [
    ("prolog/IO-12-01", "What does seek() do?", "What does seek/4 in SWI-Prolog do?"),
    ("prolog/db-20-01", "What does erase() do?", "What does erase/1 in SWI-Prolog do?"),
])
def test_a_predicate_is_asked_about_by_its_indicator_and_system(chunk_id: str, bare: str,
                                                                owned: str):
    questions = grading_sheets.questions(PROLOG, chunk_id)
    assert bare not in questions
    assert owned in questions


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("prolog/termrw-12-01", "How do I print a term for debugging purposes?"),
    ("prolog/solutionsequences-03-01", "How do I limit the number of solutions?"),
])
def test_a_how_to_answered_by_a_bare_predicate_name_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(PROLOG, chunk_id)


@pytest.mark.parametrize(("chunk_id", "bare", "owned"), [
    ("erlang/lists-29-01", "What does keysort() do?", "What does lists:keysort/2 do?"),
    ("erlang/dict-09-01", "What does fold() do?", "What does dict:fold/3 do?"),
    ("erlang/wxWindow-116-01", "What does raise() do?", "What does wxWindow:raise/1 do?"),
])
def test_an_erlang_function_is_asked_about_by_its_module_and_arity(chunk_id: str, bare: str,
                                                                   owned: str):
    """Round 33's commonest reject (the Erlang/OTP module reference, ``round33/heldout``): a
    function by its bare name, which many modules share."""
    questions = grading_sheets.questions("round33/heldout", chunk_id)
    assert bare not in questions
    assert owned in questions
