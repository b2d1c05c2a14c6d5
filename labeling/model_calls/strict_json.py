"""JSON from a model server, read strictly: a nesting-depth limit checked before parsing (so a
reply nested 50,000 deep is one sentence, never a ``RecursionError``) and duplicate keys refused
(``{"grade": 0, "grade": 3}`` has no single meaning; the standard parser keeps the last)."""

from __future__ import annotations

import json
import re

MAX_DEPTH = 32  # the deepest reply the protocol needs is 4 levels (choices, message, ...)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


class JsonRejected(ValueError):
    """The text is not JSON this project accepts; the message is one sentence."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped), without
    parsing it."""
    level = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise JsonRejected(f"the key {key!r} appears twice")
        seen[key] = value
    return seen


def loads(text: str, *, what: str = "the reply", max_depth: int = MAX_DEPTH) -> object:
    """``text`` parsed, or ``JsonRejected`` naming ``what`` and the problem."""
    nested = depth(text)
    if nested > max_depth:
        raise JsonRejected(f"{what} is nested {nested} levels deep (at most {max_depth})")
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except JsonRejected as error:
        raise JsonRejected(f"{what} is ambiguous: {error}") from None
    except (ValueError, RecursionError) as error:
        raise JsonRejected(f"{what} is not JSON: {text[:80]!r}") from error
