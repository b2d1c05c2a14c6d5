"""Workspace timestamps as people read them: "just now", "12 minutes ago", "today 14:02",
"yesterday 09:15", "3 days ago", "2026-05-09"; and the exact time for a tooltip.

Workspace timestamps are ISO-8601 strings in UTC (``store.utc_now``); one without a zone is read
as UTC. ``zone`` is an IANA time zone name (the browser's, when the page knows it; UTC when None
or unknown): "today" and the clock time are in that zone. Text that is not a timestamp is
returned as it is, None as ''.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

RECENT_DAYS = 7  # up to this many days back: "N days ago"; older: the date


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
