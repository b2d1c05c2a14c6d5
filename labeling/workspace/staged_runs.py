"""Runs staged while they import: stored by short transactions, invisible until published.

Conventions
- A staged run is a ``runs`` row with ``importing = 1`` and the name ``STAGED_PREFIX`` +
  the importing process's id + a random token (a name no run can have: it holds a control
  character). Every reader of ``runs`` skips it; its ``run_results`` and ``run_parts`` rows are
  written by many short transactions, so saves never wait behind a long import.
- While staging, the importing connection stores results whose query or chunk is not in the
  workspace yet (foreign keys off on that connection only); the placeholders for them are
  added just before the run is published (``add_placeholders``), so a failed import adds no
  query or chunk anybody sees.
- ``publish`` is one short transaction: the run takes its name (a replaced run is staged
  again, to be discarded), ``importing = 0``, its query-set mark and time of storing.
- ``discard`` deletes a staged run in short transactions. ``sweep_abandoned`` discards the
  staged runs of processes that are gone (a killed import); ``open_workspace`` calls it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import Iterable, Iterator

from labeling.workspace import write_turns
from labeling.workspace.migrations.m016_staged_imports import STAGED_PREFIX

DISCARD_ROWS = 5_000  # rows deleted per transaction when a staged run is dropped
PLACEHOLDER_ROWS = 2_000  # placeholders inserted per transaction (~50 ms: they are indexed
# for search)


def staged_name() -> str:
    """A fresh name for a staged run of this process."""
    return f"{STAGED_PREFIX}{os.getpid()} {uuid.uuid4().hex}"


@contextlib.contextmanager
def short_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` on a connection no one else is writing through (the
    importer's own, at the end of its import, or one just opened): cleanup, no role check."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    write_turns.let_waiting_writers_in()


@contextlib.contextmanager
def foreign_keys_off(conn: sqlite3.Connection) -> Iterator[None]:
    """Foreign keys off on ``conn`` for the block (outside a transaction only: inside one the
    pragma does nothing, so there the checks are deferred to its COMMIT instead)."""
    if conn.in_transaction:
        conn.execute("PRAGMA defer_foreign_keys = ON")
        yield
        return
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def add_placeholders(conn: sqlite3.Connection, table: str, ids: Iterable[str]) -> int:
    """Insert placeholder rows for the ``ids`` still missing from ``table`` (``queries`` or
    ``chunks``), ``PLACEHOLDER_ROWS`` per transaction (one transaction when the caller holds
    one); returns how many were added."""
    pending = sorted(set(ids))
    added = 0
    for start in range(0, len(pending), PLACEHOLDER_ROWS):
        payload = json.dumps(pending[start:start + PLACEHOLDER_ROWS])
        with _transaction(conn):  # ids added since the import looked are left as they are
            added += conn.execute(
                f"INSERT INTO {table} (id, placeholder) SELECT value, 1 FROM json_each(?)"
                f" WHERE value NOT IN (SELECT id FROM {table})", [payload]).rowcount
    return added


def publish(conn: sqlite3.Connection, run_id: int, name: str, *, replace: bool) -> int | None:
    """Give staged run ``run_id`` its ``name`` and make it visible, in the caller's transaction.

    A visible run already named ``name`` is staged again (to be discarded; its id is returned)
    when ``replace``; otherwise ``FileExistsError`` is raised and nothing changes.
    """
    old = conn.execute(
        "SELECT id FROM runs WHERE name = ? AND NOT importing", [name]).fetchone()
    if old is not None:
        if not replace:
            raise FileExistsError(name)
        conn.execute("UPDATE runs SET name = ?, importing = 1 WHERE id = ?",
                     [staged_name(), old[0]])
    conn.execute(
        "UPDATE runs SET name = ?, importing = 0,"
        " newest_query_seq = (SELECT coalesce(max(seq), 0) FROM query_arrivals)"
        " WHERE id = ? AND importing", [name, run_id])
    return None if old is None else int(old[0])


def discard(conn: sqlite3.Connection, run_id: int) -> None:
    """Delete staged run ``run_id`` and its rows, ``DISCARD_ROWS`` per transaction."""
    while True:
        with _transaction(conn):
            gone = conn.execute(
                "DELETE FROM run_results WHERE rowid IN (SELECT rowid FROM run_results"
                " WHERE run_id = ? LIMIT ?)", [run_id, DISCARD_ROWS]).rowcount
        if gone < DISCARD_ROWS:
            break
    with _transaction(conn):
        conn.execute("DELETE FROM run_results WHERE run_id = ?", [run_id])
        conn.execute("DELETE FROM runs WHERE id = ? AND importing", [run_id])


def sweep_abandoned(conn: sqlite3.Connection) -> int:
    """Discard the staged runs whose importing process is gone (killed mid-import); returns
    how many. Cheap when there are none (one indexed lookup)."""
    staged = conn.execute("SELECT id, name FROM runs WHERE importing").fetchall()
    swept = 0
    for run_id, name in staged:
        if _process_alive(name):
            continue
        with foreign_keys_off(conn):  # its results may name ids that were never added
            discard(conn, int(run_id))
        swept += 1
    return swept


def _process_alive(name: str) -> bool:
    """Whether the process that staged the run named ``name`` still runs (on this machine:
    SQLite's WAL mode only works between processes of one machine)."""
    try:
        pid = int(name[len(STAGED_PREFIX):].split(" ")[0])
    except ValueError:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """A short transaction, or a savepoint of the caller's open one."""
    if conn.in_transaction:
        conn.execute("SAVEPOINT staged")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK TO staged")
            conn.execute("RELEASE staged")
            raise
        conn.execute("RELEASE staged")
        return
    with short_transaction(conn):
        yield
