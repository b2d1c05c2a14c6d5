"""Accounts, roles and the role check every write of the workspace goes through.

Conventions
- Sign-in is *off* while the ``users`` table is empty: everyone may do everything (one local
  user). Adding the first account turns it on for the app.
- Roles: ``admin`` may do everything (import, lock the test split, edit queries, manage
  accounts); ``annotator`` may ``judge`` and ``review`` (synthetic questions); ``viewer`` may
  write nothing.
- The *actor* is who a write is done for. ``None`` is the file owner (the command line, scripts,
  tests): trusted, never checked. A name is an account; ``""`` is a browser session that has not
  signed in. The actor comes from ``acting_as(...)`` (a context variable) or, when none is set,
  from the resolver the app installs (``set_actor_resolver``), which maps the current Streamlit
  session to its signed-in user.
- ``labeling.store.write_transaction(db, action=...)`` calls ``require_role`` inside its
  ``BEGIN IMMEDIATE``, so every write that goes through it (or through ``add_judgment``, which
  declares ``action="judge"``) is checked against the account's role *as stored now*: a removed
  account or a changed role takes effect on the next write. The default action is ``"edit"``,
  admin only, so a write that forgets to declare itself fails closed.
- Passwords: argon2id (argon2-cffi defaults, salted, PHC strings); at least 8 characters.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterator

import sqlite_utils
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from labeling import store
from labeling.errors import InputError, ScorecardError

ROLES = ("admin", "annotator", "viewer")
# action -> roles allowed to do it. Actions not listed here are admin only.
PERMISSIONS: dict[str, frozenset[str]] = {
    "judge": frozenset({"admin", "annotator"}),
    "review": frozenset({"admin", "annotator"}),
    "import": frozenset({"admin"}),
    "lock": frozenset({"admin"}),
    "edit": frozenset({"admin"}),
    "manage": frozenset({"admin"}),
}
DEFAULT_ACTION = "edit"
ANONYMOUS = ""
MIN_PASSWORD_LENGTH = 8
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")

_HASHER = PasswordHasher()
_UNSET: str | None = object()  # type: ignore[assignment]  # a sentinel no caller can pass
_ACTOR: contextvars.ContextVar[str | None] = contextvars.ContextVar("scorecard_actor")
_resolver: Callable[[], str | None] | None = None


class AccessDenied(ScorecardError):
    """The current actor's role does not allow the action (or nobody is signed in)."""


# ---------------------------------------------------------------------------------------------
# The actor


def set_actor_resolver(resolver: Callable[[], str | None] | None) -> None:
    """Install the function giving the actor when no ``acting_as`` is active (the app's session
    user; ``None`` from it means "not in a browser session": the trusted owner)."""
    global _resolver
    _resolver = resolver


def current_actor() -> str | None:
    """The actor of the writes done now: ``acting_as`` first, else the resolver, else ``None``."""
    actor = _ACTOR.get(_UNSET)
    if actor is not _UNSET:
        return actor
    return _resolver() if _resolver is not None else None


@contextlib.contextmanager
def acting_as(actor: str | None) -> Iterator[None]:
    """Do the writes inside the block as ``actor`` (an account name, ``""`` or ``None``)."""
    token = _ACTOR.set(actor)
    try:
        yield
    finally:
        _ACTOR.reset(token)


# ---------------------------------------------------------------------------------------------
# Checks


def accounts_enabled(db: sqlite_utils.Database) -> bool:
    """True when the workspace has at least one account (sign-in is on)."""
    return db.conn.execute("SELECT EXISTS (SELECT 1 FROM users)").fetchone()[0] == 1


def role_of(db: sqlite_utils.Database, name: str | None) -> str | None:
    """The stored role of account ``name`` (None when there is no such account)."""
    if not name:
        return None
    row = db.conn.execute("SELECT role FROM users WHERE name = ?", [name]).fetchone()
    return row[0] if row else None


def allowed(role: str | None, action: str) -> bool:
    """Whether ``role`` may do ``action`` (unknown actions: admin only)."""
    return role in PERMISSIONS.get(action, PERMISSIONS[DEFAULT_ACTION])


def can(db: sqlite_utils.Database, actor: str | None, action: str) -> bool:
    """``require_role`` as a boolean (for enabling or hiding widgets)."""
    try:
        require_role(db, actor, action)
    except AccessDenied:
        return False
    return True


def require_role(db: sqlite_utils.Database, actor: str | None, action: str) -> None:
    """Raise ``AccessDenied`` unless ``actor`` may do ``action`` in this workspace now.

    The owner (``None``) and everyone in a workspace without accounts may do everything.
    """
    if actor is None:
        return
    count, role = db.conn.execute(
        "SELECT (SELECT count(*) FROM users), (SELECT role FROM users WHERE name = ?)", [actor]
    ).fetchone()
    if count == 0 or allowed(role, action):
        return
    roles = " or ".join(sorted(r for r in ROLES if allowed(r, action)))
    if role is None:
        who = "nobody is signed in" if not actor else f"there is no account {actor!r}"
        raise AccessDenied(f"{who}: {_verb(action)} needs an account with the role {roles}")
    article = "an" if role[0] in "aeiou" else "a"
    raise AccessDenied(f"{actor} is {article} {role}: {_verb(action)} needs the role {roles}")


def check_current(db: sqlite_utils.Database, action: str = DEFAULT_ACTION) -> None:
    """``require_role`` for the current actor (called by ``store.write_transaction``)."""
    require_role(db, current_actor(), action)


def _verb(action: str) -> str:
    return {
        "judge": "judging",
        "review": "reviewing synthetic questions",
        "import": "importing",
        "lock": "locking the test split",
        "edit": "changing the workspace",
        "manage": "managing accounts",
    }.get(action, action)


# ---------------------------------------------------------------------------------------------
# Accounts


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not USER_NAME.match(name):
        raise InputError(
            f"account name {name!r} must be 1-64 letters, digits, '.', '_', '@' or '-', "
            "starting with a letter or digit",
            source="accounts",
        )
    return name


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise InputError(f"role must be {', '.join(ROLES)}, not {role!r}", source="accounts")
    return role


def hash_password(password: str) -> str:
    """A salted argon2id hash (PHC string) of ``password``; refuses short passwords."""
    if len(password or "") < MIN_PASSWORD_LENGTH:
        raise InputError(
            f"the password must have at least {MIN_PASSWORD_LENGTH} characters",
            source="accounts",
        )
    return _HASHER.hash(password)


def add_user(db: sqlite_utils.Database, name: str, role: str, password: str) -> None:
    """Create account ``name`` with ``role``; ``InputError`` if it exists or the input is bad."""
    name, role = _check_name(name), _check_role(role)
    digest = hash_password(password)
    with store.write_transaction(db, action="manage") as conn:
        if conn.execute("SELECT 1 FROM users WHERE name = ?", [name]).fetchone():
            raise InputError(f"account {name!r} already exists", source="accounts")
        now = store.utc_now()
        conn.execute(
            "INSERT INTO users (name, role, password_hash, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [name, role, digest, now, now],
        )


def _other_admins(conn, name: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM users WHERE role = 'admin' AND name <> ?", [name]
    ).fetchone()[0]


def _others(conn, name: str) -> int:
    return conn.execute("SELECT count(*) FROM users WHERE name <> ?", [name]).fetchone()[0]


def remove_user(db: sqlite_utils.Database, name: str) -> None:
    """Delete account ``name``. Refused for the last admin while other accounts remain
    (nobody could import or manage accounts in the app); removing the last account turns
    sign-in off."""
    with store.write_transaction(db, action="manage") as conn:
        row = conn.execute("SELECT role FROM users WHERE name = ?", [name]).fetchone()
        if row is None:
            raise InputError(f"no account {name!r}", source="accounts")
        if row[0] == "admin" and _others(conn, name) and not _other_admins(conn, name):
            raise InputError(
                f"{name!r} is the last admin: make another account admin first",
                source="accounts",
            )
        conn.execute("DELETE FROM users WHERE name = ?", [name])


def set_role(db: sqlite_utils.Database, name: str, role: str) -> None:
    """Change the role of account ``name`` (the last admin cannot be demoted)."""
    role = _check_role(role)
    with store.write_transaction(db, action="manage") as conn:
        row = conn.execute("SELECT role FROM users WHERE name = ?", [name]).fetchone()
        if row is None:
            raise InputError(f"no account {name!r}", source="accounts")
        if row[0] == "admin" and role != "admin" and not _other_admins(conn, name):
            raise InputError(
                f"{name!r} is the last admin: make another account admin first",
                source="accounts",
            )
        conn.execute(
            "UPDATE users SET role = ?, updated_at = ? WHERE name = ?",
            [role, store.utc_now(), name],
        )


def set_password(db: sqlite_utils.Database, name: str, password: str) -> None:
    """Replace the password of account ``name``."""
    digest = hash_password(password)
    with store.write_transaction(db, action="manage") as conn:
        cursor = conn.execute(
            "UPDATE users SET password_hash = ?, updated_at = ? WHERE name = ?",
            [digest, store.utc_now(), name],
        )
        if cursor.rowcount == 0:
            raise InputError(f"no account {name!r}", source="accounts")


def list_users(db: sqlite_utils.Database) -> list[dict[str, str]]:
    """Accounts as ``{name, role, created_at, updated_at}`` (never the hash), by name."""
    return [
        dict(zip(("name", "role", "created_at", "updated_at"), row, strict=True))
        for row in db.conn.execute(
            "SELECT name, role, created_at, updated_at FROM users ORDER BY name"
        )
    ]


@functools.cache
def _dummy_hash() -> str:
    return _HASHER.hash("not the password of anybody")


def authenticate(db: sqlite_utils.Database, name: str, password: str) -> str | None:
    """The role of ``name`` when ``password`` is right, else ``None`` (same cost either way)."""
    row = db.conn.execute(
        "SELECT password_hash, role FROM users WHERE name = ?", [(name or "").strip()]
    ).fetchone()
    # An unknown name still costs one verification, so timing does not tell names apart.
    digest = row[0] if row else _dummy_hash()
    try:
        _HASHER.verify(digest, password or "")
    except (VerificationError, InvalidHashError):
        return None
    if row is None:
        return None
    if _HASHER.check_needs_rehash(digest):  # parameters got stronger since it was stored
        with contextlib.suppress(ScorecardError), acting_as(None):
            set_password(db, name.strip(), password)
    return str(row[1])
