"""Errors the library raises for bad input, carrying the file and line they come from."""

from __future__ import annotations


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


class MeasureError(ScorecardError):
    """A measure name that cannot be parsed or a parameter that does not apply."""
