"""Roles and the role check every write of the workspace goes through.

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
- ``labeling.workspace.store.write_transaction(db, action=...)`` calls ``check_current`` inside
  its ``BEGIN IMMEDIATE``, so every write that goes through it is checked against the account's
  role as stored now: a removed account or a changed role takes effect on the next write. The
  default action is ``"edit"``, admin only, so a write that forgets to declare itself fails
  closed. This module reads the connection only, so the store can import it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

import sqlite_utils

from labeling.errors import ScorecardError

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
    "refit_quality": ("learning the quality weights from the team's decisions", _TEAM),
    "synthetic_settings": ("changing the synthetic question settings", _ADMIN),
    "machine_judge": ("running a machine judge", _TEAM),
    "audit": ("drawing an audit sample of machine labels", _TEAM),
    "import": ("importing", _ADMIN),
    "transfer_labels": ("transferring labels to another chunk set", _ADMIN),
    "edit_runs": ("editing a run's fields", _ADMIN),
    "add_query": ("adding a query", _ADMIN),
    "edit_queries": ("editing queries", _ADMIN),
    "assign_split": ("assigning the dev/test split", _ADMIN),
    "set_overlap": ("changing the overlap share", _ADMIN),
    "set_relevance": ("changing the workspace's default relevance threshold", _ADMIN),
    "set_score_defaults": ("changing the dashboard's default measures", _ADMIN),
    "set_guideline": ("writing the judging guideline", _ADMIN),
    "baseline": ("adding a baseline run", _ADMIN),
    "lock": ("locking the test split", _ADMIN),
    "unlock": ("unlocking the test split", _ADMIN),
    "manage": ("managing accounts", _ADMIN),
    "live_run": ("running a retriever through a connection", _TEAM),
    "manage_connections": ("changing the connections to outside servers", _ADMIN),
    "edit": ("changing the workspace", _ADMIN),
}
# action -> roles allowed to do it. Actions not listed here are admin only.
PERMISSIONS: dict[str, frozenset[str]] = {action: roles for action, (_, roles) in ACTIONS.items()}
DEFAULT_ACTION = "edit"
ANONYMOUS = ""
_UNSET: str | None = object()  # type: ignore[assignment]  # a sentinel no caller can pass
_ACTOR: contextvars.ContextVar[str | None] = contextvars.ContextVar("scorecard_actor")
_resolver: Callable[[sqlite_utils.Database], str | None] | None = None


class AccessDenied(ScorecardError):
    """The current actor's role does not allow the action (or nobody is signed in)."""


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
