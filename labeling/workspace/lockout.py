"""Signing in with a password, with attempts counted and paused in the workspace.

Attempts are counted per account name and per client address *before* the password is checked
(``sign_in``), so neither a reload, a new browser session nor parallel attempts get more
guesses: from the ``ACCOUNT_LIMIT``-th attempt in a row on a name (``ADDRESS_LIMIT``-th from an
address) each further one waits a pause that doubles up to ``MAX_PAUSE_SECONDS``. A right
password forgets the name's count; a scope with no attempt for ``FORGET_SECONDS`` starts again
at zero. Times are Unix seconds; functions that read the clock take ``now=`` for tests.
"""

from __future__ import annotations

import ipaddress
import math
import time

import sqlite_utils

from labeling.errors import ScorecardError
from labeling.workspace import file_identity, store
from labeling.workspace.accounts import authenticate
from labeling.workspace.roles import acting_as
from labeling.workspace.sessions import LOCAL_ADDRESS

ACCOUNT_LIMIT = 5  # attempts in a row on one name before pauses start
ADDRESS_LIMIT = 20  # from one address: higher, since people behind one proxy or NAT share it
FIRST_PAUSE_SECONDS = 60.0
MAX_PAUSE_SECONDS = 15 * 60.0
FORGET_SECONDS = 60 * 60.0


class SignInRefused(ScorecardError):
    """A sign-in failed: a wrong name or password, or attempts are paused (the message says)."""


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
    # A deleted or replaced file (its -wal removed under the running app) says so before
    # SQLite reads through a wal-index that no longer matches the files.
    file_identity.check_unchanged(db)
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
