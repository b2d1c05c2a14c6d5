"""Accounts, roles, sign-in with lockout, sessions, and the role check every write goes through.

Conventions
- Sign-in is *off* while the ``users`` table is empty: everyone may do everything. Adding the
  first account turns it on for the app. A workspace without accounts is only for one person on
  one machine: the app refuses to serve it on a non-loopback address (``pages/_auth.py``).
- Roles: ``admin`` may do everything (import, lock the test split, edit queries, manage
  accounts); ``annotator`` may judge, queue pairs, tag failures, save scores and review synthetic
  questions; ``viewer`` may write nothing. ``ACTIONS`` lists every action with its phrase (what a
  refusal names: "vic is a viewer: saving scores to the history needs ...") and its roles.
- The *actor* is who a write is done for. ``None`` is the file owner (the command line, scripts,
  tests): trusted, never checked. A name is an account; ``""`` is a browser session that has not
  signed in. The actor comes from ``acting_as(...)`` (a context variable) or, when none is set,
  from the resolver the app installs (``set_actor_resolver``), which maps the current Streamlit
  session to the account of its session row *as stored now* (a revoked session is ``""``).
- ``labeling.store.write_transaction(db, action=...)`` calls ``require_role`` inside its
  ``BEGIN IMMEDIATE``, so every write that goes through it is checked against the account's
  role as stored now: a removed account or a changed role takes effect on the next write. The
  default action is ``"edit"``, admin only, so a write that forgets to declare itself fails
  closed.
- Passwords: argon2id (argon2-cffi defaults, salted, PHC strings); at least 8 characters.
- Sign-in attempts are counted in the workspace per account name and per client address
  *before* the password is checked (``sign_in``), so neither a reload, a new browser session nor
  parallel attempts get more guesses: from the ``ACCOUNT_LIMIT``-th attempt in a row on a name
  (``ADDRESS_LIMIT``-th from an address) each further one waits a pause that doubles up to
  ``MAX_PAUSE_SECONDS``. A right password forgets the name's count; a scope with no attempt for
  ``FORGET_SECONDS`` starts again at zero.
- Sessions: ``start_session`` stores a session row and hands out a one-time *ticket* (valid
  ``TICKET_SECONDS``); the browser trades it (``redeem_ticket``) for the session *token*, kept in
  a cookie. A token is ``v1.<session id>.<expiry>.<nonce>.<signature>``, signed with HMAC-SHA256
  by the workspace's ``signing_key``; the workspace stores only its SHA-256. A token is good while
  its signature verifies, it has not expired (``SESSION_SECONDS``) and its row is not revoked.
  A sign-out, a password change or a role change revokes every session of the account.
  Times are Unix seconds; functions that read the clock take ``now=`` for tests.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import functools
import hashlib
import hmac
import ipaddress
import math
import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import sqlite_utils
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from labeling import store
from labeling.errors import InputError, ScorecardError
from labeling.markdown import escape_markdown

ROLES = ("admin", "annotator", "viewer")
_TEAM = frozenset({"admin", "annotator"})
_ADMIN = frozenset({"admin"})
# action -> (what doing it is called in a refusal, the roles allowed to do it).
ACTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "judge": ("saving a judgment", _TEAM),
    "skip": ("skipping a pair", _TEAM),
    "undo": ("undoing a judgment", _TEAM),
    "enqueue": ("adding pairs to the labeling queue", _TEAM),
    "rejudge": ("sending pairs back to the labeling queue", _TEAM),
    "add_tag": ("adding a failure tag", _TEAM),
    "tag_failure": ("tagging why a query failed", _TEAM),
    "save_scores": ("saving scores to the history", _TEAM),
    "add_candidates": ("adding synthetic questions", _TEAM),
    "accept": ("accepting synthetic questions", _TEAM),
    "reject": ("rejecting synthetic questions", _TEAM),
    "review": ("reviewing synthetic questions", _TEAM),
    "import": ("importing", _ADMIN),
    "add_query": ("adding a query", _ADMIN),
    "edit_queries": ("editing queries", _ADMIN),
    "assign_split": ("assigning the dev/test split", _ADMIN),
    "set_overlap": ("changing the overlap share", _ADMIN),
    "baseline": ("adding a baseline run", _ADMIN),
    "lock": ("locking the test split", _ADMIN),
    "unlock": ("unlocking the test split", _ADMIN),
    "manage": ("managing accounts", _ADMIN),
    "edit": ("changing the workspace", _ADMIN),
}
# action -> roles allowed to do it. Actions not listed here are admin only.
PERMISSIONS: dict[str, frozenset[str]] = {action: roles for action, (_, roles) in ACTIONS.items()}
DEFAULT_ACTION = "edit"
ANONYMOUS = ""
MIN_PASSWORD_LENGTH = 8
USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")

ACCOUNT_LIMIT = 5  # attempts in a row on one name before pauses start
ADDRESS_LIMIT = 20  # from one address: higher, since people behind one proxy or NAT share it
FIRST_PAUSE_SECONDS = 60.0
MAX_PAUSE_SECONDS = 15 * 60.0
FORGET_SECONDS = 60 * 60.0
LOCAL_ADDRESS = "local"  # the client address of a loopback connection (Streamlit gives none)
SESSION_SECONDS = 7 * 24 * 3600
TICKET_SECONDS = 60
_TOKEN_VERSION = "v1"

_HASHER = PasswordHasher()
_UNSET: str | None = object()  # type: ignore[assignment]  # a sentinel no caller can pass
_ACTOR: contextvars.ContextVar[str | None] = contextvars.ContextVar("scorecard_actor")
_resolver: Callable[[sqlite_utils.Database], str | None] | None = None


class AccessDenied(ScorecardError):
    """The current actor's role does not allow the action (or nobody is signed in)."""


class SignInRefused(ScorecardError):
    """A sign-in failed: a wrong name or password, or attempts are paused (the message says)."""


# ---------------------------------------------------------------------------------------------
# The actor


def set_actor_resolver(resolver: Callable[[sqlite_utils.Database], str | None] | None) -> None:
    """Install the function giving the actor when no ``acting_as`` is active: called with the
    workspace being written, it returns the app session's account (``None`` from it means "not
    in a browser session": the trusted owner)."""
    global _resolver
    _resolver = resolver


def current_actor(db: sqlite_utils.Database) -> str | None:
    """The actor of the writes done now to ``db``: ``acting_as`` first, else the resolver, else
    ``None``."""
    actor = _ACTOR.get(_UNSET)
    if actor is not _UNSET:
        return actor
    return _resolver(db) if _resolver is not None else None


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
    return refusal(db, actor, action) is None


def refusal(db: sqlite_utils.Database, actor: str | None, action: str) -> str | None:
    """The sentence ``require_role`` would refuse ``action`` with, or None when it is allowed."""
    try:
        require_role(db, actor, action)
    except AccessDenied as denied:
        return str(denied)
    return None


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
    doing = action_phrase(action)
    if role is None:
        who = "nobody is signed in" if not actor else f"there is no account {actor!r}"
        raise AccessDenied(f"{who}: {doing} needs an account with the role {roles}")
    article = "an" if role[0] in "aeiou" else "a"
    raise AccessDenied(f"{actor} is {article} {role}: {doing} needs the role {roles}")


def check_current(db: sqlite_utils.Database, action: str = DEFAULT_ACTION) -> None:
    """``require_role`` for the current actor (called by ``store.write_transaction``)."""
    require_role(db, current_actor(db), action)


def action_phrase(action: str) -> str:
    """What doing ``action`` is called in a sentence ("saving scores to the history")."""
    phrase = ACTIONS.get(action)
    return phrase[0] if phrase else action.replace("_", " ")


def refusal_help(db: sqlite_utils.Database, actor: str | None, action: str) -> str | None:
    """``refusal`` as Markdown-safe text for a widget's tooltip (None when allowed)."""
    sentence = refusal(db, actor, action)
    return None if sentence is None else escape_markdown(sentence + ".")


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


def is_loopback(address: str | None) -> bool:
    """Whether a server bound to ``address`` is reachable only from this machine.

    Empty or None (Streamlit's default), ``0.0.0.0`` and ``::`` mean every interface; a host
    name other than ``localhost`` may resolve to anything, so it counts as the network.
    """
    text = (address or "").strip()
    if text.lower() == "localhost" or text.startswith("unix://"):
        return True
    try:
        ip = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is IPv4 loopback
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


# ---------------------------------------------------------------------------------------------
# Sign-in with lockout


def pause_after(attempts: int, limit: int) -> float:
    """Seconds a scope waits after its ``attempts``-th attempt in a row: none below ``limit``,
    then ``FIRST_PAUSE_SECONDS`` doubling with each further attempt, at most
    ``MAX_PAUSE_SECONDS``."""
    if attempts < limit:
        return 0.0
    return min(FIRST_PAUSE_SECONDS * 2.0 ** min(attempts - limit, 32), MAX_PAUSE_SECONDS)


def sign_in(
    db: sqlite_utils.Database, name: str, password: str, address: str | None,
    *, now: float | None = None,
) -> str:
    """The role of account ``name`` when ``password`` is right and sign-in is not paused for
    the name or for the client ``address`` (``None``: a loopback client); ``SignInRefused``
    with the reason otherwise.

    The attempt is counted before the password is checked, so attempts made at the same time
    in other sessions cannot slip past the count; a right password takes it back.
    """
    name = (name or "").strip()
    address = address or LOCAL_ADDRESS
    now = time.time() if now is None else now
    paused = _count_attempt(db, name, address, now)
    if paused:
        scope, seconds = paused
        where = "for this name" if scope == "account" else "from this address"
        raise SignInRefused(
            f"Too many failed sign-ins {where}: try again in {math.ceil(seconds)} s."
        )
    role = authenticate(db, name, password)
    if role is None:
        raise SignInRefused("Wrong name or password.")
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        conn.execute("DELETE FROM sign_in_failures WHERE scope = 'account' AND key = ?", [name])
        conn.execute(
            "UPDATE sign_in_failures SET failures = max(failures - 1, 0),"
            " paused_until = CASE WHEN failures - 1 < ? THEN 0 ELSE paused_until END"
            " WHERE scope = 'address' AND key = ?",
            [ADDRESS_LIMIT, address],
        )
    return role


def _count_attempt(
    db: sqlite_utils.Database, name: str, address: str, now: float
) -> tuple[str, float] | None:
    """Count one attempt on ``name`` from ``address``, or return ``(scope, seconds left)``
    without counting when either scope is paused."""
    scopes = (("account", name, ACCOUNT_LIMIT), ("address", address, ADDRESS_LIMIT))
    # The app's own bookkeeping, done for nobody in particular: no role applies.
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        rows = {}
        for scope, key, _ in scopes:
            rows[scope] = conn.execute(
                "SELECT failures, last_attempt_at, paused_until FROM sign_in_failures"
                " WHERE scope = ? AND key = ?",
                [scope, key],
            ).fetchone()
            if rows[scope] and rows[scope][2] > now:
                return scope, rows[scope][2] - now
        for scope, key, limit in scopes:
            row = rows[scope]
            fresh = row is None or now - row[1] >= FORGET_SECONDS
            attempts = 1 if fresh else row[0] + 1
            conn.execute(
                "INSERT INTO sign_in_failures (scope, key, failures, last_attempt_at,"
                " paused_until) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET"
                " failures = excluded.failures, last_attempt_at = excluded.last_attempt_at,"
                " paused_until = excluded.paused_until",
                [scope, key, attempts, now, now + pause_after(attempts, limit)],
            )
        conn.execute(  # names nobody tried for a while: the table stays small
            "DELETE FROM sign_in_failures WHERE last_attempt_at < ? AND paused_until <= ?",
            [now - FORGET_SECONDS, now],
        )
    return None


def sign_in_pause(
    db: sqlite_utils.Database, name: str, address: str | None, *, now: float | None = None
) -> float:
    """Seconds until ``name`` may try to sign in from ``address`` again (0.0: now)."""
    now = time.time() if now is None else now
    until = db.conn.execute(
        "SELECT max(paused_until) FROM sign_in_failures"
        " WHERE (scope = 'account' AND key = ?) OR (scope = 'address' AND key = ?)",
        [(name or "").strip(), address or LOCAL_ADDRESS],
    ).fetchone()[0]
    return max(0.0, (until or 0.0) - now)


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
    with acting_as(None), store.write_transaction(db, action="manage") as conn:
        row = conn.execute(
            "SELECT id, expires_at FROM sessions WHERE ticket_hash = ? AND ticket_expires_at > ?"
            " AND revoked_at IS NULL AND expires_at > ?",
            [_digest(ticket or ""), now, now],
        ).fetchone()
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
