"""Model servers as named connections (issue 25): only admins store them, the key stays in the
environment, nobody in the app sends a request anywhere else, a batch stays under the
connection's ceiling, and the call cache is per server."""

from __future__ import annotations

import json

import pytest

from labeling.commands import connection as connection_command
from labeling.commands.cli import main
from labeling.errors import InputError
from labeling.machine_judging import judge_prompts
from labeling.machine_judging import machine_judge as mj
from labeling.model_calls import chat
from labeling.workspace import connections, roles
from labeling.workspace.roles import AccessDenied
from tests import machine_rows as rows
from tests.chat_server import ChatServer

KEY_ENV, KEY = "TEAM_LLM_KEY", "sk-team-secret-123"
ACCOUNTS = {"ada": "admin", "bob": "annotator", "vic": "viewer"}


@pytest.fixture
def server(chat_servers):
    return chat_servers()


@pytest.fixture
def listener(chat_servers):
    """A server nobody configured: it must never be contacted."""
    return chat_servers()


@pytest.fixture
def db(make_workspace, fast_hashes):
    return make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS,
                          accounts=ACCOUNTS)


def _store(db, server: ChatServer, name="local", model="tiny", ceiling=100, key_env=KEY_ENV):
    with roles.acting_as("ada"):
        return connections.save_connection(db, connections.MODEL_SERVER, name, server.url,
                                           model, key_env, ceiling, who="ada")


def test_kinds_match_the_command_line():
    assert tuple(connections.KINDS) == connection_command.KINDS


@pytest.mark.parametrize("who", ["bob", "vic", ""])
def test_only_an_admin_stores_or_removes_a_connection(db, server, who):
    with roles.acting_as(who), pytest.raises(AccessDenied, match="connections"):
        connections.save_connection(db, connections.MODEL_SERVER, "mine", server.url, "m", "",
                                    10)
    stored = _store(db, server)
    assert connections.list_connections(db) == [stored]
    with roles.acting_as(who), pytest.raises(AccessDenied):
        connections.remove_connection(db, connections.MODEL_SERVER, "local")
    with roles.acting_as("ada"):
        connections.remove_connection(db, connections.MODEL_SERVER, "local")
    assert connections.list_connections(db) == []


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("key_env", KEY, "NAME of an environment variable"),
    ("call_ceiling", 1_000_000, "between 1 and 100,000"),
    ("base_url", "file:///etc/passwd", "not an http"),
    ("base_url", "http://user:pw@127.0.0.1:9/v1", "not an http"),
    ("model", " ", "name the model"),
])
def test_a_bad_connection_is_one_sentence_and_nothing_is_stored(db, field, value, problem):
    values = dict(kind=connections.MODEL_SERVER, name="x", base_url="http://127.0.0.1:9/v1",
                  model="m", key_env="", call_ceiling=10)
    values[field] = value
    with roles.acting_as("ada"), pytest.raises(InputError, match=problem):
        connections.save_connection(db, **values)
    assert connections.list_connections(db) == []


def test_the_key_comes_from_the_environment_and_is_never_stored(db, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    stored = _store(db, server)
    judge = mj.judge_on(stored, judge_prompts.load_prompt())
    batch = mj.start_batch(db, judge, rows.PAIRS[:2], "two")
    with roles.acting_as("bob"):
        result = mj.run_batch(db, batch, chat.client_for(stored, timeout=2.0))
    assert result.labeled == 2
    assert {r["auth"] for r in server.requests} == {f"Bearer {KEY}"}
    dump = "\n".join(db.conn.iterdump())
    assert KEY not in dump and KEY_ENV in dump
    assert KEY not in stored.describe() and KEY not in repr(chat.client_for(stored))
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(chat.ChatError, match=f"takes its key from {KEY_ENV}, which is not set"):
        chat.client_for(stored)


def test_an_annotator_cannot_make_the_server_contact_an_unconfigured_host(db, server, listener,
                                                                           monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    stored = _store(db, server)
    judge = mj.judge_on(stored, judge_prompts.load_prompt())
    batch = mj.start_batch(db, judge, rows.PAIRS[:2], "two")
    with roles.acting_as("bob"):
        # An address of their own, with the team's key: refused before anything is sent.
        typed = chat.ChatClient(listener.url, "tiny", KEY)
        with pytest.raises(AccessDenied, match="only to a connection an admin stored"):
            mj.run_batch(db, batch, typed)
        # The stored connection's client, pointed elsewhere: refused too.
        tampered = chat.client_for(stored)
        tampered.base_url = listener.url
        with pytest.raises(AccessDenied, match="differs from the stored connection"):
            mj.run_batch(db, batch, tampered)
    assert listener.requests == [] and server.requests == []


def test_a_batch_cannot_exceed_the_connections_ceiling(db, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    stored = _store(db, server, ceiling=3)
    batch = mj.start_batch(db, mj.judge_on(stored, judge_prompts.load_prompt()), rows.PAIRS, "all")
    with pytest.raises(InputError, match="allows at most 3 calls a batch, not 1,000,000"):
        mj.run_batch(db, batch, chat.client_for(stored), max_calls=1_000_000)
    assert server.requests == []
    result = mj.run_batch(db, batch, chat.client_for(stored))  # the ceiling is the cap
    assert result.calls == 3 and len(server.requests) == 3


def test_labels_from_one_server_are_never_reused_for_another_with_the_same_model(
        db, server, chat_servers, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    forged_server = chat_servers(reply=lambda p: json.dumps({"grade": 3, "reason": "forged"}))
    forged = _store(db, forged_server, name="forged", model="good")
    real = _store(db, server, name="real", model="good")
    prompt = judge_prompts.load_prompt()
    first = mj.start_batch(db, mj.judge_on(forged, prompt), rows.PAIRS, "all")
    mj.run_batch(db, first, chat.client_for(forged))
    judge = mj.judge_on(real, prompt)
    assert judge.name == mj.judge_on(forged, prompt).name == "good@v2"
    assert mj.plan(db, judge, rows.PAIRS).cached == 0
    again = mj.start_batch(db, judge, rows.PAIRS, "all")
    result = mj.run_batch(db, again, chat.client_for(real))
    assert result.from_cache == 0 and len(server.requests) == len(rows.PAIRS)
    reasons = {r[0] for r in db.conn.execute(
        "SELECT reason FROM machine_labels WHERE batch_id = ?", [again])}
    assert "forged" not in reasons
    assert mj.plan(db, judge, rows.PAIRS).cached == len(rows.PAIRS)


def test_a_batch_resumes_on_its_own_connection_only(db, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    one, other = _store(db, server, name="one"), _store(db, server, name="other")
    batch = mj.start_batch(db, mj.judge_on(one, judge_prompts.load_prompt()), rows.PAIRS[:2], "two")
    assert mj.batch_connection(db, batch) == one
    with pytest.raises(Exception, match="started on another model-server connection"):
        mj.run_batch(db, batch, chat.client_for(other))
    assert server.requests == []


def test_the_command_line_stores_lists_and_uses_a_connection(make_workspace, server, capsys,
                                                            monkeypatch):
    path = make_workspace.path("demo")
    monkeypatch.setenv(KEY_ENV, KEY)
    assert main(["connection", str(path), "add", "local", "--base-url", server.url, "--model",
                 "tiny", "--key-env", KEY_ENV, "--call-ceiling", "50"]) == 0
    assert main(["connection", str(path), "list"]) == 0
    out = capsys.readouterr().out
    assert f"local: tiny at {server.url} (key from ${KEY_ENV}; at most 50 calls a batch)" in out
    assert KEY not in out
    base = ["judge", str(path), "run", "--connection", "local", "--runs", "bm25", "--k", "1"]
    assert main([*base, "--max-calls", "51"]) == 2
    assert "allows at most 50 calls a batch, not 51" in capsys.readouterr().err
    assert server.requests == []
    assert main(base) == 0
    assert "tiny@v2" in capsys.readouterr().out
    assert server.requests and {r["auth"] for r in server.requests} == {f"Bearer {KEY}"}
    assert main(["connection", str(path), "add", "bad", "--base-url", server.url, "--model",
                 "m", "--key-env", KEY]) == 2
    assert "never the key itself" in capsys.readouterr().err
    generate = ["generate", str(path), "--generator", "llm", "--connection", "local"]
    assert main([*generate, "--max-calls", "51"]) == 2
    assert "allows at most 50 calls a batch, not 51" in capsys.readouterr().err
    assert main([*generate, "--sample", "3", "--estimate"]) == 0
    assert "the LLM batch sends 3 passages: 6 calls" in capsys.readouterr().out
    assert main(["connection", str(path), "remove", "local"]) == 0
    assert main(["connection", str(path), "remove", "local"]) == 2


def test_the_migration_keeps_old_answers_but_never_reuses_them(tmp_path, server):
    import sqlite3

    from labeling.workspace.migrations import MIGRATIONS, m015_connections
    from labeling.workspace.store import open_workspace

    before = MIGRATIONS.index(m015_connections.migrate)
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    prompt = judge_prompts.load_prompt()
    with conn:
        for migrate in MIGRATIONS[:before]:
            migrate(conn)
        conn.execute(f"PRAGMA user_version = {before}")
        conn.execute("INSERT INTO scale (grade, name) VALUES (0, 'no'), (3, 'yes')")
        conn.execute("INSERT INTO queries (id, text) VALUES ('q1', 'q')")
        conn.execute("INSERT INTO chunks (id, text) VALUES ('c1', 't'), ('c2', 'u')")
        conn.execute("INSERT INTO machine_prompts VALUES (?, 'v2', ?, 't')",
                     [prompt.hash, prompt.template])
        conn.execute("INSERT INTO machine_calls VALUES ('good', ?, 'q1', 'c1', 0, 3, 'forged',"
                     " '{}', NULL, NULL, 't')", [prompt.hash])
        conn.execute("INSERT INTO machine_batches (judge, model, prompt_version, prompt_hash,"
                     " temperature, pair_set, created_at) VALUES ('good@v2', 'good', 'v2', ?, 0,"
                     " 'two', 't')", [prompt.hash])
        conn.execute("INSERT INTO machine_batch_pairs (batch_id, position, query_id, chunk_id,"
                     " attempts, error) VALUES (1, 1, 'q1', 'c1', 2, 'not JSON'),"
                     " (1, 2, 'q1', 'c2', 0, NULL)")
    conn.close()
    db = open_workspace(path)
    kept = db.conn.execute("SELECT connection_id, base_url, reason FROM machine_calls").fetchall()
    assert kept == [(0, "", "forged")]  # kept, with an unknown server
    assert mj.plan(db, mj.Judge("good", prompt, base_url=server.url), [("q1", "c1")]).cached == 0
    failed = mj.batch_failures(db, 1)
    assert failed[["chunk_id", "state", "failures"]].values.tolist() == [["c1", "pending", 2]]
    result = mj.run_batch(db, 1, chat.ChatClient(server.url, "good", timeout=2.0),
                          set_aside_after=3)
    assert result.from_cache == 0 and len(server.requests) == 2
