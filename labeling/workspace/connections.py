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
- The HTTP side (origin rules, no redirects, bounded replies) is ``labeling.model_calls``; this
  module only stores and checks.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

import sqlite_utils

from labeling.errors import InputError
from labeling.workspace import roles
from labeling.workspace.store import utc_now, write_transaction

MODEL_SERVER = "model_server"
KINDS = {MODEL_SERVER: "model server"}
MAX_CEILING = 100_000
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,99}")
_COLUMNS = "id, kind, name, base_url, model, key_env, call_ceiling"


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

    def describe(self) -> str:
        """What an admin reads about it (never the key)."""
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
    if isinstance(call_ceiling, bool) or not 1 <= int(call_ceiling) <= MAX_CEILING:
        raise InputError(f"the call ceiling is between 1 and {MAX_CEILING:,}",
                         source="connection")
    return name, base_url, model, key_env, int(call_ceiling)


def save_connection(db: sqlite_utils.Database, kind: str, name: str, base_url: str, model: str,
                    key_env: str, call_ceiling: int, *, who: str | None = None) -> Connection:
    """Store a connection, or change the one of that kind and name (admins only)."""
    name, base_url, model, key_env, call_ceiling = _check(kind, name, base_url, model, key_env,
                                                          call_ceiling)
    with write_transaction(db, action="manage_connections") as conn:
        conn.execute(
            "INSERT INTO connections (kind, name, base_url, model, key_env, call_ceiling,"
            " changed_by, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (kind, name) DO UPDATE SET base_url = excluded.base_url,"
            " model = excluded.model, key_env = excluded.key_env,"
            " call_ceiling = excluded.call_ceiling, changed_by = excluded.changed_by,"
            " changed_at = excluded.changed_at",
            [kind, name, base_url, model, key_env, call_ceiling, who, utc_now()])
    return get_connection(db, kind, name)


def remove_connection(db: sqlite_utils.Database, kind: str, name: str) -> None:
    """Forget a connection (admins only); batches started with it keep their labels."""
    get_connection(db, kind, name)
    with write_transaction(db, action="manage_connections") as conn:
        conn.execute("DELETE FROM connections WHERE kind = ? AND name = ?", [kind, name])


def list_connections(db: sqlite_utils.Database, kind: str = MODEL_SERVER) -> list[Connection]:
    """The connections of ``kind``, by name."""
    return [Connection(*row) for row in db.conn.execute(
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
    return Connection(*row)


def connection_by_id(db: sqlite_utils.Database, connection_id: int) -> Connection | None:
    """The connection with this id, or None (removed since)."""
    row = db.conn.execute(f"SELECT {_COLUMNS} FROM connections WHERE id = ?",
                          [connection_id]).fetchone()
    return Connection(*row) if row else None


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
