"""Which ids and run names the workspace accepts: text that a TREC file can hold.

TREC qrels and runs separate their fields by whitespace and have no quoting, so an id (of a
query, chunk or document) or a run name holding whitespace or a control character could be
stored but never exported again. Such text is refused where it enters the workspace.

"Whitespace or control character" means Unicode categories ``Cc`` (controls, tab and line
breaks among them) and ``Z*`` (every space and line/paragraph separator): a superset of what
``str.isspace`` and the TREC writers refuse. Invisible formatting characters (category ``Cf``:
bidi controls such as U+202E, zero-width characters such as U+200B and U+200D, the BOM) are
refused too: they make an id look like another one (``a\u200bb`` shows as ``ab``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from labeling.errors import InputError, ScorecardError

# The same set as ``_is_unexportable``, in RE2 syntax for pyarrow's vectorised match.
_UNEXPORTABLE_RE2 = r"[\p{Cc}\p{Z}\p{Cf}]"
_NAMED = {
    " ": "a space",
    "\t": "a tab",
    "\n": "a line break",
    "\r": "a carriage return",
    "\u00a0": "a non-breaking space",
}
_SHOWN_CHARS = 60  # ids are shown in messages cut to this length


def _is_unexportable(char: str) -> bool:
    category = unicodedata.category(char)
    return category in ("Cc", "Cf") or category.startswith("Z")


def first_unexportable_char(text: str) -> str | None:
    """The first whitespace or control character of ``text``, or None."""
    return next((char for char in text if _is_unexportable(char)), None)


def describe_char(char: str) -> str:
    """``a space``, ``a tab``, ... or ``the control character U+0007`` for a message."""
    if char in _NAMED:
        return _NAMED[char]
    kind = {"Cc": "control", "Cf": "invisible formatting"}.get(unicodedata.category(char),
                                                              "space")
    return f"the {kind} character U+{ord(char):04X}"


def shown(text: str) -> str:
    """``text`` quoted for a message, cut when long."""
    if len(text) > _SHOWN_CHARS:
        return repr(text[:_SHOWN_CHARS]) + "..."
    return repr(text)


def first_unexportable(values: pd.Series | pa.Array | pa.ChunkedArray) -> int | None:
    """Position of the first value holding whitespace or a control character, or None.

    One vectorised pass; missing values never match.
    """
    if isinstance(values, pd.Series):
        values = pa.array(values.astype("str"), type=pa.large_string(), from_pandas=True)
    if len(values) == 0:
        return None
    found = pc.index(pc.match_substring_regex(values, _UNEXPORTABLE_RE2), True).as_py()
    return None if found < 0 else int(found)


def problem(label: str, value: str) -> str | None:
    """The sentence refusing ``value`` as ``label`` (e.g. ``doc_id``), or None if it is fine."""
    char = first_unexportable_char(value)
    if char is None:
        return None
    return (
        f"{label} {shown(value)} contains {describe_char(char)}; ids may not contain "
        "whitespace, control or invisible formatting characters (TREC files could not hold "
        "them, or the id would look like another)"
    )


def check_id_values(
    values: pd.Series | pa.Array | pa.ChunkedArray,
    label: str,
    source: str,
    line_of: Callable[[int], int] | None = None,
) -> None:
    """Raise ``InputError`` naming the line (``line_of(row)``) of the first unexportable id."""
    row = first_unexportable(values)
    if row is None:
        return
    value = values.iloc[row] if isinstance(values, pd.Series) else values[row].as_py()
    raise InputError(
        problem(label, str(value)) or f"{label} is not a valid id",
        source=source,
        line=None if line_of is None else int(line_of(row)),
    )


def run_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a run (it becomes the tag column of TREC exports), or None."""
    if not name:
        return "the run name is empty"
    char = first_unexportable_char(name)
    if char is None:
        return None
    return (
        f"run name {shown(name)} contains {describe_char(char)}; run names may not contain "
        "whitespace, control or invisible formatting characters (the tag of a TREC run file "
        "could not hold it, or the name would look like another)"
    )


def check_run_name(name: str, source: str | None = None) -> str:
    """``name`` when it can name a run; otherwise ``InputError`` (``ScorecardError`` without a
    source) with the reason."""
    reason = run_name_problem(name)
    if reason is None:
        return name
    if source is None:
        raise ScorecardError(reason)
    raise InputError(reason, source=source)
