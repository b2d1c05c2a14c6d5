"""Opening a workspace never drops the locks other connections of this process hold on it.

Closing any descriptor of a file drops every POSIX lock the process holds on that file,
SQLite's included; another process could then take the file from under those connections (a
known way to corrupt a database; an e2e workspace was found with page 1 overwritten). So
``open_workspace`` reads the file only through SQLite's own handle. The control shows the
check can tell: a plain open-and-close of the file does let the other process in.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from labeling.workspace import store

OTHER_PROCESS = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    print(conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0])
except sqlite3.OperationalError as error:
    print("refused:", error)
"""


def other_process_switches_to_delete(path: Path) -> bool:
    done = subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(path)],
                          capture_output=True, text=True, timeout=60)
    return done.stdout.strip() == "delete"


def test_a_second_open_keeps_the_first_connections_locks(make_workspace) -> None:
    path = make_workspace.path("empty")
    first = store.open_workspace(path)
    first.conn.execute("SELECT count(*) FROM chunks").fetchone()
    second = store.open_workspace(path)
    assert not other_process_switches_to_delete(path)
    second.close()
    first.close()


def test_control_closing_a_plain_descriptor_drops_them(make_workspace) -> None:
    path = make_workspace.path("empty")
    first = store.open_workspace(path)
    first.conn.execute("SELECT count(*) FROM chunks").fetchone()
    with open(path, "rb") as handle:
        handle.read(100)
    assert other_process_switches_to_delete(path)
    first.close()
