"""Errors the library raises for bad input, carrying the file and line they come from."""

from __future__ import annotations

import sqlite3
import uuid


class ScorecardError(Exception):
    """Base class for every error meant to be shown to a user as one line."""


class InputError(ScorecardError):
    """Bad input: names the file (or source), the 1-based line when known, and the problem."""

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None):
        self.problem = problem
        self.source = source
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source or "input"
        if self.line is not None:
            where = f"{where}, line {self.line}"
        return f"{where}: {self.problem}"

    def __reduce__(self):  # travels between processes (cluster workers) with its parts
        return (_input_error, (self.problem, self.source, self.line))


def _input_error(problem: str, source: str | None, line: int | None) -> InputError:
    return InputError(problem, source=source, line=line)


class MeasureError(ScorecardError):
    """A measure name that cannot be parsed or a parameter that does not apply."""


# SQLite result codes (the primary code, the low byte of ``sqlite_errorcode``) that the user can
# act on, and what to tell them.
_SQLITE_PROBLEMS = {
    13: "the disk is full (or the workspace reached its size limit)",  # SQLITE_FULL
    8: "the workspace is read-only (file permissions or a read-only file system)",  # READONLY
    10: "the disk reported an input/output error",  # SQLITE_IOERR
    11: "the workspace file is damaged (database disk image is malformed)",  # SQLITE_CORRUPT
    26: "the workspace file is not an SQLite database",  # SQLITE_NOTADB
    5: "the workspace is busy: another process held its write lock too long",  # SQLITE_BUSY
}


def sqlite_code(error: BaseException) -> int | None:
    """The primary SQLite result code of an error (the low byte of ``sqlite_errorcode``), or
    None for an error that does not come from SQLite."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(error, sqlite3.Error) and code is not None else None


def known_storage_problem(error: BaseException) -> str | None:
    """What the user can do about an SQLite failure, as a phrase, or None for other errors."""
    return _SQLITE_PROBLEMS.get(sqlite_code(error))


def storage_problem(error: sqlite3.Error) -> str:
    """An SQLite failure as a phrase a user can act on (the raw message when none fits)."""
    return known_storage_problem(error) or str(error) or type(error).__name__


def describe_failure(error: BaseException) -> tuple[str, str | None]:
    """A failure as (one sentence for the user, reference or None) for the app and the CLI.

    A ``ScorecardError`` is its own sentence; a known SQLite condition (busy, full, read-only,
    damaged) says so. Anything else is not shown raw: the sentence gives a short reference
    that the caller logs beside the traceback. Every write is one transaction, so a failed
    action saved nothing.
    """
    if isinstance(error, ScorecardError):
        return str(error), None
    problem = known_storage_problem(error)
    if problem is not None:
        return f"Nothing was saved: {problem}.", None
    reference = uuid.uuid4().hex[:8]
    return (f"Something went wrong; nothing was saved. The server log has the details "
            f"under reference {reference}.", reference)
