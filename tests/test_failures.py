"""Failures a user did not cause by bad input read as one sentence, never a raw exception."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from labeling.errors import InputError, describe_failure


def raised(action) -> sqlite3.Error:
    with pytest.raises(sqlite3.Error) as caught:
        action()
    return caught.value


def test_a_scorecard_error_is_its_own_sentence() -> None:
    error = InputError("bad grade", source="x.qrels", line=3)
    assert describe_failure(error) == ("x.qrels, line 3: bad grade", None)


def test_real_sqlite_conditions_name_their_cause(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    busy = raised(lambda: other.execute("BEGIN IMMEDIATE"))
    holder.execute("ROLLBACK")
    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    readonly = raised(lambda: read_only.execute("INSERT INTO t VALUES (1)"))
    holder.execute("PRAGMA max_page_count = 2")
    full = raised(lambda: holder.executemany("INSERT INTO t VALUES (?)",
                                             [("x" * 1000,)] * 100))
    texts = {name: describe_failure(e) for name, e in
             {"busy": busy, "read-only": readonly, "full": full}.items()}
    for word, (text, reference) in texts.items():
        assert word in text and text.startswith("Nothing was saved") and reference is None


def test_an_unexpected_error_hides_its_text_and_gives_a_reference() -> None:
    text, reference = describe_failure(sqlite3.OperationalError("no such savepoint: sp_1"))
    assert "savepoint" not in text and "OperationalError" not in text
    assert reference and reference in text
    assert describe_failure(RuntimeError("x"))[1] != reference  # one reference per failure
