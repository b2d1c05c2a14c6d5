"""A local server speaking the OpenAI chat-completions protocol, for tests of model calls.

``ChatServer()`` listens on 127.0.0.1 (a free port) in a thread; ``url`` is its base URL
(``.../v1``). Each POST to ``/v1/chat/completions`` takes the next mode from ``script`` (a list
the test fills; ``"good"`` when it is empty):

- ``good``: 200 with ``reply(prompt)`` as the assistant message (by default a relevance grade
  from ``overlap_grade``) and a ``usage`` object;
- ``malformed``: 200 with prose instead of JSON; ``offscale``: JSON with grade 9;
- ``slow``: no answer until the test ends (the client times out); ``hangup``: the connection
  closes without a reply;
- ``429``: HTTP 429 with ``Retry-After: retry_after``; ``error``: HTTP 500; ``notfound``: 404;
- ``badrequest``: HTTP 400 with ``error_body`` as its body (what an internal service may say);
- ``redirect``: ``redirect_code`` (302) to ``redirect_to`` (another server's URL);
- ``raw``: 200 with ``raw_body`` (bytes) as it is; ``endless``: 200 with a body that does not
  end (sent until the client hangs up, or ``ENDLESS_SECONDS`` pass: a client that keeps reading
  then fails its test instead of holding it); ``drip``: 200 whose body comes a byte every
  ``drip_every`` seconds, for at most ``drip_for`` seconds.

Every request (POST or GET) is kept in ``requests``, in order: path, body, Authorization
header, method and arrival time (``time.monotonic``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORD = re.compile(r"[a-z0-9]+")


def send_json(handler: BaseHTTPRequestHandler, payload: dict) -> None:
    """Answer the handler's request with 200 and ``payload`` as its JSON body."""
    body = json.dumps(payload).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


ENDLESS_SECONDS = 60

def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    """``handler`` served on a free port of 127.0.0.1 from a daemon thread: the server and its
    base URL (``.../v1``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"


TAGS = {"Query": "query", "Passage": "passage", "Description of the need": "need",
        "Passage title": "title"}


def tagged(prompt: str, tag: str) -> str | None:
    """The text a prompt carries between a line starting ``<tag>`` and ``</tag>`` ending a line,
    unescaped (``&lt;``, ``&gt;``, ``&amp;``); None when the prompt has no such tags. The
    stand-in model reads its data only there, as the prompt asks."""
    match = re.search(rf"^<{tag}>(.*?)</{tag}>$", prompt, re.M | re.S)
    if match is None:
        return None
    text = match.group(1).strip("\n")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def section(prompt: str, label: str, multiline: bool = False) -> str:
    """The text of ``label`` in a judge prompt: between its tags (prompt v2), else after
    ``label:`` (v1: one line, or up to the next blank line)."""
    inside = tagged(prompt, TAGS[label]) if label in TAGS else None
    if inside is not None:
        return inside.strip()
    pattern = rf"^{re.escape(label)}:\s*\n?(.*?)(?:\n\n|\Z)" if multiline \
        else rf"^{re.escape(label)}: (.*)$"
    match = re.search(pattern, prompt, re.M | re.S if multiline else re.M)
    return match.group(1).strip() if match else ""


def overlap_grade(prompt: str) -> str:
    """A judge reply graded by word overlap between the query and the passage (0-3), a stand-in
    for a model: deterministic, and it depends on what the prompt carries."""
    query = set(WORD.findall(section(prompt, "Query").lower()))
    passage = set(WORD.findall(section(prompt, "Passage", multiline=True).lower()))
    shared = len({w for w in query & passage if len(w) > 3})
    grade = min(3, shared)
    return json.dumps({"grade": grade, "reason": f"{shared} content word(s) of the query appear"})


class ChatServer:
    """See the module docstring."""

    def __init__(self, reply: Callable[[str], str] = overlap_grade, retry_after: str = "1"):
        self.script: list[str] = []
        self.requests: list[dict] = []
        self.reply = reply
        self.retry_after = retry_after
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.error_body = b"bad request"
        self.redirect_to, self.redirect_code = "", 302
        self.raw_body = b""
        self.drip_every, self.drip_for = 0.3, 6.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _record(self, body: dict | None, method: str) -> str:
                with outer.lock:
                    outer.requests.append({"path": self.path, "body": body,
                                           "auth": self.headers.get("Authorization"),
                                           "method": method, "at": time.monotonic()})
                    return outer.script.pop(0) if outer.script else "good"

            def do_GET(self) -> None:  # a redirected request may come as a GET
                self._record(None, "GET")
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                mode = self._record(body, "POST")
                if mode == "slow":
                    outer.release.wait(10)
                    return
                if mode == "hangup":  # the connection closes without a reply
                    return
                if mode in ("badrequest", "redirect", "raw", "endless", "drip"):
                    outer.send_odd(self, mode)
                    return
                if mode in ("429", "error", "notfound"):
                    code = {"429": 429, "error": 500, "notfound": 404}[mode]
                    self.send_response(code)
                    if mode == "429":
                        self.send_header("Retry-After", outer.retry_after)
                    self.end_headers()
                    self.wfile.write(b"not now")
                    return
                prompt = body["messages"][0]["content"]
                content = {
                    "good": lambda: outer.reply(prompt),
                    "malformed": lambda: "I think this passage is fairly relevant!",
                    "offscale": lambda: json.dumps({"grade": 9, "reason": "very"}),
                }[mode]()
                send_json(self, {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 20},
                })

        self.httpd, self.url = serve(Handler)

    def send_odd(self, handler: BaseHTTPRequestHandler, mode: str) -> None:
        """The replies that test the client's bounds (see the module docstring)."""
        if mode in ("badrequest", "redirect"):
            handler.send_response(400 if mode == "badrequest" else self.redirect_code)
            if mode == "redirect":
                handler.send_header("Location", self.redirect_to)
            body = self.error_body if mode == "badrequest" else b""
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if mode == "raw":
            handler.send_header("Content-Length", str(len(self.raw_body)))
        handler.end_headers()
        try:
            if mode == "raw":
                handler.wfile.write(self.raw_body)
            elif mode == "endless":
                piece = b" " * 65536
                ends = time.monotonic() + ENDLESS_SECONDS
                while time.monotonic() < ends and not self.release.is_set():
                    handler.wfile.write(piece)
            else:
                ends = time.monotonic() + self.drip_for
                while time.monotonic() < ends and not self.release.is_set():
                    handler.wfile.write(b" ")
                    handler.wfile.flush()
                    self.release.wait(self.drip_every)
        except OSError:  # the client hung up: what the test wants
            pass

    def prompts(self) -> list[str]:
        """The prompts received, in order."""
        return [r["body"]["messages"][0]["content"] for r in self.requests
                if r["body"] is not None]

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
