"""Calling a retriever for one query: a search service answering JSON over HTTP, or a Python
callable.

Conventions
- A retriever answers ``search(query, k, params)`` with (hit id, score) pairs, best first. Ids
  are text; scores are floats (an HTTP hit without a score path gets ``-rank``).
- Templates are JSON values (the body) or {parameter: text} (the query string). A string that
  is exactly ``{{name}}`` becomes the value itself (a number stays a number); a placeholder
  inside a longer string is replaced by the value's text. The filled structure is then encoded
  as JSON or as a URL query string, so a query holding quotes or braces never changes the
  request's shape.
- Header values may hold ``${VARIABLE}``, read from ``environ`` at call time (the secret is
  never stored). Calls go only to the connection's origin (``bounded_http``: no redirects, a
  size limit, a whole-call deadline).
- Retries: a timeout, a broken connection, 429 and 5xx are tried again up to ``retries`` times
  with exponential backoff (``backoff`` seconds, doubled each time); a 429's ``Retry-After`` is
  honoured up to ``max_retry_after`` seconds. Any other 4xx fails at once with the server's
  own reason (Elasticsearch/OpenSearch ``error.reason``, Solr ``error.msg``).
"""

from __future__ import annotations

import importlib
import json
import re
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from labeling.model_calls import bounded_http
from labeling.model_calls.chat import retry_after_seconds

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}")
ENV_REFERENCE = re.compile(r"\$\{([A-Z_][A-Z0-9_]{0,99})\}")
MAX_REPLY_BYTES = 8 * 1024 * 1024
Hits = list[tuple[str, float]]


class RetrievalFailed(Exception):
    """The retriever gave no usable answer for a query (the message says why)."""


def fill(template: Any, values: Mapping[str, Any]) -> Any:
    """``template`` with its placeholders replaced by ``values`` (module conventions);
    ``RetrievalFailed`` naming a placeholder without a value."""
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, values) for value in template]
    if not isinstance(template, str):
        return template
    whole = PLACEHOLDER.fullmatch(template.strip())
    if whole:
        return _value(whole.group(1), values)
    return PLACEHOLDER.sub(lambda m: _text(_value(m.group(1), values)), template)


def _value(name: str, values: Mapping[str, Any]) -> Any:
    if name not in values:
        raise RetrievalFailed(f"the template names {{{{{name}}}}}, which has no value (give it "
                              f"with --param {name}=VALUE)")
    return values[name]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def dig(value: Any, path: str) -> Any:
    """The part of ``value`` at the dotted ``path`` (list positions as numbers); '' is
    ``value`` itself. ``RetrievalFailed`` when the path is not there."""
    for step in [s for s in path.split(".") if s]:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            raise RetrievalFailed(f"the reply has no {path!r} (stopped at {step!r})")
    return value


def parse_hits(payload: Any, options: Mapping[str, Any]) -> Hits:
    """(id, score) pairs from a search reply, in its order (module conventions)."""
    found = dig(payload, options.get("hits_path", ""))
    if not isinstance(found, list):
        raise RetrievalFailed(f"{options.get('hits_path')!r} in the reply is not a list of hits")
    hits: Hits = []
    for rank, hit in enumerate(found, start=1):
        doc = dig(hit, options["id_path"])
        if not isinstance(doc, (str, int)) or isinstance(doc, bool) or str(doc) == "":
            raise RetrievalFailed(f"hit {rank} has no usable id at {options['id_path']!r}")
        path = options.get("score_path", "")
        score = dig(hit, path) if path else -rank
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise RetrievalFailed(f"hit {rank} has no number at {path!r}")
        hits.append((str(doc), float(score)))
    return hits


def error_reason(status: int, body: bytes) -> str:
    """One line saying why the server refused: its own reason when the body is the
    Elasticsearch/OpenSearch or Solr error shape, else the start of the body."""
    text = body.decode("utf-8", "replace")
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        error = None
    reason = None
    if isinstance(error, dict):
        causes = error.get("root_cause") or [{}]
        reason = error.get("reason") or error.get("msg") or (
            causes[0].get("reason") if isinstance(causes[0], dict) else None) or error.get("type")
    elif isinstance(error, str):
        reason = error
    reason = str(reason) if reason else " ".join(text.split())[:200]
    return f"HTTP {status}: {reason}" if reason else f"HTTP {status}"


def with_secrets(headers: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """``headers`` with each ``${VARIABLE}`` replaced from ``environ``."""
    def secret(match: re.Match) -> str:
        if match.group(1) not in environ:
            raise RetrievalFailed(f"the environment variable {match.group(1)} is not set here")
        return environ[match.group(1)]
    return {name: ENV_REFERENCE.sub(secret, value) for name, value in headers.items()}


@dataclass
class HttpRetriever:
    """A search service answering JSON (``options``: see ``connections.check_retriever_options``)
    at ``url``. Times are seconds."""

    url: str
    options: Mapping[str, Any]
    environ: Mapping[str, str]
    deadline: float = 10.0
    retries: int = 3
    backoff: float = 0.5
    max_retry_after: float = 30.0
    max_bytes: int = MAX_REPLY_BYTES
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def request_for(self, query: str, k: int,
                    params: Mapping[str, Any]) -> tuple[str, bytes | None]:
        """The URL and body for one query (placeholders filled, module conventions)."""
        values = {**self.options.get("params", {}), **params, "query": query, "k": k}
        url = self.url
        if self.options.get("query"):
            filled = fill(self.options["query"], values)
            pairs = urllib.parse.urlencode({n: _text(v) for n, v in filled.items()})
            url = f"{url}{'&' if '?' in url else '?'}{pairs}"
        body = None
        if "body" in self.options:
            body = json.dumps(fill(self.options["body"], values)).encode()
        return url, body

    def search(self, query: str, k: int, params: Mapping[str, Any]) -> Hits:
        """The hits for ``query``; ``RetrievalFailed`` once the retries are spent."""
        url, body = self.request_for(query, k, params)
        headers = {"Accept": "application/json",
                   **with_secrets(self.options.get("headers", {}), self.environ)}
        if body is not None:
            headers["Content-Type"] = "application/json"
        last = ""
        for attempt in range(self.retries + 1):
            wait = self.backoff * 2 ** attempt
            try:
                reply = bounded_http.request(self.options.get("method", "POST"), url, body,
                                             headers, deadline=self.deadline,
                                             max_bytes=self.max_bytes)
            except bounded_http.CallFailed as error:
                if error.kind not in ("deadline", "broken"):
                    raise RetrievalFailed(str(error)) from error
                last = str(error)
            else:
                if 200 <= reply.status < 300:
                    return self._hits(reply.body)
                last = error_reason(reply.status, reply.body)
                if reply.status == 429:
                    wait = max(wait, retry_after_seconds(reply.headers.get("retry-after"),
                                                         self.max_retry_after))
                elif reply.status < 500:
                    raise RetrievalFailed(last)
            if attempt < self.retries:
                self.sleep(wait)
        raise RetrievalFailed(f"{last} (after {self.retries + 1} attempts)")

    def _hits(self, body: bytes) -> Hits:
        try:
            payload = json.loads(body)
        except ValueError as error:
            raise RetrievalFailed(f"the reply is not JSON: {body[:80]!r}") from error
        return parse_hits(payload, self.options)


@dataclass
class PythonRetriever:
    """A callable named ``module:callable``, called as ``f(query, k, **params)`` and returning
    (chunk id, score) pairs, best first."""

    target: str

    def __post_init__(self) -> None:
        module, _, name = self.target.partition(":")
        try:
            self.function = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as error:
            raise RetrievalFailed(f"cannot load the retriever {self.target}: {error}") from error

    def search(self, query: str, k: int, params: Mapping[str, Any]) -> Hits:
        """The callable's hits; ``RetrievalFailed`` when it raises or returns something else."""
        try:
            found = list(self.function(query, k, **params))
            return [(str(doc), float(score)) for doc, score in found]
        except Exception as error:  # the retriever is someone else's code: any error is its own
            raise RetrievalFailed(f"{type(error).__name__}: {error}") from error
