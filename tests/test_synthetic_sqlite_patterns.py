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
