"""Failures a user did not cause by bad input read as one sentence, never a raw exception."""

from __future__ import annotations

import sqlite3

from labeling.errors import InputError
from labeling.failures import describe_failure


def test_a_scorecard_error_is_its_own_sentence() -> None:
    error = InputError("bad grade", source="x.qrels", line=3)
    assert describe_failure(error) == ("x.qrels, line 3: bad grade", None)


def test_known_conditions_name_the_cause_without_a_reference() -> None:
    busy = describe_failure(sqlite3.OperationalError("database is locked"))
    full = describe_failure(sqlite3.OperationalError("database or disk is full"))
    readonly = describe_failure(sqlite3.OperationalError("attempt to write a readonly database"))
    assert "busy" in busy[0] and "full" in full[0] and "read-only" in readonly[0]
    assert all(ref is None and "nothing was saved" in text for text, ref in (busy, full, readonly))


def test_an_unexpected_error_hides_its_text_and_gives_a_reference() -> None:
    text, reference = describe_failure(sqlite3.OperationalError("no such savepoint: sp_1"))
    assert "savepoint" not in text and "OperationalError" not in text
    assert reference and reference in text
    assert describe_failure(RuntimeError("x"))[1] != reference  # one reference per failure
