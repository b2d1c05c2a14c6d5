"""Live runs: retriever connections (Elasticsearch/OpenSearch and Solr presets, a Python
callable) asked query by query, failures listed, resumed runs, secrets kept out."""

from __future__ import annotations

import json
import time

import pytest

from labeling.commands.cli import main
from labeling.errors import InputError
from labeling.evaluation.inputs.score_controls import SEED, Controls
from labeling.evaluation.planning import tuning
from labeling.evaluation.scores.scoring import per_query
from labeling.files.baseline import bm25_run
from labeling.files.live_runs import error_shown, live_run, run_incompleteness
from labeling.judging.consensus import run_frame
from labeling.metrics.statistics import bootstrap_ci
from labeling.model_calls.retrievers import HttpRetriever, RetrievalFailed, fill
from labeling.workspace import backup, connections, roles
from labeling.workspace.roles import AccessDenied
from tests import machine_rows as rows
from tests.search_server import SearchServer

ACCOUNTS = {"ada": "admin", "bob": "annotator", "vic": "viewer"}
SECRET_ENV, SECRET = "SEARCH_API_KEY", "es-planted-secret-7f3a9c"
DOCS = {c["id"]: c["text"] for c in rows.CHUNKS}


@pytest.fixture
def db(make_workspace, fast_hashes):
    return make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, accounts=ACCOUNTS)


@pytest.fixture
def server():
    started = SearchServer({**DOCS, "ghost-doc": "a leaf directory nobody imported"},
                           retry_after="0.3")
    yield started
    started.close()


def _texts(db) -> dict[str, str]:
    return dict(db.conn.execute("SELECT id, text FROM queries WHERE placeholder = 0"))


def _store(db, server, preset: str, name: str = "search", **extra):
    url = server.solr_url if preset == "solr" else server.es_url
    options = {**connections.preset_options(preset),
               "headers": {"Authorization": f"ApiKey ${{{SECRET_ENV}}}"}, **extra}
    with roles.acting_as("ada"):
        return connections.save_connection(db, connections.HTTP_JSON, name, url, "", "", 1000,
                                           who="ada", options=options)


def _fast(connection, monkeypatch=None, **settings):
    environ = {SECRET_ENV: SECRET}
    return HttpRetriever(connection.base_url, connection.options, environ,
                         **{"backoff": 0.01, "deadline": 2.0, **settings})


@pytest.mark.parametrize("preset", ["elasticsearch", "solr"])
def test_a_preset_run_equals_the_servers_ranking(db, server, preset):
    connection = _store(db, server, preset)
    result = live_run(db, connection, "live", k=3, retriever=_fast(connection))
    assert not result.incomplete and result.total == len(_texts(db))
    run = run_frame(db, "live")
    for query_id, text in _texts(db).items():
        expected = [(d, s) for d, s in server.ranking(text, 3) if d != "ghost-doc"]
        got = run[run["query_id"] == query_id]
        assert list(zip(got["doc_id"], got["score"], strict=True)) == expected
    assert all(h.get("Authorization") == f"ApiKey {SECRET}" for h in server.headers)
    meta = json.loads(db.conn.execute("SELECT metadata FROM runs WHERE name = 'live'")
                      .fetchone()[0])["live_run"]
    assert meta["connection"] == "search" and len(meta["setup_hash"]) == 64
    assert meta["unknown_hits"] == result.unknown_hits > 0  # "leaf directory" finds the ghost
    assert meta["unknown_ids"] == ["ghost-doc"]


@pytest.mark.parametrize("preset, reason", [
    ("elasticsearch", "HTTP 400: [match] malformed query"),
    ("solr", "HTTP 400: undefined field nosuchfield")])
def test_a_400_fails_at_once_with_the_servers_reason(db, server, preset, reason):
    caller = _fast(_store(db, server, preset))
    server.script["boom"] = ["400"]
    with pytest.raises(RetrievalFailed, match=reason.replace("[", r"\[").replace("]", r"\]")):
        caller.search("boom", 3, {})
    assert server.asked["boom"] == 1


@pytest.mark.parametrize("preset", ["elasticsearch", "solr"])
def test_a_429_waits_for_retry_after_then_succeeds(db, server, preset):
    caller = _fast(_store(db, server, preset))
    server.script["directory tree"] = ["429"]
    started = time.monotonic()
    assert caller.search("directory tree", 2, {})[0][0] == "copytree"
    assert time.monotonic() - started >= 0.3 and server.asked["directory tree"] == 2


@pytest.mark.parametrize("preset, reason", [
    ("elasticsearch", "HTTP 503: all shards failed"), ("solr", "no servers hosting shard")])
def test_5xx_is_retried_then_fails_naming_the_attempts(db, server, preset, reason):
    caller = _fast(_store(db, server, preset), retries=2)
    server.script["tree"] = ["503"] * 3
    with pytest.raises(RetrievalFailed, match=f"{reason}.*after 3 attempts"):
        caller.search("tree", 2, {})
    assert server.asked["tree"] == 3


def test_a_timeout_fails_within_the_deadline(db, server):
    caller = _fast(_store(db, server, "elasticsearch"), retries=1, deadline=0.3)
    server.script["tree"] = ["slow", "slow"]
    started = time.monotonic()
    with pytest.raises(RetrievalFailed, match="no reply .* within 0.3 s.*after 2 attempts"):
        caller.search("tree", 2, {})
    assert time.monotonic() - started < 5


def test_a_failed_query_is_listed_and_a_rerun_asks_only_the_rest(db, server):
    connection = _store(db, server, "elasticsearch")
    texts = _texts(db)
    failing_id, failing = next(iter(texts.items()))
    server.script[failing] = ["503"] * 2
    first = live_run(db, connection, "live", k=3, retriever=_fast(connection, retries=1))
    assert first.incomplete and list(first.failed) == [failing_id]
    assert "HTTP 503" in first.failed[failing_id]
    assert run_incompleteness(db, "live") == "incomplete: 1 queries failed"
    assert failing_id not in set(run_frame(db, "live")["query_id"])
    again = live_run(db, connection, "live", k=3, retriever=_fast(connection, retries=1))
    assert not again.incomplete and again.asked_now == 1
    assert run_incompleteness(db, "live") is None
    assert server.asked[failing] == 3  # two failures, then the answer
    assert all(server.asked[t] == 1 for t in texts.values() if t != failing)
    assert set(run_frame(db, "live")["query_id"]) >= {failing_id}


def test_the_rate_limit_spaces_the_queries(db, server):
    connection = _store(db, server, "elasticsearch")
    started = time.monotonic()
    live_run(db, connection, "paced", k=3, rate=5, threads=4, retriever=_fast(connection))
    assert time.monotonic() - started >= (len(_texts(db)) - 1) / 5
    with pytest.raises(InputError, match="above 0"):
        live_run(db, connection, "paced-2", k=3, rate=0, retriever=_fast(connection))


def test_another_setup_under_the_same_name_is_refused(db, server):
    connection = _store(db, server, "elasticsearch")
    live_run(db, connection, "live", k=3, retriever=_fast(connection))
    with pytest.raises(InputError, match="another setup"):
        live_run(db, connection, "live", k=5, retriever=_fast(connection))


def test_template_values_never_change_the_requests_shape():
    template = {"size": "{{k}}", "query": {"match": {"text": "{{query}}"}},
                "note": "boost {{boost}} for {{query}}"}
    hostile = 'x"}, "size": 10000, "q": {"'
    filled = fill(template, {"k": 3, "query": hostile, "boost": 1.5})
    assert filled["size"] == 3 and filled["query"]["match"]["text"] == hostile
    assert json.loads(json.dumps(filled))["note"] == f"boost 1.5 for {hostile}"
    with pytest.raises(RetrievalFailed, match="--param boost"):
        fill(template, {"k": 3, "query": "q"})


def test_the_python_path_equals_the_bm25_baseline(make_workspace, monkeypatch):
    db = make_workspace("demo")
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    monkeypatch.setenv("SCORECARD_BM25_WORKSPACE", path)
    bm25_run(db, "bm25", k=10)
    connection = connections.save_connection(db, connections.PYTHON, "bm25-python",
                                             "tests.bm25_adapter:search", "", "", 10_000)
    result = live_run(db, connection, "bm25-live", k=10, threads=2)
    assert not result.incomplete and result.unknown_hits == 0
    baseline, live = run_frame(db, "bm25"), run_frame(db, "bm25-live")
    assert len(baseline) > 0
    assert baseline[["query_id", "doc_id", "rank"]].equals(live[["query_id", "doc_id", "rank"]])
    assert (baseline["score"] - live["score"]).abs().max() < 1e-6


@pytest.mark.parametrize("who", ["bob", "vic"])
def test_only_an_admin_creates_or_repoints_a_retriever(db, server, who):
    with roles.acting_as(who), pytest.raises(AccessDenied, match="connections"):
        connections.save_connection(db, connections.HTTP_JSON, "mine", server.es_url, "", "",
                                    10, options=connections.preset_options("elasticsearch"))
    _store(db, server, "elasticsearch")
    with roles.acting_as(who), pytest.raises(AccessDenied):
        _store_as(db, who, "http://127.0.0.1:9/elsewhere/_search")
    assert connections.get_retriever(db, "search").base_url == server.es_url


def _store_as(db, who, url):
    connections.save_connection(db, connections.HTTP_JSON, "search", url, "", "", 10, who=who,
                                options=connections.preset_options("elasticsearch"))


def test_an_annotator_runs_a_stored_retriever_and_a_viewer_cannot(db, server):
    connection = _store(db, server, "elasticsearch")
    with roles.acting_as("vic"), pytest.raises(AccessDenied, match="retriever"):
        live_run(db, connection, "viewer-run", k=3, retriever=_fast(connection))
    with roles.acting_as("bob"):
        assert not live_run(db, connection, "bob-run", k=3,
                            retriever=_fast(connection)).incomplete


def test_in_the_app_a_run_goes_only_through_a_stored_connection(db, server):
    unstored = connections.connection_from_file(
        {"kind": "http_json", "name": "mine", "base_url": server.es_url,
         "preset": "elasticsearch"}, "test")
    for who in ("ada", "bob"):
        with roles.acting_as(who), pytest.raises(AccessDenied, match="an admin stored"):
            live_run(db, unstored, f"{who}-run", k=3, retriever=_fast(unstored))
    assert sum(server.asked.values()) == 0


def test_a_secret_given_as_a_header_value_is_refused(db, server):
    with pytest.raises(InputError, match=r"\$\{VARIABLE\}"):
        _store(db, server, "elasticsearch", headers={"Authorization": f"ApiKey {SECRET}"})


def test_no_secret_in_the_workspace_exports_backups_or_output(make_workspace, server, tmp_path,
                                                              monkeypatch, capsys):
    judged = [(q["id"], c["id"], int(q["id"][2:5] == c["id"][:3]), "ann")
              for q in rows.QUERIES for c in rows.CHUNKS]
    path = make_workspace.path(chunks=rows.CHUNKS, queries=rows.QUERIES, judgments=judged)
    monkeypatch.setenv(SECRET_ENV, SECRET)
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"headers": {"X-Api-Key": f"${{{SECRET_ENV}}}"}}))
    assert main(["connection", str(path), "add", "search", "--kind", "http_json", "--base-url",
                 server.es_url, "--preset", "elasticsearch", "--options", str(options)]) == 0
    code = main(["retrieve", str(path), "--connection", "search", "--run-name", "live",
                 "-k", "3"])
    assert code == 0 and {h["X-Api-Key"] for h in server.headers} == {SECRET}
    assert main(["export", str(path), "run", "live", str(tmp_path / "run.tsv")]) == 0
    assert main(["export", str(path), "beir", str(tmp_path / "beir")]) == 0
    assert main(["report", str(path), "--run", "live", "--out", str(tmp_path / "r.html")]) == 0
    backup.backup(path, tmp_path / "backup.db")
    out = capsys.readouterr()
    assert "complete" in out.out
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "backup.db" for p in files) and len(files) >= 3
    for leaked in [p for p in files if SECRET.encode() in p.read_bytes()] + \
            [s for s in (out.out, out.err) if SECRET in s]:
        pytest.fail(f"the secret leaked into {leaked}")


def test_the_cli_runs_a_connection_file_and_reports_incompleteness(make_workspace, server,
                                                                     tmp_path, capsys):
    path = make_workspace.path(chunks=rows.CHUNKS, queries=rows.QUERIES)
    spec = tmp_path / "search.json"
    spec.write_text(json.dumps({"kind": "http_json", "name": "ci", "base_url": server.solr_url,
                                "preset": "solr"}))
    first = next(q["text"] for q in rows.QUERIES)
    server.script[first] = ["400"]
    argv = ["retrieve", str(path), "--connection-file", str(spec), "--run-name", "ci-run",
            "-k", "3"]
    assert main(argv) == 1
    out = capsys.readouterr()
    assert "failed: query" in out.out and "undefined field" in out.out
    assert "incomplete: 1 queries failed" in out.out and "/" in out.err  # the progress line
    assert main(["evaluate", "--db", str(path), "--run", "ci-run", "-m", "nDCG@10"]) == 1
    assert "ci-run is incomplete: 1 queries failed" in capsys.readouterr().err
    assert main(["gate", str(path), "--run", "ci-run", "--baseline", "ci-run", "-m", "nDCG@10",
                 "--max-drop", "0.05"]) == 2
    assert "incomplete: 1 queries failed" in capsys.readouterr().err
    assert main(argv) == 0 and "complete" in capsys.readouterr().out
    assert main(argv[:-2] + ["--param", "novalue"]) == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"kind": "http_json",')
    assert main(["retrieve", str(path), "--connection-file", str(broken), "--run-name", "x"]) == 2
    assert main(["connection", str(path), "add", "es", "--kind", "http_json", "--base-url",
                 server.es_url, "--preset", "elasticsearch", "--options", str(broken)]) == 2
    assert "broken.json" in capsys.readouterr().err
    v2 = ["retrieve", str(path), "--connection-file", str(spec), "--run-name", "ci-run-2",
          "-k", "2"]
    assert main(v2) == 0
    out = capsys.readouterr().out
    assert "against the previous version ci-run (changed: k 3 -> 2)" in out
    assert "R@10:" in out and "95% interval" in out


def test_the_tuning_loop_compares_with_the_previous_version_and_queues_new_results(
        make_workspace, monkeypatch):
    db = make_workspace("demo")
    monkeypatch.setenv("SCORECARD_BM25_WORKSPACE",
                       db.conn.execute("PRAGMA database_list").fetchone()[2])
    connection = connections.save_connection(db, connections.PYTHON, "bm25-python",
                                             "tests.bm25_adapter:search", "", "", 10_000)
    live_run(db, connection, "v1", k=10, params={"k1": 1.5})
    assert tuning.compare_with_previous(db, "v1") is None
    live_run(db, connection, "v2", k=10, params={"k1": 0.2, "b": 0.1})
    assert tuning.previous_version(db, "v2") == "v1"
    assert tuning.setup_change(db, "v1", "v2") == {"b": (None, 0.1), "k1": (1.5, 0.2)}
    frame = tuning.compare_with_previous(db, "v2", measures=("nDCG@10",))
    means = {run: per_query(db, Controls(run, measures=("nDCG@10",)))["nDCG@10"]
             for run in ("v1", "v2")}
    row = frame.iloc[0]
    assert row["candidate"] == "v2" and row["n"] == len(means["v1"])
    assert row["difference"] == pytest.approx(means["v2"].mean() - means["v1"].mean(), abs=1e-12)
    assert 0 <= row["p_randomization"] <= 1
    differences = (means["v2"] - means["v1"]).to_numpy()
    assert (row["diff_low"], row["diff_high"]) == (
        bootstrap_ci(differences, seed=SEED).low, bootstrap_ci(differences, seed=SEED).high)
    assert row["diff_low"] <= row["difference"] <= row["diff_high"]
    judged = set(db.conn.execute("SELECT query_id, chunk_id FROM judgments"))
    queued = set(db.conn.execute("SELECT query_id, chunk_id FROM label_queue"))
    run = run_frame(db, "v2")
    top = set(zip(run[run["rank"] <= 10]["query_id"], run[run["rank"] <= 10]["doc_id"],
                  strict=True))
    expected = top - judged - queued
    assert set(tuning.new_unjudged_results(db, "v2", 10)) == expected and expected
    assert tuning.queue_new_results(db, "v2", 10) == len(expected)
    assert tuning.new_unjudged_results(db, "v2", 10) == []


def test_what_a_server_said_is_shown_to_admins_only():
    said = "HTTP 503: all shards failed: db_password=hunter2 (after 3 attempts)"
    assert error_shown(said, admin=True) == said
    assert error_shown(said, admin=False) == \
        "HTTP 503 (the server's reason: admins see it) (after 3 attempts)"
    assert error_shown("no reply from http://x/_search within 2 s", admin=False) == \
        "no reply from http://x/_search within 2 s"
