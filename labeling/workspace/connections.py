"""Named connections to outside servers, stored in the workspace and changed by admins only.

Conventions
- A connection has a ``kind`` (``KINDS``: ``model_server``, an OpenAI-compatible chat server),
  a ``name`` unique within its kind, a ``base_url`` (http:// or https://), a ``model`` (the
  model a model server runs), ``key_env``: the *name* of the environment variable holding its
  key, read where the calls are made (the key is never stored: not in the workspace, so not in
  exports, backups or reports), and ``call_ceiling``: the most requests one batch may send.
- Saving or removing one is the action ``manage_connections`` (admins; the file owner on the
  command line). Everyone else only picks a connection by name: nobody but an admin chooses
  where the server sends requests.
- Retrievers share the table, the roles and the rules: ``http_json`` (a search service answering
  JSON: ``base_url`` is the endpoint, ``options`` hold the method, headers, the body or query
  template and the paths to the hits, see ``check_retriever_options``) and ``python``
  (``base_url`` is ``module:callable``, called in the process that runs the retrieval). A secret
  reaches a header only as ``${VARIABLE}``, read from the environment where the call is made.
  For a retriever, ``call_ceiling`` is the most queries one run may send.
- The HTTP side (origin rules, no redirects, bounded replies) is ``labeling.model_calls``; this
  module only stores and checks.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from labeling.errors import InputError
from labeling.workspace import roles
from labeling.workspace.store import utc_now, write_transaction

MODEL_SERVER = "model_server"
HTTP_JSON = "http_json"
PYTHON = "python"
POSTGRES = "postgres_fts"
KINDS = {MODEL_SERVER: "model server", HTTP_JSON: "HTTP JSON retriever",
         PYTHON: "Python retriever", POSTGRES: "PostgreSQL full-text search"}
RETRIEVERS = (HTTP_JSON, PYTHON, POSTGRES)
SQL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
POSTGRES_DEFAULTS = {"table": "chunks", "id_column": "id", "text_column": "text",
                     "config": "english"}
MAX_CEILING = 100_000
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,99}")
ENV_REFERENCE = re.compile(r"\$\{([A-Z_][A-Z0-9_]{0,99})\}")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}")
CALLABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,199}:[A-Za-z_][A-Za-z0-9_]{0,99}")
# Header names whose values are secrets: they must come from ${VARIABLE} references.
SECRET_HEADER = re.compile(r"authorization|cookie|token|key|secret|password", re.I)
_OPTION_KEYS = {"method", "headers", "body", "query", "hits_path", "id_path", "score_path",
                "params"}
_COLUMNS = "id, kind, name, base_url, model, key_env, call_ceiling, options"


@dataclass(frozen=True)
class Connection:
    """A stored connection (see the module conventions)."""

    id: int
    kind: str
    name: str
    base_url: str
    model: str
    key_env: str
    call_ceiling: int
    options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """What an admin reads about it (never the key)."""
        if self.kind == PYTHON:
            return f"{self.name}: Python retriever {self.base_url} (at most " \
                f"{self.call_ceiling:,} queries a run)"
        if self.kind == POSTGRES:
            key = f"password from ${self.key_env}" if self.key_env else "no password"
            return (f"{self.name}: PostgreSQL full-text search of {self.options.get('table')} "
                    f"at {self.base_url} ({key}; at most {self.call_ceiling:,} queries a run)")
        if self.kind == HTTP_JSON:
            secrets = sorted(set(ENV_REFERENCE.findall(json.dumps(self.options))))
            keys = ", ".join(f"${s}" for s in secrets) or "no secrets"
            return (f"{self.name}: {self.options.get('method', 'POST')} {self.base_url} "
                    f"({keys}; at most {self.call_ceiling:,} queries a run)")
        key = f"key from ${self.key_env}" if self.key_env else "no key"
        return (f"{self.name}: {self.model} at {self.base_url} ({key}; at most "
                f"{self.call_ceiling:,} calls a batch)")


def _check(kind: str, name: str, base_url: str, model: str, key_env: str,
           call_ceiling: int) -> tuple[str, str, str, str, int]:
    if kind not in KINDS:
        raise InputError(f"unknown connection kind {kind!r} (kinds: {', '.join(KINDS)})",
                         source="connection")
    name, base_url, model, key_env = (name.strip(), base_url.strip().rstrip("/"),
                                      model.strip(), key_env.strip())
    if not name or len(name) > 100 or not name.isprintable():
        raise InputError("the name is 1 to 100 printable characters", source="connection")
    if kind == PYTHON:
        if not CALLABLE.fullmatch(base_url):
            raise InputError(f"a Python retriever is named module:callable, not {base_url!r}",
                             source="connection")
        return name, base_url, "", "", _ceiling(call_ceiling)
    if kind == POSTGRES:
        return name, _check_postgres_url(base_url), "", _check_env(key_env), \
            _ceiling(call_ceiling)
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or parts.username \
            or parts.password or parts.query or parts.fragment:
        raise InputError(f"the base URL {base_url!r} is not an http:// or https:// address "
                         "(without a user, password, query or fragment)", source="connection")
    if kind == MODEL_SERVER and not model:
        raise InputError("name the model the server runs", source="connection")
    if key_env and not ENV_NAME.fullmatch(key_env):
        raise InputError("the key field takes the NAME of an environment variable (capital "
                         "letters, digits and _), never the key itself", source="connection")
    return name, base_url, model, key_env, _ceiling(call_ceiling)


def _check_env(key_env: str) -> str:
    if key_env and not ENV_NAME.fullmatch(key_env):
        raise InputError("the key field takes the NAME of an environment variable (capital "
                         "letters, digits and _), never the key itself", source="connection")
    return key_env


def _check_postgres_url(url: str) -> str:
    """postgresql://[user@]host[:port]/database: no password (it comes from ``key_env``)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "postgresql" or not parts.hostname or parts.password \
            or not SQL_NAME.fullmatch(parts.path.lstrip("/") or "-") or parts.query \
            or parts.fragment:
        raise InputError(f"{url!r} is not postgresql://[user@]host[:port]/database (the "
                         "password comes from the environment variable named as the key)",
                         source="connection")
    return url


def check_postgres_options(options: Mapping[str, Any]) -> dict[str, str]:
    """A PostgreSQL full-text connection's ``table``, ``id_column``, ``text_column`` and text
    search ``config`` (each a plain SQL name; defaults ``POSTGRES_DEFAULTS``)."""
    unknown = set(options) - set(POSTGRES_DEFAULTS)
    if unknown:
        raise InputError(f"unknown options {', '.join(sorted(unknown))} (known: "
                         f"{', '.join(POSTGRES_DEFAULTS)})", source="connection")
    checked = {**POSTGRES_DEFAULTS, **options}
    for key, value in checked.items():
        if not isinstance(value, str) or not SQL_NAME.fullmatch(value):
            raise InputError(f"{key} is a plain SQL name (letters, digits, _), not {value!r}",
                             source="connection")
    return checked


def _ceiling(call_ceiling: int) -> int:
    if isinstance(call_ceiling, bool) or not 1 <= int(call_ceiling) <= MAX_CEILING:
        raise InputError(f"the call ceiling is between 1 and {MAX_CEILING:,}",
                         source="connection")
    return int(call_ceiling)


def check_retriever_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of an ``http_json`` connection, checked: ``method`` GET or POST; ``headers``
    {name: value}, a secret header's value only from ``${VARIABLE}`` references; ``body`` (a
    JSON value, POST only) and ``query`` ({parameter: text}) templates whose strings may hold
    ``{{query}}``, ``{{k}}`` and ``{{name}}`` of a named parameter; ``hits_path`` (dotted path
    to the hit list), ``id_path`` and ``score_path`` (dotted paths inside a hit; no score
    path: scores count down from the top); ``params``: default values of the named
    parameters."""
    options = dict(options)
    unknown = set(options) - _OPTION_KEYS
    if unknown:
        raise InputError(f"unknown retriever options {', '.join(sorted(unknown))} (known: "
                         f"{', '.join(sorted(_OPTION_KEYS))})", source="connection")
    method = str(options.get("method", "POST")).upper()
    if method not in ("GET", "POST"):
        raise InputError(f"the method is GET or POST, not {method!r}", source="connection")
    headers = options.get("headers") or {}
    query = options.get("query") or {}
    params = options.get("params") or {}
    for what, value in (("headers", headers), ("query", query), ("params", params)):
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise InputError(f"{what} is an object of names to values", source="connection")
    for header, value in headers.items():
        if not isinstance(value, str) or not value.isprintable():
            raise InputError(f"the header {header!r} has no printable text value",
                             source="connection")
        if SECRET_HEADER.search(header) and not ENV_REFERENCE.search(value):
            raise InputError(f"the header {header!r} carries a secret: give it as "
                             "${VARIABLE} (read from the environment), never the value itself",
                             source="connection")
    if "body" in options and method == "GET":
        raise InputError("a GET request has no body: use the query template",
                         source="connection")
    for path in ("hits_path", "id_path", "score_path"):
        if not isinstance(options.get(path, ""), str):
            raise InputError(f"{path} is a dotted path such as hits.hits", source="connection")
    if not options.get("id_path"):
        raise InputError("name the id_path: where a hit's id is (e.g. _id)", source="connection")
    return {**options, "method": method, "headers": headers, "query": query, "params": params}


def save_connection(db: sqlite_utils.Database, kind: str, name: str, base_url: str, model: str,
                    key_env: str, call_ceiling: int, *, who: str | None = None,
                    options: Mapping[str, Any] | None = None) -> Connection:
    """Store a connection, or change the one of that kind and name (admins only)."""
    name, base_url, model, key_env, call_ceiling = _check(kind, name, base_url, model, key_env,
                                                          call_ceiling)
    checked = _checked_options(kind, options or {})
    with write_transaction(db, action="manage_connections") as conn:
        conn.execute(
            "INSERT INTO connections (kind, name, base_url, model, key_env, call_ceiling,"
            " options, changed_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (kind, name) DO UPDATE SET base_url = excluded.base_url,"
            " model = excluded.model, key_env = excluded.key_env,"
            " call_ceiling = excluded.call_ceiling, options = excluded.options,"
            " changed_by = excluded.changed_by, changed_at = excluded.changed_at",
            [kind, name, base_url, model, key_env, call_ceiling, json.dumps(checked), who,
             utc_now()])
    return get_connection(db, kind, name)


def remove_connection(db: sqlite_utils.Database, kind: str, name: str) -> None:
    """Forget a connection (admins only); batches started with it keep their labels."""
    get_connection(db, kind, name)
    with write_transaction(db, action="manage_connections") as conn:
        conn.execute("DELETE FROM connections WHERE kind = ? AND name = ?", [kind, name])


def list_connections(db: sqlite_utils.Database, kind: str = MODEL_SERVER) -> list[Connection]:
    """The connections of ``kind``, by name."""
    return [_connection(row) for row in db.conn.execute(
        f"SELECT {_COLUMNS} FROM connections WHERE kind = ? ORDER BY name", [kind])]


def get_connection(db: sqlite_utils.Database, kind: str, name: str) -> Connection:
    """The connection of ``kind`` called ``name``; ``InputError`` naming the known ones."""
    row = db.conn.execute(f"SELECT {_COLUMNS} FROM connections WHERE kind = ? AND name = ?",
                          [kind, name]).fetchone()
    if row is None:
        known = ", ".join(c.name for c in list_connections(db, kind)) or "none yet; an admin "\
            "adds one"
        raise InputError(f"no {KINDS.get(kind, kind)} connection {name!r} (known: {known})",
                         source="connection")
    return _connection(row)


def _connection(row: tuple) -> Connection:
    return Connection(*row[:-1], options=json.loads(row[-1] or "{}"))


def connection_by_id(db: sqlite_utils.Database, connection_id: int) -> Connection | None:
    """The connection with this id, or None (removed since)."""
    row = db.conn.execute(f"SELECT {_COLUMNS} FROM connections WHERE id = ?",
                          [connection_id]).fetchone()
    return _connection(row) if row else None


def check_use(db: sqlite_utils.Database, connection_id: int, base_url: str, model: str,
              calls: int | None) -> None:
    """Refuse to send requests the current actor may not send: in the app (an actor that is
    not None), only through a stored connection whose address and model are the ones given;
    through a stored connection, at most its ``call_ceiling`` calls (``calls`` None: no cap,
    refused). The owner may also name a server of their own (``connection_id`` 0)."""
    stored = connection_by_id(db, connection_id) if connection_id else None
    if stored is None:
        if roles.current_actor(db) is not None:
            raise roles.AccessDenied("requests from the app go only to a connection an admin "
                                     "stored")
        return
    if (stored.base_url.rstrip("/"), stored.model) != (base_url.strip().rstrip("/"), model):
        raise roles.AccessDenied(f"the address or model differs from the stored connection "
                                 f"{stored.name!r}")
    if calls is None or calls > stored.call_ceiling:
        raise InputError(f"the connection {stored.name!r} allows at most "
                         f"{stored.call_ceiling:,} calls a batch, not "
                         f"{'unlimited' if calls is None else f'{calls:,}'}",
                         source="connection")


PRESETS = ("elasticsearch", "opensearch", "solr")


def preset_options(preset: str, *, text_field: str = "text", id_field: str = "") -> dict:
    """Options for a known search service: Elasticsearch/OpenSearch ``_search`` (a ``match``
    query on ``text_field``; the id from ``_id``, or from the source field ``id_field``; the
    score from ``_score``) or Solr ``select`` (edismax over ``text_field``; ``response.docs``,
    the id from ``id_field`` or ``id``, ``score``). The connection's URL is the endpoint
    (``.../INDEX/_search`` or ``.../solr/CORE/select``)."""
    if preset in ("elasticsearch", "opensearch"):
        body: dict[str, Any] = {"size": "{{k}}", "query": {"match": {text_field: "{{query}}"}}}
        if id_field:
            body["_source"] = [id_field]
        return {"method": "POST", "body": body, "hits_path": "hits.hits",
                "id_path": f"_source.{id_field}" if id_field else "_id", "score_path": "_score"}
    if preset == "solr":
        doc_id = id_field or "id"
        return {"method": "GET", "hits_path": "response.docs", "id_path": doc_id,
                "score_path": "score",
                "query": {"q": "{{query}}", "rows": "{{k}}", "fl": f"{doc_id},score",
                          "wt": "json", "defType": "edismax", "qf": text_field}}
    raise InputError(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)})",
                     source="connection")


def get_retriever(db: sqlite_utils.Database, name: str) -> Connection:
    """The retriever connection (HTTP JSON or Python) called ``name``."""
    for kind in RETRIEVERS:
        row = db.conn.execute(f"SELECT {_COLUMNS} FROM connections WHERE kind = ? AND name = ?",
                              [kind, name]).fetchone()
        if row is not None:
            return _connection(row)
    known = ", ".join(c.name for kind in RETRIEVERS for c in list_connections(db, kind))
    known = known or "none yet; an admin adds one"
    raise InputError(f"no retriever connection {name!r} (known: {known})", source="connection")


def connection_from_file(data: Any, source: str) -> Connection:
    """A retriever connection described in a JSON file (for CI; never stored): an object with
    ``kind``, ``name``, ``base_url``, optional ``call_ceiling`` and ``options`` (or ``preset``
    with ``text_field``/``id_field``)."""
    if not isinstance(data, dict) or data.get("kind") not in RETRIEVERS:
        raise InputError(f"the connection file is an object whose kind is one of "
                         f"{', '.join(RETRIEVERS)}", source=source)
    options = data.get("options") or {}
    if data.get("preset"):
        options = {**preset_options(str(data["preset"]), text_field=data.get("text_field", "text"),
                                    id_field=data.get("id_field", "")), **options}
    name, base_url, _, key_env, ceiling = _check(data["kind"], str(data.get("name", "file")),
                                                 str(data.get("base_url", "")), "",
                                                 str(data.get("key_env", "")),
                                                 data.get("call_ceiling", MAX_CEILING))
    checked = _checked_options(data["kind"], options)
    return Connection(0, data["kind"], name, base_url, "", key_env, ceiling, checked)


def _checked_options(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    if kind == HTTP_JSON:
        return check_retriever_options(options)
    if kind == POSTGRES:
        return check_postgres_options(options)
    return {}
