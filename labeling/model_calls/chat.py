"""A chat-completions client over the OpenAI-compatible protocol (stdlib HTTP, no SDK).

Where calls go: a *connection* an admin stored in the workspace (``client_for``: its base URL,
model, call ceiling, and the key read from the environment variable it names), or, for the
workspace's owner on the command line, ``SCORECARD_LLM_BASE_URL``, ``SCORECARD_LLM_MODEL`` and
``SCORECARD_LLM_API_KEY`` (``from_env``). The key is sent only to the origin of the base URL:
replies are never redirected (``labeling.model_calls.bounded_http``).

Each call has a whole-call deadline (``timeout``, seconds), a reply-size limit
(``max_reply_bytes``, 1 MB by default) and a JSON depth limit (``strict_json``), and is retried
with exponential backoff on timeouts, 429 and 5xx. A 429's ``Retry-After`` (seconds or an HTTP
date) is honoured up to ``max_retry_after`` seconds, and across calls: the next request, for
this pair or the next one, waits until the time the server named. ``call_cap`` bounds the
requests one client sends (retries count: each is a request the server may bill); past it a
call raises ``CallCapReached`` before anything is sent.

The body of an error reply (which may be anything the server holds) is never in an error's
message, so never stored with a pair: it is the error's ``detail``, which callers show
(``ChatError.described``) to admins only.
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from labeling.errors import ScorecardError
from labeling.model_calls import bounded_http, strict_json

ENV_BASE_URL, ENV_MODEL, ENV_KEY = (
    "SCORECARD_LLM_BASE_URL", "SCORECARD_LLM_MODEL", "SCORECARD_LLM_API_KEY"
)
MAX_REPLY_BYTES = 1_000_000
MAX_RETRY_AFTER = 60.0  # seconds: a server asking for longer gets this much
DETAIL_CHARS = 200


class ChatError(ScorecardError):
    """A call to the chat API failed (after retries) or replied with something unusable;
    ``detail`` is what the server said (an error body), for admins' eyes only."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail

    def described(self, with_detail: bool) -> str:
        """The message, with what the server said (JSON-escaped) when ``with_detail``: for an
        admin's eyes, never stored."""
        if with_detail and self.detail.strip():
            return f"{self} (the server said: {json.dumps(self.detail)})"
        return str(self)


class ServerUnreachable(ChatError):
    """The server could not be reached at all (refused, unknown host, not a URL): every call
    would fail."""


class RateLimited(ChatError):
    """The server kept answering 429 (too many requests) through every retry."""


class CallCapReached(ChatError):
    """The client has sent as many requests as its ``call_cap`` allows."""


def retry_after_seconds(value: str | None, cap: float = MAX_RETRY_AFTER) -> float:
    """Seconds a ``Retry-After`` header asks to wait, between 0 and ``cap`` (0 when absent or
    unreadable)."""
    if not value:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return 0.0
        seconds = when.timestamp() - time.time()
    return min(cap, max(0.0, seconds)) if seconds == seconds else 0.0  # NaN: 0


@dataclass
class ChatClient:
    """A chat-completions client. ``timeout`` (the whole-call deadline), ``backoff`` and
    ``max_retry_after`` are seconds; ``retries`` counts extra attempts per call;
    ``connection_id`` and ``connection_name`` name the stored connection it was made from (0 and
    "" for one from the command line); ``show_error_bodies``: its caller may show what a server
    said in an error reply (``ChatError.described``): the caller is an admin."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 1.0
    temperature: float = 0.2
    sleep: Callable[[float], None] = time.sleep
    call_cap: int | None = None
    max_reply_bytes: int = MAX_REPLY_BYTES
    max_retry_after: float = MAX_RETRY_AFTER
    connection_id: int = 0
    connection_name: str = ""
    show_error_bodies: bool = False
    clock: Callable[[], float] = time.monotonic
    calls: int = field(default=0, init=False)  # requests sent so far, retries included
    # The last reply's ``usage`` object (prompt_tokens, completion_tokens), when the server
    # sent one.
    last_usage: dict | None = field(default=None, init=False, repr=False)
    # The clock time before which the server asked not to be called again (Retry-After).
    not_before: float = field(default=0.0, init=False, repr=False)

    @classmethod
    def from_env(cls, **overrides):
        """A client from ``SCORECARD_LLM_*``; ``ScorecardError`` naming what is missing."""
        base_url = os.environ.get(ENV_BASE_URL, "").strip()
        model = os.environ.get(ENV_MODEL, "").strip()
        if not base_url or not model:
            raise ScorecardError(
                f"model calls need {ENV_BASE_URL} and {ENV_MODEL} "
                "(an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1)"
            )
        return cls(base_url, model, os.environ.get(ENV_KEY, ""), **overrides)

    @property
    def url(self) -> str:
        return self.base_url.strip().rstrip("/") + "/chat/completions"

    @property
    def server(self) -> str:
        """The server as messages name it: the connection's name, else the URL."""
        return f"the model server {self.connection_name!r}" if self.connection_name else self.url

    def chat(self, prompt: str) -> str:
        """The assistant message of one chat completion, retried on transient failures."""
        try:
            bounded_http.origin(self.base_url)
        except bounded_http.CallFailed as error:
            raise ServerUnreachable(str(error)) from None
        body = json.dumps({
            "model": self.model, "temperature": self.temperature,
            "messages": [{"role": "user", "content": prompt}],
            "response_format": {"type": "json_object"},
        }).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last, limited = "", False
        for attempt in range(self.retries + 1):
            pause = self.backoff * 2 ** (attempt - 1) if attempt else 0.0
            pause = max(pause, self.not_before - self.clock())
            if pause > 0:
                self.sleep(pause)
            if self.call_cap is not None and self.calls >= self.call_cap:
                raise CallCapReached(f"reached the cap of {self.call_cap} calls")
            self.calls += 1
            try:
                reply = bounded_http.post(self.url, body, headers, deadline=self.timeout,
                                          max_bytes=self.max_reply_bytes)
            except bounded_http.CallFailed as failed:
                if failed.kind in ("deadline", "broken"):  # transient: tried again
                    limited = False
                    last = self._named(str(failed)) if failed.kind == "broken" else \
                        f"no reply from {self.server} within {self.timeout:g} s"
                    continue
                if failed.kind in ("address", "unreachable"):
                    raise ServerUnreachable(self._named(str(failed))) from None
                raise ChatError(self._named(str(failed))) from None
            if 200 <= reply.status < 300:
                return self._content(reply.body)
            last = f"HTTP {reply.status} from {self.server}"
            limited = reply.status == 429
            if limited:
                wait = retry_after_seconds(reply.headers.get("retry-after"),
                                           self.max_retry_after)
                self.not_before = max(self.not_before, self.clock() + wait)
            elif reply.status < 500:
                raise self._error(last, reply.body)
        raise (RateLimited if limited else ChatError)(f"{last} (tried {self.retries + 1} times)")

    def _named(self, message: str) -> str:
        return message.replace(self.url, self.server) if self.connection_name else message

    def _error(self, message: str, body: bytes) -> ChatError:
        detail = body[:DETAIL_CHARS * 4].decode("utf-8", errors="replace")[:DETAIL_CHARS]
        return ChatError(message, detail)

    def _content(self, body: bytes) -> str:
        try:
            payload: Any = strict_json.loads(body.decode("utf-8", errors="replace"),
                                             what=f"the reply of {self.server}")
            content = payload["choices"][0]["message"]["content"]
        except strict_json.JsonRejected as error:
            raise ChatError(str(error)) from None
        except (KeyError, IndexError, TypeError) as error:
            raise ChatError(f"{self.server} did not reply in the chat-completions format") \
                from error
        if not isinstance(content, str):
            raise ChatError(f"{self.server} did not reply in the chat-completions format")
        usage = payload.get("usage")
        self.last_usage = usage if isinstance(usage, dict) else None
        return content


def client_for(connection: Any, *, cls: type[ChatClient] = ChatClient,
               environ: dict[str, str] | None = None, **overrides) -> ChatClient:
    """A client for a stored model-server connection (any object with ``id``, ``name``,
    ``base_url``, ``model``, ``key_env`` and ``call_ceiling``): its key read from the
    environment variable it names, its ceiling as the call cap. ``ChatError`` when the variable
    is named but not set."""
    environ = os.environ if environ is None else environ
    key = ""
    if connection.key_env:
        key = environ.get(connection.key_env, "")
        if not key:
            raise ChatError(f"the model server {connection.name!r} takes its key from "
                            f"{connection.key_env}, which is not set where the app runs")
    overrides.setdefault("call_cap", int(connection.call_ceiling))
    return cls(connection.base_url, connection.model, key, connection_id=int(connection.id),
               connection_name=connection.name, **overrides)
