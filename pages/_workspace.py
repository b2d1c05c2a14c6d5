"""The workspace of a browser session: where its file is and the session's own connection."""

from __future__ import annotations

import os
from pathlib import Path

import sqlite_utils
import streamlit as st

from labeling.files import demo
from labeling.workspace import store

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORKSPACE = ROOT / "workspace" / "scorecard.db"
WORKSPACE_ENV = "SCORECARD_WORKSPACE"
DB_KEY = "_workspace_connection"  # session state: (path, connection)


def workspace_path() -> Path:
    """``$SCORECARD_WORKSPACE``, else ``workspace/scorecard.db`` in the checkout."""
    configured = os.environ.get(WORKSPACE_ENV, "").strip()
    return Path(configured).expanduser().resolve() if configured else DEFAULT_WORKSPACE


def get_db() -> sqlite_utils.Database:
    """This browser session's own connection to the workspace (built as the demo if missing).

    One connection per session, never shared: a transaction belongs to a connection, and a
    handle shared by the whole server let one session's save become part of another's import
    and vanish with its rollback. Streamlit runs a session's reruns one at a time, so the
    session's connection is never used by two threads at once.
    """
    path = workspace_path()
    held = st.session_state.get(DB_KEY)
    if held is not None and held[0] == str(path):
        return held[1]
    if not path.exists():
        with st.spinner(f"Building the demo workspace at {path} ..."):
            demo.build_demo(path)
    db = store.open_workspace(path, create=False)  # an empty file is an error, not a workspace
    st.session_state[DB_KEY] = (str(path), db)
    if held is not None:
        held[1].close()
    return db
