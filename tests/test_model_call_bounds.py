"""Replies that cannot hurt the server (issue 25): a size limit read in pieces, a whole-call
deadline, Retry-After capped and kept across calls, a JSON depth limit, no redirects (the key
never leaves its origin), on both the judge's and the generator's path. Small sizes and short
deadlines keep it fast."""

from __future__ import annotations

import json
import time

import pytest

from labeling.model_calls import bounded_http, chat
from labeling.synthetic import llm
from labeling.synthetic.sampling import Chunk
from tests.chat_server import ChatServer

KEY = "sk-team-secret"
DEEP = "[" * 50_000 + "]" * 50_000


@pytest.fixture
def server(chat_servers):
    return chat_servers()


@pytest.fixture
def target(chat_servers):
    """A second server, where a redirect would lead."""
    return chat_servers()


def _client(server: ChatServer, **kw) -> chat.ChatClient:
    kw.setdefault("retries", 0)
    kw.setdefault("timeout", 2.0)
    return chat.ChatClient(server.url, "tiny", KEY, **kw)


@pytest.mark.parametrize("code", [302, 307, 308])
def test_a_redirect_is_not_followed_and_never_carries_the_key(server, target, code):
    server.script = ["redirect"]
    server.redirect_code, server.redirect_to = code, f"{target.url}/chat/completions"
    with pytest.raises(chat.ChatError, match=f"HTTP {code} .*redirects are not followed"):
        _client(server).chat("grade this")
    assert server.requests[0]["auth"] == f"Bearer {KEY}"  # its own origin has it
    assert target.requests == []  # the redirect target saw nothing, no Authorization header


def test_the_key_goes_only_to_the_base_urls_origin():
    assert bounded_http.origin("http://127.0.0.1:8080/v1") == ("http", "127.0.0.1", 8080)
    assert bounded_http.origin("HTTPS://Models.Example.invalid/v1") == (
        "https", "models.example.invalid", 443)
    with pytest.raises(bounded_http.CallFailed, match="not an http:// or https:// URL"):
        bounded_http.origin("file:///etc/passwd")


def test_a_reply_larger_than_the_limit_is_cut_off_while_it_arrives(server):
    server.script = ["endless"]  # a body that never ends: buffering it all would never return
    with pytest.raises(chat.ChatError, match="larger than 100,000 bytes"):
        _client(server, max_reply_bytes=100_000, timeout=20).chat("x")
    assert chat.MAX_REPLY_BYTES == 1_000_000


def test_a_reply_within_the_limit_is_read_whole(server):
    content = json.dumps({"grade": 2, "reason": "x" * 50_000})
    server.script = ["raw"]
    server.raw_body = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
    assert _client(server, max_reply_bytes=100_000).chat("x") == content


def test_a_dripping_reply_ends_at_the_whole_call_deadline(server):
    server.script = ["drip"]  # a byte every 0.3 s for 6 s: each read is quick, the call is not
    started = time.monotonic()
    with pytest.raises(chat.ChatError, match=r"no reply from .* within 1 s"):
        _client(server, timeout=1.0).chat("x")
    assert time.monotonic() - started < 4.0  # a per-read timeout would have lasted 6 s


def test_a_connection_that_breaks_after_it_was_made_is_tried_again(server):
    server.script = ["hangup"]
    assert json.loads(_client(server, retries=1, backoff=0.01).chat("x"))["grade"] == 0
    assert len(server.requests) == 2
    server.script = ["hangup"]
    with pytest.raises(chat.ChatError, match=r"broke.*\(tried 1 times\)"):
        _client(server).chat("x")


def test_retry_after_is_capped():
    assert chat.retry_after_seconds("86400") == chat.MAX_RETRY_AFTER == 60.0
    assert chat.retry_after_seconds("2") == 2.0
    assert chat.retry_after_seconds("-5") == chat.retry_after_seconds("soon") == 0.0
    assert chat.retry_after_seconds("Wed, 21 Oct 2099 07:28:00 GMT") == 60.0


def test_a_day_long_retry_after_waits_the_cap_only(server):
    server.retry_after = "86400"
    server.script = ["429"]
    slept: list[float] = []
    client = _client(server, retries=1, backoff=0.01, sleep=slept.append,
                     max_retry_after=0.5, clock=lambda: time.monotonic() + sum(slept))
    client.chat("x")  # the retry gets a good reply
    assert len(slept) == 1 and 0.4 < slept[0] <= 0.5


def test_retry_after_holds_for_the_next_call_too(server):
    server.retry_after = "1"
    server.script = ["429", "429"]
    client = _client(server, retries=1, backoff=0.01)
    with pytest.raises(chat.RateLimited, match="HTTP 429"):
        client.chat("first pair")
    client.chat("next pair")
    first_429, second_429, next_pair = (r["at"] for r in server.requests)
    assert second_429 - first_429 >= 0.95
    assert next_pair - second_429 >= 0.95  # not 0.05 s later


@pytest.mark.parametrize("where", ["envelope", "content"])
def test_json_nested_50000_deep_is_one_sentence(server, where):
    server.script = ["raw"]
    content = DEEP if where == "content" else "{}"
    body = json.dumps({"choices": [{"message": {"content": content}}]})
    server.raw_body = (body if where == "content" else DEEP).encode()
    client = llm.LlmClient(server.url, "tiny", KEY, retries=0, timeout=2.0)
    chunk = Chunk("c1", "d1", "Leave", "Full-time employees get 26 days of annual leave.")
    with pytest.raises(chat.ChatError, match="nested 50000 levels deep") as caught:
        client.passage(chunk, ["what-why"])  # the generator's path
    assert "\n" not in str(caught.value)


def test_a_generator_reply_with_a_repeated_key_is_refused():
    chunk = Chunk("c1", "d1", "Leave", "Full-time employees get 26 days of annual leave.")
    with pytest.raises(llm.LlmError, match="'questions' appears twice"):
        llm.parse_reply('{"questions": [], "questions": []}', chunk, "llm:tiny")


def test_an_error_body_is_kept_out_of_the_message_unless_an_admin_reads_it(server):
    server.error_body = b"internal secret: db_password=hunter2"
    server.script = ["badrequest", "badrequest"]
    with pytest.raises(chat.ChatError) as plain:
        _client(server).chat("x")
    assert "hunter2" not in str(plain.value) and "HTTP 400" in str(plain.value)
    with pytest.raises(chat.ChatError) as shown:
        _client(server, show_error_bodies=True).chat("x")
    assert "hunter2" not in str(shown.value)  # the message may be stored: never the body
    assert 'the server said: "internal secret: db_password=hunter2"' in \
        shown.value.described(True)
    assert "hunter2" not in shown.value.described(False)


def test_the_key_never_shows_in_the_clients_repr(server):
    assert KEY not in repr(_client(server))
