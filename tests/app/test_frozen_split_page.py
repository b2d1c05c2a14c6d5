"""Queries page: while the test split is locked, editing a test query is refused with a sentence
and nothing is saved; a dev query's edit still saves."""

from __future__ import annotations

import hashlib
from pathlib import Path

from labeling.evaluation.inputs import locked_splits
from labeling.workspace import contents, query_store, store
from tests.markup import shown

EDITOR_KEY = f"queries_editor_0_{hashlib.sha1(b'').hexdigest()[:8]}"  # no search, first table


def _lock_test_split(workspace: Path) -> None:
    db = store.open_workspace(workspace)
    locked_splits.lock_split(db, "lead", rule="default")
    db.conn.close()


def _edit(at, query_id: str, changes: dict) -> None:
    """Seed the editor's edit state (AppTest does not type into data editors), then save."""
    ids = at.data_editor[0].value["id"].tolist()
    at.session_state[EDITOR_KEY] = {
        "edited_rows": {ids.index(query_id): changes}, "added_rows": [], "deleted_rows": [],
    }
    at.run()
    at.button(key="save_queries").click().run()


def test_editing_a_test_query_of_the_locked_split_is_refused(workspace: Path, open_app) -> None:
    _lock_test_split(workspace)
    before = query_store.queries_table(store.open_workspace(workspace))
    at = open_app("queries")
    _edit(at, "q02", {"topic": "finance"})
    assert not at.exception and not at.success
    assert shown(at.error[0].value).startswith(
        "queries: query 'q02' is in the locked test split, and this would change its "
        "segment attribute 'topic'"
    )
    after = query_store.queries_table(store.open_workspace(workspace))
    assert after.equals(before)


def test_editing_a_dev_query_still_saves(workspace: Path, open_app) -> None:
    _lock_test_split(workspace)
    at = open_app("queries")
    _edit(at, "q01", {"topic": "it"})
    assert not at.exception and not at.error
    assert shown(at.success[0].value) == "Saved 1 changed queries."
    assert contents.query_segments(store.open_workspace(workspace), "topic")["q01"] == "it"
