"""Live runs on the Data page (issue 31): an admin stores a retriever connection through the
form, a run is made with a progress bar, its failed queries are listed; an annotator sees no
form and cannot store one."""

from __future__ import annotations

import os

import pytest

from labeling.judging.consensus import run_frame
from labeling.workspace import connections, store
from pages import _auth
from tests.markup import shown
from tests.search_server import SearchServer
from tests.workspaces import add_rows

pytestmark = pytest.mark.usefixtures("fresh_result_cache", "fast_hashes")


@pytest.fixture
def server(workspace):
    db = store.open_workspace(workspace)
    docs = dict(db.conn.execute("SELECT id, text FROM chunks WHERE placeholder = 0"))
    texts = dict(db.conn.execute("SELECT id, text FROM queries WHERE placeholder = 0"))
    db.close()
    started = SearchServer(docs)
    started.texts = texts
    yield started
    started.close()


def _messages(at) -> str:
    return " | ".join(shown(m.value) for m in [*at.success, *at.warning, *at.error, *at.info])


def test_an_admin_stores_a_retriever_and_runs_it_live(workspace, server, open_app):
    at = open_app("data")
    at.text_input(key="lr_name").input("es")
    at.selectbox(key="lr_shape").set_value("Elasticsearch _search")
    at.text_input(key="lr_url").input(server.es_url)
    at.button(key="lr_save").click().run()
    assert not at.exception and "Stored the retriever es" in _messages(at)
    failing_id, failing = next(iter(server.texts.items()))
    server.script[failing] = ["400"]
    at.text_input(key="lr_run_name").input("es-v1")
    at.number_input(key="lr_k").set_value(5)
    at.button(key="lr_run").click().run()
    assert not at.exception
    assert "incomplete: 1 queries failed" in _messages(at)
    table = next(d.value for d in at.dataframe if "error" in d.value.columns)
    assert list(table["query"]) == [failing_id] and "malformed" in table["error"][0]
    assert "incomplete: 1 queries failed" in _dashboard_warnings(at, "es-v1")
    at.switch_page("pages/data.py").run()  # widgets of another page start anew
    at.text_input(key="lr_run_name").input("es-v1")
    at.number_input(key="lr_k").set_value(5)
    at.button(key="lr_run").click().run()  # the same run again completes it
    assert "complete" in _messages(at) and "incomplete" not in _messages(at)
    assert "incomplete" not in _dashboard_warnings(at, "es-v1")
    assert server.asked[failing] == 2
    db = store.open_workspace(workspace)
    try:
        run = run_frame(db, "es-v1")
    finally:
        db.close()
    assert set(run["query_id"]) == {q for q, t in server.texts.items() if server.ranking(t, 5)}


def _dashboard_warnings(at, run: str) -> str:
    at.switch_page("pages/dashboard.py").run()
    at.selectbox(key="dash_run").set_value(run).run()
    assert not at.exception
    return " | ".join(shown(w.value) for w in at.warning)


@pytest.fixture(scope="module")
def postgres():
    from tests.postgres_server import PostgresServer, binaries

    if binaries() is None and not os.environ.get("CI"):
        pytest.skip("PostgreSQL is not installed here (.ci/run installs it)")
    server = PostgresServer()
    yield server
    server.close()


def test_a_postgres_retriever_made_on_the_page_scores_on_the_dashboard(workspace, postgres,
                                                                      open_app):
    import psycopg

    db = store.open_workspace(workspace)
    chunks = db.conn.execute("SELECT id, text FROM chunks WHERE placeholder = 0").fetchall()
    db.close()
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS passages")
        conn.execute("CREATE TABLE passages (chunk text PRIMARY KEY, body text NOT NULL)")
        conn.cursor().executemany("INSERT INTO passages VALUES (%s, %s)", chunks)
    at = open_app("data")
    at.text_input(key="lr_name").input("pg")
    at.selectbox(key="lr_shape").set_value("PostgreSQL full-text search")
    at.text_input(key="lr_url").input(postgres.url)
    at.text_input(key="lr_table").input("passages")
    at.text_input(key="lr_text_field").input("body")
    at.text_input(key="lr_id_field").input("chunk")
    at.button(key="lr_save").click().run()
    assert "Stored the retriever pg" in _messages(at), _messages(at)
    at.text_input(key="lr_run_name").input("pg-v1")
    at.text_area(key="lr_params").input("config=english")
    at.button(key="lr_run").click().run()
    assert not at.exception and "; complete" in _messages(at), _messages(at)
    assert "incomplete" not in _dashboard_warnings(at, "pg-v1")
    card = at.dataframe[0].value
    assert list(card["measure"]) == ["R@10", "RR"] and card["n"].iloc[0] > 0
    assert card["mean"].notna().all()


def test_an_annotator_sees_no_connection_form(workspace, server, open_app):
    db = store.open_workspace(workspace)
    add_rows(db, accounts={"ada": "admin", "bob": "annotator"})
    db.close()
    at = open_app()
    at.text_input(key=_auth.NAME_KEY).input("bob")
    at.text_input(key=_auth.PASSWORD_KEY).input("bob-password")
    at.button(key="sign_in_submit").click().run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert "lr_name" not in {w.key for w in at.text_input}
    assert "No retriever connection yet: an admin adds one." in _messages(at)
    db = store.open_workspace(workspace)
    connections.save_connection(db, connections.HTTP_JSON, "es", server.es_url, "", "", 1000,
                                options=connections.preset_options("elasticsearch"))
    db.close()
    failing_id, failing = next(iter(server.texts.items()))
    server.script[failing] = ["400"]
    at.switch_page("pages/data.py").run()
    at.text_input(key="lr_run_name").input("bob-run")
    at.button(key="lr_run").click().run()
    assert "incomplete: 1 queries failed" in _messages(at)
    table = next(d.value for d in at.dataframe if "error" in d.value.columns)
    assert list(table["error"]) == ["HTTP 400 (the server's reason: admins see it)"]


def test_the_tuning_loop_on_the_page(workspace, open_app, monkeypatch):
    monkeypatch.setenv("SCORECARD_BM25_WORKSPACE", str(workspace))
    at = open_app("data")
    at.text_input(key="lr_name").input("bm25")
    at.selectbox(key="lr_shape").set_value("Python module:callable")
    at.text_input(key="lr_url").input("tests.bm25_adapter:search")
    at.button(key="lr_save").click().run()
    at.text_input(key="lr_run_name").input("bm25-v1")
    at.text_area(key="lr_params").input("k1=1.5")
    at.button(key="lr_run").click().run()
    assert "; complete" in _messages(at) and not at.exception
    assert not [d for d in at.dataframe if "diff_low" in d.value.columns]  # no version before
    at.text_input(key="lr_run_name").input("bm25-v2")
    at.text_area(key="lr_params").input("k1=0.2")
    at.button(key="lr_run").click().run()
    assert any("previous version bm25-v1 (changed: k1 1.5 → 0.2)" in shown(c.value)
               for c in at.caption)
    table = next(d.value for d in at.dataframe if "diff_low" in d.value.columns)
    assert list(table["measure"]) == ["R@10", "RR"] and (table["n"] > 0).all()
    button = at.button(key="lr_queue")
    queued = int(button.label.split()[1])
    assert queued > 0 and not button.disabled
    button.click().run()
    assert f"Queued {queued} new unjudged result(s) of bm25-v2" in _messages(at)
    assert at.button(key="lr_queue").disabled  # nothing new is left
