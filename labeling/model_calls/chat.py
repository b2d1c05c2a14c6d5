"""A chat-completions client over the OpenAI-compatible protocol (stdlib HTTP, no SDK).

Settings come from the environment: ``SCORECARD_LLM_BASE_URL`` (e.g. ``http://127.0.0.1:8000/v1``),
``SCORECARD_LLM_MODEL`` and ``SCORECARD_LLM_API_KEY`` (optional for local servers). Each call has
a timeout (seconds) and is retried with exponential backoff on timeouts, 429 and 5xx; a 429's
``Retry-After`` (seconds) is honoured when it asks for longer than the backoff. ``call_cap``
bounds the requests one client sends (retries count: each is a request the server may bill);
past it a call raises ``CallCapReached`` before anything is sent.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from labeling.errors import ScorecardError

ENV_BASE_URL, ENV_MODEL, ENV_KEY = (
    "SCORECARD_LLM_BASE_URL", "SCORECARD_LLM_MODEL", "SCORECARD_LLM_API_KEY"
)


class ChatError(ScorecardError):
    """A call to the chat API failed (after retries) or replied with something unusable."""


class ServerUnreachable(ChatError):
    """The server could not be reached at all (refused, unknown host): every call would fail."""


class CallCapReached(ChatError):
    """The client has sent as many requests as its ``call_cap`` allows."""


def _retry_after(error: urllib.error.HTTPError) -> float:
    """Seconds a 429 asks to wait (its ``Retry-After`` in seconds), 0 when it says nothing."""
    try:
        return max(0.0, float(error.headers.get("Retry-After", "0")))
    except ValueError:  # an HTTP date: the backoff applies
        return 0.0


@dataclass
class ChatClient:
    """A chat-completions client. ``timeout`` and ``backoff`` are seconds; ``retries`` counts
    extra attempts per call."""

    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 1.0
    temperature: float = 0.2
    sleep: Callable[[float], None] = time.sleep
    call_cap: int | None = None
    calls: int = field(default=0, init=False)  # requests sent so far, retries included
    # The last reply's ``usage`` object (prompt_tokens, completion_tokens), when the server
    # sent one.
    last_usage: dict | None = field(default=None, init=False, repr=False)

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

    def chat(self, prompt: str) -> str:
        """The assistant message of one chat completion, retried on transient failures."""
        url = self.base_url.strip().rstrip("/") + "/chat/completions"
        if not url.lower().startswith(("http://", "https://")):
            raise ServerUnreachable(
                f"the server address {self.base_url!r} is not an http:// or https:// URL")
        body = json.dumps({
            "model": self.model, "temperature": self.temperature,
            "messages": [{"role": "user", "content": prompt}],
            "response_format": {"type": "json_object"},
        }).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last, wait = "", 0.0
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(max(wait, self.backoff * 2 ** (attempt - 1)))
            if self.call_cap is not None and self.calls >= self.call_cap:
                raise CallCapReached(f"reached the cap of {self.call_cap} calls")
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            wait = 0.0
            self.calls += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                content = str(payload["choices"][0]["message"]["content"])
                usage = payload.get("usage")
                self.last_usage = usage if isinstance(usage, dict) else None
                return content
            except urllib.error.HTTPError as error:
                last = f"HTTP {error.code} from {url}"
                if error.code != 429 and error.code < 500:
                    raise ChatError(f"{last}: {error.read()[:200].decode(errors='replace')}") \
                        from error
                if error.code == 429:
                    wait = _retry_after(error)
            except TimeoutError:
                last = f"no reply from {url} within {self.timeout:g} s"
            except urllib.error.URLError as error:
                if isinstance(error.reason, TimeoutError):
                    last = f"no reply from {url} within {self.timeout:g} s"
                else:
                    raise ServerUnreachable(f"cannot reach {url}: {error.reason}") from error
            except (ValueError, KeyError, IndexError, TypeError) as error:
                raise ChatError(f"{url} did not reply in the chat-completions format") from error
        raise ChatError(f"{last} (tried {self.retries + 1} times)")
