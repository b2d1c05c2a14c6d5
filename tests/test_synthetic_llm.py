"""The LLM generator end to end against a local server speaking the chat-completions protocol:
a good reply, a malformed reply, a timeout, an HTTP error and the per-batch call limit."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from labeling.synthetic import llm, review
from labeling.synthetic.sampling import Chunk

CHUNK = Chunk("leave-01", "leave", "Annual leave",
              "Full-time employees get 26 days of annual leave per leave year.")


class ChatServer:
    """Replies in turn from ``script``: "good", "malformed", "slow" (sleeps past the client's
    timeout), "error" (HTTP 500) or "notfound" (HTTP 404). Records the request bodies."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.requests: list[dict] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body,
                                       "auth": self.headers.get("Authorization")})
                mode = outer.script.pop(0) if outer.script else "good"
                if mode == "slow":
                    outer.release.wait(5)
                    return
                if mode in ("error", "notfound"):
                    self.send_response(500 if mode == "error" else 404)
                    self.end_headers()
                    self.wfile.write(b"nope")
                    return
                prompt = body["messages"][0]["content"]
                passage = prompt.split("Passage:\n", 1)[1]
                content = (
                    json.dumps({"questions": [  # the answer: the passage's first four words
                        {"question": "How much annual leave do full-time staff get?",
                         "answer": " ".join(passage.split()[:4])},
                        {"question": "What is invented?", "answer": "not in the passage"},
                    ]}) if mode == "good" else "Sure! Here are some questions: 1. ..."
                )
                payload = json.dumps({"choices": [{"message": {"role": "assistant",
                                                               "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


def _client(server: ChatServer, **kw) -> llm.LlmClient:
    return llm.LlmClient(server.url, "tiny-model", "sk-test", timeout=0.5, retries=1,
                         backoff=0.0, sleep=lambda s: None, **kw)


def test_good_reply_gives_candidates_with_spans_in_the_chunk(server):
    [cand] = _client(server).generate(CHUNK)
    assert cand.question == "How much annual leave do full-time staff get?"
    assert CHUNK.text[cand.answer_start:cand.answer_end] == "Full-time employees get 26"
    assert cand.generator == "llm:tiny-model" and cand.well_formed
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "tiny-model" and request["auth"] == "Bearer sk-test"
    assert CHUNK.text in request["body"]["messages"][0]["content"]


def test_malformed_reply_is_a_clear_error(server):
    server.script = ["malformed"]
    with pytest.raises(llm.LlmError, match="not JSON"):
        _client(server).generate(CHUNK)


def test_timeout_is_retried_then_reported(server):
    server.script = ["slow", "slow"]
    with pytest.raises(llm.LlmError, match=r"no reply .* within 0.5 s \(tried 2 times\)"):
        _client(server).generate(CHUNK)


def test_server_error_is_retried_and_a_client_error_is_not(server):
    server.script = ["error", "good"]
    assert len(_client(server).generate(CHUNK)) == 1
    server.script = ["notfound"]
    with pytest.raises(llm.LlmError, match="HTTP 404"):
        _client(server).generate(CHUNK)


def test_batch_keeps_good_candidates_past_failures_and_stops_at_the_call_limit(
    server, make_workspace
):
    db = make_workspace("demo")
    server.script = ["good", "malformed", "slow", "slow", "good"]
    client = _client(server, max_calls=4)
    ids, errors = review.generate(db, 5, generator="llm", seed=1, per_chunk=2,
                                  llm_client=client)
    assert len(ids) == 2  # the two good replies; nothing accepted or queued is lost
    assert any("not JSON" in e for e in errors)
    assert any("no reply" in e for e in errors)
    assert any("per-batch limit" in e for e in errors)
    assert len(review.candidates_frame(db)) == 2


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv(llm.ENV_BASE_URL, "http://127.0.0.1:1/v1")
    monkeypatch.setenv(llm.ENV_MODEL, "m")
    client = llm.LlmClient.from_env(timeout=1)
    assert (client.base_url, client.model, client.timeout) == ("http://127.0.0.1:1/v1", "m", 1)
    with pytest.raises(llm.LlmError, match="cannot reach"):
        llm.LlmClient("http://127.0.0.1:1/v1", "m", retries=0).chat("hi")
