"""Failed pairs of a machine-judge batch (issue 30, item 10): a pair that keeps failing is set
aside after N failures so the batch finishes; ``scorecard judge failures`` lists the failed
pairs with their raw replies, escaped; a rate limit is the server's state, not the pair's, and
its Retry-After holds for the next pair."""

from __future__ import annotations

import json

import pytest

from labeling.commands.cli import main
from labeling.machine_judging import judge_prompts
from labeling.machine_judging import machine_judge as mj
from labeling.model_calls import chat
from labeling.workspace.store import open_workspace
from tests import machine_rows as rows
from tests.chat_server import ChatServer, overlap_grade

# What a broken model says about q-tree's pairs, every time: terminal escapes, markup, a line
# break.
HOSTILE_REPLY = "\x1b[31m<b>not JSON</b>\nsecond line [link](http://example.invalid)"
PAIRS = [("q-tree", "copytree"), ("q-indent", "dedent"), ("q-glob", "glob")]


def _reply(prompt: str) -> str:
    return HOSTILE_REPLY if "copy a directory tree" in prompt else overlap_grade(prompt)


@pytest.fixture
def server(chat_servers):
    return chat_servers(reply=_reply)


@pytest.fixture
def path(make_workspace):
    return make_workspace.path(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS)


def _client(server: ChatServer, **kw) -> chat.ChatClient:
    return chat.ChatClient(server.url, "tiny", timeout=2.0, retries=0, **kw)


def test_a_pair_that_always_fails_is_set_aside_and_the_batch_finishes(path, server):
    db = open_workspace(path, create=False)
    batch = mj.start_batch(db, mj.Judge("tiny", judge_prompts.load_prompt()), PAIRS, "three")
    first = mj.run_batch(db, batch, _client(server), set_aside_after=2)
    assert (first.labeled, first.failed, first.pending, first.set_aside) == (2, 1, 1, 0)
    second = mj.run_batch(db, batch, _client(server), set_aside_after=2)
    assert (second.calls, second.pending, second.set_aside) == (1, 0, 1)
    assert second.newly_set_aside == [("q-tree", "copytree")]
    assert "1 pair(s) set aside after repeated failures" in second.summary()
    third = mj.run_batch(db, batch, _client(server), set_aside_after=2)
    assert third.calls == 0 and third.pending == 0  # not sent again
    assert len(server.requests) == 4
    status = mj.batches(db).iloc[0]
    assert (status["done"], status["pending"], status["set_aside"]) == (2, 0, 1)
    assert db.conn.execute("SELECT finished_at IS NOT NULL FROM machine_batches").fetchone()[0]
    failed = mj.batch_failures(db, batch)
    assert failed[["chunk_id", "state", "failures"]].values.tolist() == [
        ["copytree", "set_aside", 2]]
    assert failed.loc[0, "reply"] == HOSTILE_REPLY  # kept as it came
    db.close()


def test_the_failures_command_lists_pairs_with_escaped_replies_and_resume_exits_0(
        path, server, capsys):
    base = ["judge", str(path)]
    options = ["--base-url", server.url, "--model", "tiny", "--timeout", "2"]
    assert main([*base, "run", *options, "--runs", "lexical", "--k", "1"]) == 1  # one pending
    capsys.readouterr()
    assert main([*base, "failures"]) == 0
    out = capsys.readouterr().out
    [line] = [x for x in out.splitlines() if "q-tree" in x]
    assert "pending after 1 failure(s)" in line
    assert f"reply {json.dumps(HOSTILE_REPLY)}" in line  # escaped: one line, no raw escape
    assert "\x1b" not in out and out.count("\n") == 1
    assert main([*base, "resume", "1", *options[:2], "--set-aside-after", "2"]) == 0
    assert "1 pair(s) set aside after repeated failures" in capsys.readouterr().out
    assert main([*base, "resume", "1", *options[:2]]) == 0  # says so again, calls nothing
    out = capsys.readouterr().out
    assert "0 call(s)" in out and "set aside" in out
    assert main([*base, "failures", "--batch", "1"]) == 0
    assert "set aside after 2 failure(s)" in capsys.readouterr().out
    assert main([*base, "failures", "--batch", "9"]) == 2
    assert "no machine batch 9" in capsys.readouterr().err


def test_a_rate_limit_is_not_the_pairs_failure_and_holds_for_the_next_pair(path, server):
    db = open_workspace(path, create=False)
    server.retry_after = "1"
    server.script = ["429", "429", "429"]
    batch = mj.start_batch(db, mj.Judge("tiny", judge_prompts.load_prompt()), PAIRS[1:], "two")
    result = mj.run_batch(db, batch, chat.ChatClient(server.url, "tiny", timeout=2.0,
                                                     retries=2, backoff=0.01),
                          set_aside_after=1)
    assert result.pending == 1 and result.set_aside == 0  # rate limited: still pending
    third_429, next_pair = server.requests[2]["at"], server.requests[3]["at"]
    assert next_pair - third_429 >= 0.95  # the server's Retry-After, not 0.05 s later
    [failed] = mj.batch_failures(db, batch).itertuples()
    assert failed.failures == 0 and "HTTP 429" in failed.error
    db.close()
