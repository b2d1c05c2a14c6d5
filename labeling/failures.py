"""One sentence for a failure the user did not cause by bad input (busy file, full disk, bug).

The library raises ``ScorecardError`` for what a user can fix; anything else reaching the app
or the command line is described here instead of shown raw. Every write of the workspace is
one transaction, so a failed action saved nothing: the sentences say so.
"""

from __future__ import annotations

import sqlite3
import uuid

from labeling.errors import ScorecardError

BUSY_WORDS = ("database is locked", "database is busy")
FULL_WORDS = ("database or disk is full", "no space left")


def describe_failure(error: BaseException) -> tuple[str, str | None]:
    """(sentence for the user, reference to log with the traceback or None when none is needed).

    A ``ScorecardError`` is its own sentence. Other errors get a plain sentence and, for ones
    that are not a known condition, a short reference that the caller logs beside the
    traceback so the user's report can be matched to it.
    """
    if isinstance(error, ScorecardError):
        return str(error), None
    text = str(error).lower()
    if isinstance(error, sqlite3.OperationalError) and any(w in text for w in BUSY_WORDS):
        return ("The workspace stayed busy with another write for too long; nothing was saved. "
                "Try again in a moment.", None)
    if any(w in text for w in FULL_WORDS):
        return ("The disk holding the workspace is full; nothing was saved. Free some "
                "space and try again.", None)
    if isinstance(error, sqlite3.DatabaseError) and "readonly" in text.replace(" ", ""):
        return ("The workspace file cannot be written (read-only); nothing was saved.",
                None)
    reference = uuid.uuid4().hex[:8]
    return (f"Something went wrong; nothing was saved. The server log has the details "
            f"under reference {reference}.", reference)
