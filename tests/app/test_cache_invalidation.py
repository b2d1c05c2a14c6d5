"""One mechanism invalidates cached scores: a write from any page reaches every page.

A chunk import on the Data page that moves chunks to another document changes document-unit
scores; the Dashboard, in the same server and session, shows the new ones without a restart
(its cache keys hold the workspace's data counters, which triggers bump on every write).
"""

from __future__ import annotations

import json

import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.workspace import store
from tests.app.conftest import APP, TIMEOUT

CHUNKS = [{"id": "c1", "doc_id": "d1", "text": "one"}, {"id": "c2", "doc_id": "d1", "text": "two"},
          {"id": "c3", "doc_id": "d2", "text": "three"}]
MOVED = b"".join(json.dumps({**c, "doc_id": "d2"}).encode() + b"\n" for c in CHUNKS[:2])


@pytest.fixture(autouse=True)
def _fresh_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def _document_rr(at) -> float:
    at.radio(key="dash_unit").set_value("document").run()
    card = at.dataframe[0].value
    return float(card.loc[card["measure"] == "RR", "mean"].iloc[0])


def test_a_chunk_import_on_the_data_page_reaches_the_dashboard(make_workspace, monkeypatch):
    from streamlit.testing.v1 import AppTest

    path = make_workspace.path(
        chunks=CHUNKS, queries=[{"id": "q1", "text": "which?", "split": "dev"}],
        runs={"plain": [("q1", "c1", 3.0), ("q1", "c2", 2.0), ("q1", "c3", 1.0)]},
        judgments=[("q1", "c1", 0, "ann"), ("q1", "c2", 0, "ann"), ("q1", "c3", 2, "ann")])
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/dashboard.py").run()
    assert _document_rr(at) == 0.5  # d1 (c1) first, the relevant d2 (c3) second

    at.switch_page("pages/data.py").run()
    at.file_uploader(key="upload_chunks_0").set_value(("moved.jsonl", MOVED, "text/plain"))
    at.button(key="import_chunks").click().run()
    assert not at.exception and not at.error
    at.switch_page("pages/dashboard.py").run()
    shown = _document_rr(at)

    db = store.open_workspace(path)
    result_cache.clear_cache()
    values = scoring.per_query(db, Controls("plain", unit="document", measures=("RR",)))
    assert shown == float(values["RR"].mean()) == 1.0  # c1 is now in d2: found first
    db.close()
