"""The offline generator against the rejects of issue 32's round-23 held-out sample, PostgreSQL
15's SQL command reference (its section-7 manual pages; ``benchmarks/synthetic_grading/round23/
heldout``, graded blind by an independent grader; development data since), passages read from
the committed sheet: a term qualified by a topic that already ends with it ("What is VACUUM in
PostgreSQL VACUUM?"), a statement "defined" by its COMPATIBILITY note ("ALTER SUBSCRIPTION is a
PostgreSQL extension."), and a how-to answered by what it requires ("To use ALTER POLICY, you
must own the table").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import reference
from tests import grading_sheets

PGSQL = "round23/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("pgsql/VACUUM-01", "What is VACUUM in PostgreSQL VACUUM?", "What is VACUUM in PostgreSQL?"),
    ("pgsql/ROLLBACK-01", "What does ROLLBACK do in PostgreSQL ROLLBACK?",
     "What does ROLLBACK do in PostgreSQL?"),
])
def test_a_topic_ending_with_the_term_names_what_comes_before_it(chunk_id, rejected, asked):
    questions = grading_sheets.questions(PGSQL, chunk_id)
    assert rejected not in questions
    assert asked in questions


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("pgsql/ALTER_SUBSCRIPTION-07", "ALTER SUBSCRIPTION"),
    ("pgsql/ALTER_SUBSCRIPTION-07", "What is ALTER SUBSCRIPTION?"),
    ("pgsql/CREATE_USER-03", "CREATE USER statement"),
    ("pgsql/ALTER_POLICY-02", "How do I use ALTER POLICY?"),
    ("pgsql/CREATE_TYPE-06", "How do I create a new base type?"),
    ("pgsql/DROP_ROLE-01", "How do I drop a superuser role?"),
])
def test_a_rejected_question_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(PGSQL, chunk_id)


def test_a_purpose_with_a_way_is_still_asked():
    """The screen is on requirements only: "To use ORDINALITY together with a column definition
    list, you must use the ROWS FROM( ... ) syntax" (accepted as written) is still asked."""
    assert "How do I use ORDINALITY together with a column definition list?" in \
        grading_sheets.questions(PGSQL, "pgsql/SELECT-17")
    assert reference.REQUIREMENT.match("you must also have CREATE privilege on the schema")
    assert not reference.REQUIREMENT.match("you must use the ROWS FROM( ... ) syntax")


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("pgsql/VACUUM-05", "What is INDEX_CLEANUP in PostgreSQL VACUUM?"),
    ("pgsql/VACUUM-04", "What is DISABLE_PAGE_SKIPPING in PostgreSQL VACUUM?"),
])
def test_the_background_an_option_changes_is_not_what_the_option_is(chunk_id: str,
                                                                     rejected: str):
    """"Normally, VACUUM will skip pages based on the visibility map": what happens without
    the option, not what it is."""
    assert rejected not in grading_sheets.questions(PGSQL, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("pgsql/CREATE_PROCEDURE-07", "What is the string obj_file?"),
    ("pgsql/CREATE_FUNCTION-14", "string link_symbol"),
])
def test_the_words_that_introduce_a_name_are_not_asked_as_part_of_it(chunk_id: str,
                                                                    rejected: str):
    """"The string obj_file is the name of the shared library file": a parameter asked with
    the description the sentence put before it."""
    assert rejected not in grading_sheets.questions(PGSQL, chunk_id)
