"""The offline generator against the rejects of issue 32's round-27 held-out sample, SQLite's C
interface reference (``benchmarks/synthetic_grading/round27/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: a
sentence's modal kept in the question ("What will the sqlite3_config() interface return?",
the copy of a sentence with a blank), and one interface asked about twice, once as "What does
X do?" answered by what it returns and once as "What does the X interface return?", or with
and without its argument list.
"""

from __future__ import annotations

import pytest

from labeling.synthetic import offline
from tests import grading_sheets

SQLITE = "round27/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlite/c_config_covering_index_scan-01-02",
     "What will the sqlite3_config() interface return?"),
    ("sqlite/backup_finish-01-04", "What might the sqlite3_backup_step() return?"),
])
def test_a_modal_copied_from_the_sentence_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(SQLITE, chunk_id)


@pytest.mark.parametrize(("chunk_id", "kept", "twice"), [
    ("sqlite/user_data-01-01", "What does sqlite3_user_data() do?",
     "What does the sqlite3_user_data() interface return?"),
    ("sqlite/db_name-01-01", "What does sqlite3_db_name() do?",
     "What does the sqlite3_db_name(D,N) interface return?"),
])
def test_an_interface_is_asked_about_once(chunk_id: str, kept: str, twice: str):
    questions = grading_sheets.questions(SQLITE, chunk_id)
    assert kept in questions
    assert twice not in questions


def test_an_argument_list_does_not_make_another_question():
    questions = grading_sheets.questions(SQLITE, "sqlite/stmt_readonly-01-01")
    assert sum("sqlite3_stmt_readonly(" in q and q.endswith("return?") for q in questions) == 1
    assert offline.call_name("the sqlite3_db_name(D,N) interface") == \
        offline.call_name("sqlite3_db_name") == "sqlite3_db_name()"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlite/mutex_alloc-01-02", "What does the sqlite3_mutex_alloc() routine return?"),
    ("sqlite/value_dup-01-01", "What does the sqlite3_value_dup(V) interface return?"),
    ("sqlite/expanded_sql-01-02", "What does the sqlite3_expanded_sql() interface return?"),
])
def test_one_case_of_a_return_value_is_not_asked_as_the_return_value(chunk_id: str,
                                                                      rejected: str):
    """"... returns NULL if it is unable to allocate the requested mutex": the value is the
    failure case; the question would read it as what the call returns."""
    assert rejected not in grading_sheets.questions(SQLITE, chunk_id)


def test_a_return_value_with_its_condition_in_the_answer_is_still_asked():
    answers = grading_sheets.answers(SQLITE, "sqlite/initialize-01-02")
    assert answers.get("What does the sqlite3_initialize() routine return?") == \
        "SQLITE_OK on success"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlite/c_deterministic-01-02", "What is the abs() function?"),  # "an example of ..."
    ("sqlite/free-01-01", "What is the sqlite3_free() routine?"),  # "a no-op if ..."
    ("sqlite/errcode-01-01", "What is the sqlite3_extended_errcode() interface?"),  # "the same
    # except ..."
])
def test_an_instance_a_side_case_or_a_difference_is_not_what_a_thing_is(chunk_id: str,
                                                                        rejected: str):
    assert rejected not in grading_sheets.questions(SQLITE, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlite/mutex_alloc-01-01", "What does sqlite3_mutex_alloc() do?"),  # "The SQLite core
    # uses these routines ..."
    ("sqlite/vfs_find-01-01", "What does sqlite3_vfs_find() do?"),  # "A virtual filesystem
    # (VFS) is ..."
    ("sqlite/backup_finish-01-01", "What does sqlite3_backup_init() do?"),  # "The backup API
    # copies ..."
])
def test_a_sentence_about_another_subject_does_not_describe_the_function(chunk_id: str,
                                                                         rejected: str):
    assert rejected not in grading_sheets.questions(SQLITE, chunk_id)


def test_a_sentence_naming_the_function_still_describes_it():
    assert "What does sqlite3_db_handle() do?" in grading_sheets.questions(
        SQLITE, "sqlite/db_handle-01-01")


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlite/c_prepare_normalize-01-01",
     "SQLITE_PREPARE_PERSISTENT the SQLITE_PREPARE_PERSISTENT flag"),
    ("sqlite/c_stmtstatus_counter-01-02",
     "SQLITE_STMTSTATUS_FILTER_HIT SQLITE_STMTSTATUS_FILTER_MISS SQLITE_STMTSTATUS_FILTER_HIT"),
    ("sqlite/c_stmtstatus_counter-01-02", "corresponding SQLITE_STMTSTATUS_FILTER_MISS value"),
    ("sqlite/pcache_methods2-01-03", "second parameter szExtra"),
])
def test_a_heading_or_the_words_around_a_name_are_not_asked_as_its_name(chunk_id: str,
                                                                       rejected: str):
    questions = grading_sheets.questions(SQLITE, chunk_id)
    assert rejected not in questions
    assert f"What is {rejected}?" not in questions and f"What is the {rejected}?" not in questions
