"""The LLM generator end to end against a local server speaking the chat-completions protocol:
good and malformed replies, timeouts, HTTP errors, the team's settings in the prompt, the critic
score stored, answers found after normalising, unmatched replies counted, the cost estimate
equal to the calls made, the call cap and a batch resumed after an interruption."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from labeling.errors import ScorecardError
from labeling.synthetic import batches, llm, review, settings
from labeling.synthetic.sampling import Chunk
from tests.chat_server import send_json, serve, tagged

CHUNK = Chunk("leave-01", "leave", "Annual leave",
              "Full-time employees get 26 days of annual leave per leave year.")
# getrpcent_r(3), DESCRIPTION, as man-db renders it at 80 columns: a hyphenated line break.
GETRPCENT = (
    "The  buf array is used to store the string fields pointed to by the re‐\n"
    "turned rpcent structure.  (The nonreentrant  functions  allocate  these\n"
    "strings in static storage.)  The size of this array is specified in bu‐\n"
    "flen.  If buf is too small, the call fails with the error  ERANGE,  and\n"
    "the  caller  must  try again with a larger buffer.\n"
)


class ChatServer:
    """Replies in turn from ``script``: "good", "unmatched" (an answer the passage does not
    have), "malformed", "slow" (sleeps past the client's timeout), "error" (HTTP 500) or
    "notfound" (HTTP 404); critic prompts get ``critic`` ratings. Records the request bodies."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.critic = {"standalone": 5, "answerable": 4, "realistic": 3}
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
                prompt = body["messages"][0]["content"]
                critic = "Rate each numbered question" in prompt
                mode = "critic" if critic else (outer.script.pop(0) if outer.script else "good")
                if mode == "slow":
                    outer.release.wait(5)
                    return
                if mode in ("error", "notfound"):
                    self.send_response(500 if mode == "error" else 404)
                    self.end_headers()
                    self.wfile.write(b"nope")
                    return
                passage = tagged(prompt, "passage")
                if mode == "critic":
                    n = tagged(prompt, "questions").count("\n") + 1
                    content = json.dumps({"scores": [{"id": i + 1, **outer.critic}
                                                     for i in range(n)]})
                elif mode in ("good", "unmatched"):
                    words = " ".join(passage.split()[:4])  # spaces and line breaks collapsed
                    content = json.dumps({"questions": [
                        {"question": "How much annual leave do full-time staff get?",
                         "answer": words, "form": "what-why"},
                        {"question": "What is invented?", "answer": "not in the passage"
                         if mode == "unmatched" else words.split()[0], "form": "keyword"},
                    ]})
                else:
                    content = "Sure! Here are some questions: 1. ..."
                send_json(self, {"choices": [{"message": {"role": "assistant",
                                                          "content": content}}]})

        self.httpd, self.url = serve(Handler)

    def prompts(self, critic: bool = False) -> list[str]:
        return [r["body"]["messages"][0]["content"] for r in self.requests
                if ("Rate each numbered question" in r["body"]["messages"][0]["content"])
                == critic]

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
    cands = _client(server).generate(CHUNK, per_chunk=2)
    assert [c.question for c in cands] == ["How much annual leave do full-time staff get?",
                                           "What is invented?"]
    cand = cands[0]
    assert CHUNK.text[cand.answer_start:cand.answer_end] == "Full-time employees get 26"
    assert cand.generator == "llm:tiny-model" and cand.well_formed and cand.form == "what-why"
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
    assert len(_client(server).generate(CHUNK)) == 2
    server.script = ["notfound"]
    with pytest.raises(llm.LlmError, match="HTTP 404"):
        _client(server).generate(CHUNK)


def test_answers_are_found_after_normalising_the_text():
    # The reply joins the hyphenated break, straightens spacing and adds markup and quotes.
    for answer in ("the call fails with the error ERANGE",
                   "The size of this array is specified in buflen.",
                   "`buf` array is used to store",
                   "“the string fields pointed to by the returned rpcent structure”"):
        start, end = llm.find_span(GETRPCENT, answer)
        got = " ".join(GETRPCENT[start:end].replace("‐\n", "").split())
        assert got.lower().replace("`", "") in " ".join(
            GETRPCENT.replace("‐\n", "").split()).lower()
        assert GETRPCENT[end - 1] not in " \n"
    start, end = llm.find_span(GETRPCENT, "specified in buflen")
    assert GETRPCENT[start:end] == "specified in bu‐\nflen"
    assert llm.find_span(GETRPCENT, "a buffer of 2048 bytes") is None


def test_settings_reach_the_prompt_and_the_critic_score_is_stored(server, make_workspace):
    db = make_workspace("demo")
    settings.set_settings(db, {"llm_domain": "the Halyard staff handbook",
                               "llm_persona": "a new employee in their first week",
                               "form_mix": {"how-to": 1, "keyword": 1}})
    result = batches.run(db, 2, generator="llm", seed=1, per_chunk=2, client=_client(server))
    assert not result.errors and len(result.ids) == 4
    for prompt in server.prompts():
        assert "the Halyard staff handbook" in prompt
        assert "a new employee in their first week" in prompt
        assert "(form: how-to)" in prompt and "(form: keyword)" in prompt
        assert "(form: comparison)" not in prompt
    assert len(server.prompts(critic=True)) == 2
    frame = review.candidates_frame(db)
    expected = ((5 + 4 + 3) / 3 - 1) / 4
    assert frame["critic_score"].tolist() == [pytest.approx(expected)] * 4
    assert frame["features"].map(lambda f: f["critic"]).tolist() == [
        pytest.approx(expected - 0.5)] * 4
    assert set(frame["form"]) == {"what-why", "keyword"}  # the form the model declared


def test_a_better_critic_score_raises_the_quality_score(server, make_workspace):
    scores = []
    for ratings in ({"standalone": 1, "answerable": 1, "realistic": 1},
                    {"standalone": 5, "answerable": 5, "realistic": 5}):
        db = make_workspace("demo")
        server.critic = ratings
        batches.run(db, 1, generator="llm", seed=2, per_chunk=1, client=_client(server))
        scores.append(review.candidates_frame(db)["quality"].iloc[0])
    assert scores[1] > scores[0]


def test_unmatched_replies_are_counted_and_kept(server, make_workspace):
    db = make_workspace("demo")
    server.script = ["unmatched", "good"]
    result = batches.run(db, 2, generator="llm", seed=1, per_chunk=2, client=_client(server))
    assert result.unmatched == 1 and len(result.ids) == 3
    row = db.conn.execute("SELECT unmatched, calls FROM synthetic_batches").fetchone()
    assert row == (1, 4)
    kept = batches.unmatched_frame(db)
    assert kept[["question", "answer"]].values.tolist() == [
        ["What is invented?", "not in the passage"]]


def test_every_passage_may_reach_the_model(make_workspace):
    prose = "Quiet prose with nothing the rules can ask about, said here in twelve words."
    db = make_workspace(chunks=[{"id": "p1", "text": prose}, {"id": "p2", "text": prose + "!"}])
    assert batches.plan(db, 5, generator="offline") == []
    assert [c.id for c in batches.plan(db, 5, generator="llm")] == ["p1", "p2"] or [
        c.id for c in batches.plan(db, 5, generator="llm")] == ["p2", "p1"]


def test_the_estimate_equals_the_calls_made_and_the_cap_holds(server, make_workspace):
    db = make_workspace("demo")
    client = _client(server, max_calls=7)
    estimate = batches.estimate(db, 5, per_chunk=2, seed=3, client=client)
    assert (estimate.passages, estimate.calls, estimate.skipped) == (3, 6, 2)
    assert estimate.tokens > 3 * 2 * (llm.REPLY_TOKENS["questions"] + llm.REPLY_TOKENS["critic"])
    result = batches.run(db, 5, generator="llm", seed=3, per_chunk=2, client=client)
    assert len(server.requests) == estimate.calls == result.calls == client.calls
    assert result.waiting == 2 and any("call cap" in e for e in result.errors)
    left = batches.unfinished(db)
    assert [(b["done"], b["passages"]) for b in left] == [(3, 5)]


def test_an_interrupted_batch_resumes_without_repeating_work(server, make_workspace):
    db = make_workspace("demo")

    def stop_after_two(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt  # the page closed, the process killed

    with pytest.raises(KeyboardInterrupt):
        batches.run(db, 4, generator="llm", seed=5, per_chunk=2, client=_client(server),
                    progress=stop_after_two)
    [batch] = batches.unfinished(db)
    assert batch["done"] == 2
    stored = review.candidates_frame(db)
    assert stored["chunk_id"].nunique() == 2 and len(stored) == 4
    first_calls = len(server.requests)
    seen: list[tuple[int, int]] = []
    result = batches.resume(db, batch["id"], client=_client(server),
                            progress=lambda d, t: seen.append((d, t)))
    assert seen == [(3, 4), (4, 4)]
    assert len(server.requests) - first_calls == 4  # two passages, two calls each
    frame = review.candidates_frame(db)
    assert len(frame) == 8 and frame["chunk_id"].nunique() == 4
    assert not frame.duplicated(["chunk_id", "question"]).any()
    assert set(result.ids).isdisjoint(stored["id"])
    assert batches.unfinished(db) == []
    batches.run(db, 1, seed=0)
    offline = db.conn.execute(
        "SELECT id FROM synthetic_batches WHERE generator = 'offline'").fetchone()[0]
    with pytest.raises(ScorecardError, match="nothing to resume"):
        batches.resume(db, offline)


def test_failed_passages_are_reported_and_retried_on_resume(server, make_workspace):
    db = make_workspace("demo")
    server.script = ["good", "malformed", "slow", "slow", "good"]
    result = batches.run(db, 3, generator="llm", seed=1, per_chunk=2, client=_client(server))
    assert len(result.ids) == 2  # the good reply; nothing accepted or queued is lost
    assert any("not JSON" in e for e in result.errors)
    assert any("no reply" in e for e in result.errors)
    [batch] = batches.unfinished(db)
    assert batch["done"] == 1
    batches.resume(db, batch["id"], client=_client(server))
    assert batches.unfinished(db) == [] and len(review.candidates_frame(db)) == 6


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv(llm.ENV_BASE_URL, "http://127.0.0.1:1/v1")
    monkeypatch.setenv(llm.ENV_MODEL, "m")
    client = llm.LlmClient.from_env(timeout=1)
    assert (client.base_url, client.model, client.timeout) == ("http://127.0.0.1:1/v1", "m", 1)
    with pytest.raises(llm.LlmError, match="cannot reach"):
        llm.LlmClient("http://127.0.0.1:1/v1", "m", retries=0).chat("hi")


def test_the_command_prints_the_cost_first_and_resumes(server, make_workspace, monkeypatch,
                                                       capsys):
    from labeling.commands.cli import main

    db = make_workspace("demo")
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    monkeypatch.setenv(llm.ENV_BASE_URL, server.url)
    monkeypatch.setenv(llm.ENV_MODEL, "tiny-model")
    args = ["generate", path, "--generator", "llm", "--sample", "3", "--seed", "1"]
    assert main([*args, "--max-calls", "4", "--estimate"]) == 0
    out = capsys.readouterr().out
    assert "the LLM batch sends 2 passages: 4 calls, about" in out
    assert "1 passages are beyond the call cap" in out and not server.requests
    assert main([*args, "--max-calls", "4"]) == 0
    captured = capsys.readouterr()
    assert len(server.requests) == 4 and "4 calls" in captured.out
    assert "passage 2 of 3 done" in captured.err and "call cap" in captured.err
    [batch] = batches.unfinished(db)
    assert main(["generate", path, "--resume", batch["id"]]) == 0
    assert len(server.requests) == 6 and batches.unfinished(db) == []
    assert f"resumed batch {batch['id']}" in capsys.readouterr().out
