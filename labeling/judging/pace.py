"""Judging pace: how fast each person judges, measured from their judgments' timestamps.

Conventions
- Only judgments a person made in the app count: origin ``person`` with no ``origin_source``
  (a file of a person's judgments is stamped when it was imported; machines are not paced).
- An annotator's judgments, in time order, form sessions: a gap longer than ``BREAK_SECONDS``
  starts a new one. A card's time is the gap from the previous judgment in the same session, so
  the first judgment of a session has none.
- ``seconds_per_card`` is the median card time (seconds); ``per_hour`` is the judgments of the
  latest session divided by its length in hours (None when it has fewer than two judgments).
- With no measured card, estimates use ``DEFAULT_SECONDS_PER_CARD``: 30 s, a conservative
  figure for reading a query and a passage of a few hundred words and choosing a grade.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import sqlite_utils

BREAK_SECONDS = 600.0
DEFAULT_SECONDS_PER_CARD = 30.0


@dataclass(frozen=True)
class Pace:
    annotator: str
    judgments: int
    cards_timed: int
    seconds_per_card: float | None
    latest_session_judgments: int
    per_hour: float | None


def person_judgment_times(db: sqlite_utils.Database) -> pd.DataFrame:
    """Columns annotator and at (UTC timestamps) of every judgment made in the app by a person,
    oldest first."""
    frame = pd.DataFrame(
        db.conn.execute(
            "SELECT annotator, created_at FROM judgments"
            " WHERE origin = 'person' AND origin_source IS NULL ORDER BY id"
        ).fetchall(),
        columns=["annotator", "created_at"],
    )
    frame["at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    return frame[["annotator", "at"]].sort_values(["annotator", "at"], kind="stable")


def card_seconds(times: pd.Series) -> np.ndarray:
    """Seconds each card took, from judgment times sorted ascending: the gaps within sessions."""
    gaps = times.diff().dt.total_seconds().to_numpy()[1:]
    return gaps[gaps <= BREAK_SECONDS]


def pace_of(annotator: str, times: pd.Series) -> Pace:
    """The pace of one annotator from their judgment times (sorted ascending)."""
    cards = card_seconds(times)
    gaps = times.diff().dt.total_seconds().to_numpy()[1:]
    breaks = np.flatnonzero(gaps > BREAK_SECONDS)
    latest = times.iloc[int(breaks[-1]) + 1 if len(breaks) else 0:]
    hours = (latest.iloc[-1] - latest.iloc[0]).total_seconds() / 3600 if len(latest) else 0.0
    return Pace(
        annotator=annotator,
        judgments=len(times),
        cards_timed=len(cards),
        seconds_per_card=float(np.median(cards)) if len(cards) else None,
        latest_session_judgments=len(latest),
        per_hour=len(latest) / hours if len(latest) >= 2 and hours > 0 else None,
    )


def judging_pace(db: sqlite_utils.Database) -> list[Pace]:
    """Every person's pace, by annotator name."""
    times = person_judgment_times(db)
    return [pace_of(name, group["at"]) for name, group in times.groupby("annotator", sort=True)]


def team_seconds_per_card(db: sqlite_utils.Database) -> float:
    """The median time of every timed card of every person; ``DEFAULT_SECONDS_PER_CARD`` when
    nobody has a timed card yet."""
    times = person_judgment_times(db)
    cards = [card_seconds(group["at"]) for _, group in times.groupby("annotator")]
    cards = np.concatenate(cards) if cards else np.empty(0)
    return float(np.median(cards)) if len(cards) else DEFAULT_SECONDS_PER_CARD


def hours_for(cards: int, seconds_per_card: float) -> float:
    """Hours that ``cards`` judgments take at ``seconds_per_card``."""
    return cards * seconds_per_card / 3600
