"""Workspace timestamps as people read them: "just now", "12 minutes ago", "today 14:02",
"yesterday 09:15", "3 days ago", "2026-05-09"; and the exact time for a tooltip.

``hover_table`` turns a table into cells for a page to draw, each time cell with its exact time to
show on hover.

Workspace timestamps are ISO-8601 strings in UTC (``store.utc_now``); one without a zone is read
as UTC. ``zone`` is an IANA time zone name (the browser's, when the page knows it; UTC when None
or unknown): "today" and the clock time are in that zone. Text that is not a timestamp is
returned as it is, None as ''.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

RECENT_DAYS = 7  # up to this many days back: "N days ago"; older: the date
DECIMALS = 4  # a fractional number's cell shows at most this many decimals


def _zone(zone: str | None) -> tzinfo:
    try:
        return ZoneInfo(zone) if zone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _parse(stamp: object) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(stamp))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def readable(stamp: object, zone: str | None = None, now: datetime | None = None) -> str:
    """``stamp`` relative to ``now`` (default: the current time) in ``zone``."""
    if stamp is None or stamp == "":
        return ""
    moment = _parse(stamp)
    if moment is None:
        return str(stamp)
    place = _zone(zone)
    here = moment.astimezone(place)
    today = (now or datetime.now(UTC)).astimezone(place)
    seconds = (today - here).total_seconds()
    days = (today.date() - here.date()).days
    if 0 <= seconds < 60:
        return "just now"
    if 0 <= seconds < 3600:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''} ago"
    if days == 0:
        return f"today {here:%H:%M}"
    if days == 1:
        return f"yesterday {here:%H:%M}"
    if 1 < days <= RECENT_DAYS:
        return f"{days} days ago"
    return f"{here:%Y-%m-%d}"


def exact(stamp: object, zone: str | None = None) -> str:
    """The exact time for a tooltip: ISO 8601 in UTC, and in ``zone`` when it is another one
    (``2026-05-09T07:35:12+00:00 (09:35:12 Europe/Berlin)``)."""
    moment = _parse(stamp) if stamp not in (None, "") else None
    if moment is None:
        return "" if stamp is None else str(stamp)
    text = moment.astimezone(UTC).isoformat(timespec="seconds")
    place = _zone(zone)
    if place is not UTC:
        text += f" ({moment.astimezone(place):%Y-%m-%d %H:%M:%S} {zone})"
    return text


def is_time_column(name: object) -> bool:
    """Whether a table column holds workspace timestamps, by the schema's naming (``*_at``)."""
    return str(name).endswith("_at")


def readable_frame(
    frame: pd.DataFrame, zone: str | None = None, now: datetime | None = None
) -> tuple[pd.DataFrame, dict[str, str]]:
    """A copy of ``frame`` to show: each timestamp column (``is_time_column``) as people read it
    (``readable``), and its exact time in a column ``<name> (exact)`` at the end. Returns the
    frame and, per readable column, the sentence for its header tooltip."""
    shown = frame.copy()
    helps = {}
    for column in [c for c in frame.columns if is_time_column(c)]:
        shown[column] = [readable(v, zone, now) for v in frame[column]]
        exact_column = f"{column} (exact)"
        shown[exact_column] = [exact(v) for v in frame[column]]
        helps[column] = (f"As people read it, in your time zone ({zone or 'UTC'}). The exact "
                         f"time, ISO 8601 in UTC, is in the column {exact_column}.")
    return shown, helps


def time_header_help(zone: str | None) -> str:
    """The header tooltip of a time column drawn by ``hover_table``."""
    return (f"As people read it, in your time zone ({zone or 'UTC'}); hover a time for the exact "
            "time, ISO 8601 in UTC.")


def hover_table(
    frame: pd.DataFrame, zone: str | None = None, now: datetime | None = None
) -> dict[str, list]:
    """``frame`` as JSON-ready cells for a table that shows each exact time on hover.

    Returns ``{"columns": [...], "rows": [[cell, ...], ...]}`` in the frame's order (its index
    is not shown). A column is ``{"name", "numeric", "help"}``: ``numeric`` for a number column
    (drawn right-aligned), ``help`` (or None) the header's tooltip. A cell is ``{"text"}``, the
    value as text (``cell_text``); in a time column (``is_time_column``) a cell whose value is a
    timestamp reads as people say it (``readable``, in ``zone``) and adds ``title``, the exact
    time (``exact``), and ``datetime``, the instant in UTC (ISO 8601). Text is data: it is passed
    through as it is, for the page to draw as text, never as markup.
    """
    times = [is_time_column(c) for c in frame.columns]
    columns = [{"name": str(c),
                "numeric": bool(pd.api.types.is_numeric_dtype(frame[c].dtype)
                                and not pd.api.types.is_bool_dtype(frame[c].dtype)),
                "help": time_header_help(zone) if is_time else None}
               for c, is_time in zip(frame.columns, times, strict=True)]
    rows = [[_time_cell(value, zone, now) if is_time else {"text": cell_text(value)}
             for value, is_time in zip(values, times, strict=True)]
            for values in frame.itertuples(index=False, name=None)]
    return {"columns": columns, "rows": rows}


def _time_cell(value: object, zone: str | None, now: datetime | None) -> dict[str, str]:
    moment = None if _missing(value) else _parse(value)
    if moment is None:  # no timestamp: the text as it is, with no exact time to give
        return {"text": cell_text(value)}
    return {"text": readable(value, zone, now), "title": exact(value, zone),
            "datetime": moment.astimezone(UTC).isoformat(timespec="seconds")}


def _missing(value: object) -> bool:
    try:
        return value is None or bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or an array: not one missing value
        return False


def cell_text(value: Any) -> str:
    """A table value as text: '' for None/NaN/NA, a whole float without its ``.0``, other
    floats with at most ``DECIMALS`` decimals (trailing zeros cut), anything else ``str``."""
    if _missing(value):
        return ""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()  # a numpy scalar as its Python value
        except (TypeError, ValueError):
            pass
    if isinstance(value, float) and math.isfinite(value):
        if value.is_integer():
            return str(int(value))
        return f"{value:.{DECIMALS}f}".rstrip("0").rstrip(".")
    return str(value)
