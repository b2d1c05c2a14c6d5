"""Accounts: adding, removing, re-roling and re-passwording them, and checking a password.

Passwords are argon2id hashes (argon2-cffi defaults, salted, PHC strings) of at least
``MIN_PASSWORD_LENGTH`` characters. A password or role change ends every session of the account
(``labeling.workspace.sessions``).
"""

from __future__ import annotations

import contextlib
import functools
import re
import time

import sqlite_utils
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from labeling.errors import InputError, ScorecardError
from labeling.workspace import store
from labeling.workspace.roles import ROLES, acting_as
from labeling.workspace.sessions import _revoke_sessions

MIN_PASSWORD_LENGTH = 8
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")

_HASHER = PasswordHasher()


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
    """Delete account ``name`` (and so its sessions). Refused for the last admin while other
    accounts remain (nobody could import or manage accounts in the app); removing the last
    account turns sign-in off."""
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
    """Change the role of account ``name`` (the last admin cannot be demoted); a change ends
    every session of the account."""
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
        if row[0] == role:
            return
        conn.execute(
            "UPDATE users SET role = ?, updated_at = ? WHERE name = ?",
            [role, store.utc_now(), name],
        )
        _revoke_sessions(conn, name, time.time())  # the new role starts with a new sign-in


def set_password(db: sqlite_utils.Database, name: str, password: str) -> None:
    """Replace the password of account ``name`` and end every session of the account."""
    digest = hash_password(password)
    with store.write_transaction(db, action="manage") as conn:
        _store_hash(conn, name, digest)
        _revoke_sessions(conn, name, time.time())


def _store_hash(conn, name: str, digest: str) -> None:
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
        # The same password in a stronger hash: not a password change, sessions stay.
        with contextlib.suppress(ScorecardError), acting_as(None), store.write_transaction(
            db, action="manage"
        ) as conn:
            _store_hash(conn, name.strip(), _HASHER.hash(password))
    return str(row[1])
