"""Browser sessions: one-time tickets, signed expiring tokens, and ending them.

``start_session`` stores a session row and hands out a one-time *ticket* (valid
``TICKET_SECONDS``); the browser trades it (``redeem_ticket``) for the session *token*, kept in a
cookie. A token is ``v1.<session id>.<expiry>.<nonce>.<signature>``, signed with HMAC-SHA256 by
the workspace's ``signing_key``; the workspace stores only its SHA-256. A token is good while its
signature verifies, it has not expired (``SESSION_SECONDS``) and its row is not revoked. A
sign-out, a password change or a role change revokes every session of the account. Times are
Unix seconds; functions that read the clock take ``now=`` for tests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import time
from dataclasses import dataclass

import sqlite_utils

from labeling.workspace import store
from labeling.workspace.roles import acting_as

LOCAL_ADDRESS = "local"  # the client address of a loopback connection (Streamlit gives none)
SESSION_SECONDS = 7 * 24 * 3600
TICKET_SECONDS = 60
_TOKEN_VERSION = "v1"


# ---------------------------------------------------------------------------------------------
# Sessions


@dataclass(frozen=True)
class Session:
    """A live session: its row id, its account and when it expires (Unix seconds)."""

    id: int
    account: str
    expires_at: float


def _digest(secret_text: str) -> str:
    return hashlib.sha256(secret_text.encode()).hexdigest()


def _signing_key(db: sqlite_utils.Database) -> bytes:
    return bytes(db.conn.execute("SELECT secret FROM signing_key WHERE id = 1").fetchone()[0])


def _signature(key: bytes, payload: str) -> str:
    mac = hmac.new(key, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def cookie_name(db: sqlite_utils.Database) -> str:
    """The session cookie's name: one per workspace, so two workspaces served from one host
    (cookies do not tell ports apart) never overwrite each other's sessions."""
    return "scorecard_" + _signature(_signing_key(db), "cookie name")[:12].replace("-", "0")


def start_session(
    db: sqlite_utils.Database, account: str, client: str | None, *, now: float | None = None
) -> tuple[Session, str]:
    """Open a session for ``account`` (just signed in from ``client``); returns it and the
    one-time ticket the browser trades for the session's cookie (``redeem_ticket``)."""
    now = time.time() if now is None else now
    ticket = secrets.token_urlsafe(32)
    expires = float(math.floor(now + SESSION_SECONDS))
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        conn.execute(  # ended sessions are of no further use
            "DELETE FROM sessions WHERE expires_at <= ? OR revoked_at IS NOT NULL", [now]
        )
        cursor = conn.execute(
            "INSERT INTO sessions (account, ticket_hash, ticket_expires_at, client, created_at,"
            " expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            [account, _digest(ticket), now + TICKET_SECONDS, client or LOCAL_ADDRESS, now,
             expires],
        )
    return Session(int(cursor.lastrowid), account, expires), ticket


def redeem_ticket(
    db: sqlite_utils.Database, ticket: str, *, now: float | None = None
) -> tuple[str, float] | None:
    """Trade a session's unexpired one-time ``ticket`` for its token: ``(token, expires_at)``,
    or None when the ticket is unknown, used, expired, or its session has ended."""
    now = time.time() if now is None else now
    if _open_ticket(db.conn, ticket, now) is None:
        return None  # anyone may send a ticket: a wrong one never waits for the write lock
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        row = _open_ticket(conn, ticket, now)  # again under the lock: it is single-use
        if row is None:
            return None
        session_id, expires = int(row[0]), int(row[1])
        payload = f"{_TOKEN_VERSION}.{session_id}.{expires}.{secrets.token_urlsafe(24)}"
        token = f"{payload}.{_signature(_signing_key(db), payload)}"
        conn.execute(
            "UPDATE sessions SET token_hash = ?, ticket_hash = NULL, ticket_expires_at = NULL"
            " WHERE id = ?",
            [_digest(token), session_id],
        )
    return token, float(expires)


def _open_ticket(conn, ticket: str, now: float) -> tuple | None:
    """(session id, expires_at) of the unexpired, unused ``ticket`` of a live session."""
    return conn.execute(
        "SELECT id, expires_at FROM sessions WHERE ticket_hash = ? AND ticket_expires_at > ?"
        " AND revoked_at IS NULL AND expires_at > ?",
        [_digest(ticket or ""), now, now],
    ).fetchone()


def ticket_open(db: sqlite_utils.Database, session_id: int, *, now: float | None = None) -> bool:
    """Whether session ``session_id`` still has a ticket to redeem."""
    now = time.time() if now is None else now
    return db.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ? AND ticket_expires_at > ?"
        " AND revoked_at IS NULL)",
        [session_id, now],
    ).fetchone()[0] == 1


def resume_session(
    db: sqlite_utils.Database, token: str | None, *, now: float | None = None
) -> Session | None:
    """The live session a cookie's ``token`` names, or None: a bad signature (tampered, or of
    another workspace), an expired token, or a session that was revoked or is unknown."""
    now = time.time() if now is None else now
    parts = (token or "").split(".")
    if len(parts) != 5 or parts[0] != _TOKEN_VERSION:
        return None
    payload, signature = ".".join(parts[:4]), parts[4]
    if not hmac.compare_digest(signature, _signature(_signing_key(db), payload)):
        return None
    try:
        session_id, expires = int(parts[1]), int(parts[2])
    except ValueError:
        return None
    if expires <= now:
        return None
    row = db.conn.execute(
        "SELECT account, expires_at FROM sessions WHERE id = ? AND token_hash = ?"
        " AND revoked_at IS NULL AND expires_at > ?",
        [session_id, _digest(token), now],
    ).fetchone()
    return Session(session_id, row[0], float(row[1])) if row else None


def session_account(
    db: sqlite_utils.Database, session_id: int | None, *, now: float | None = None
) -> str | None:
    """The account of session ``session_id`` while it is live, else None."""
    if session_id is None:
        return None
    now = time.time() if now is None else now
    row = db.conn.execute(
        "SELECT account FROM sessions WHERE id = ? AND revoked_at IS NULL AND expires_at > ?",
        [session_id, now],
    ).fetchone()
    return row[0] if row else None


def end_sessions(db: sqlite_utils.Database, account: str, *, now: float | None = None) -> int:
    """Revoke every live session of ``account`` (a sign-out ends them all); returns how many."""
    now = time.time() if now is None else now
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        return _revoke_sessions(conn, account, now)


def _revoke_sessions(conn, account: str, now: float) -> int:
    return conn.execute(
        "UPDATE sessions SET revoked_at = ?, ticket_hash = NULL, ticket_expires_at = NULL"
        " WHERE account = ? AND revoked_at IS NULL",
        [now, account],
    ).rowcount
