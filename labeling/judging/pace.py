"""Judging pace: how fast each person judges, measured from their judgments' timestamps.

Conventions
- Only judgments a person made in the app count: origin ``person`` with no ``origin_source``
  (a file of a person's judgments is stamped when it was imported; machines are not paced).
- An annotator's events, in time order, are their judgments and their skips (``skip_times``):
  a gap longer than ``BREAK_SECONDS`` starts a new session. A card's time is the gap from the
  previous event in the same session, so the first event of a session has none. A skipped
  card's time is not judging time: it is left out of the card times, and a judgment after a
  skip is timed from the skip.
- ``seconds_per_card`` is the median judged card time (seconds); ``per_hour`` is the judgments
  of the latest session divided by its length in hours less the time spent on skipped cards
  (None when it has fewer than two judgments).
- With no measured card, estimates use ``DEFAULT_SECONDS_PER_CARD``: 30 s, a conservative
  figure for reading a query and a passage of a few hundred words and choosing a grade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.workspace import judgments, label_queue

if TYPE_CHECKING:
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
        judgments.person_judgment_times(db),
        columns=["annotator", "created_at"],
    )
    frame["at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    return frame[["annotator", "at"]].sort_values(["annotator", "at"], kind="stable")


def person_events(db: sqlite_utils.Database) -> pd.DataFrame:
    """``person_judgment_times`` with each person's skips (``skip_times``) among them: columns
    annotator, at, skip (bool), sorted by annotator and time (a skip before a judgment made at
    the same instant)."""
    judged = person_judgment_times(db).assign(skip=False)
    skips = pd.DataFrame(
        label_queue.skip_times(db),
        columns=["annotator", "skipped_at"])
    skips = pd.DataFrame({
        "annotator": skips["annotator"],
        "at": pd.to_datetime(skips["skipped_at"], utc=True, format="ISO8601"), "skip": True,
    })
    skips = skips.loc[skips["annotator"].isin(set(judged["annotator"]))]
    events = pd.concat([skips, judged], ignore_index=True) if len(skips) else judged
    return events.sort_values(["annotator", "at"], kind="stable").reset_index(drop=True)


def card_seconds(times: pd.Series, skips: np.ndarray | None = None) -> np.ndarray:
    """Seconds each judged card took, from event times sorted ascending (``skips`` marks the
    skips among them): the gaps within sessions that end on a judgment."""
    gaps = times.diff().dt.total_seconds().to_numpy()[1:]
    judged = np.ones(len(gaps), dtype=bool) if skips is None else ~skips[1:]
    return gaps[(gaps <= BREAK_SECONDS) & judged]


def pace_of(annotator: str, times: pd.Series, skips: np.ndarray | None = None) -> Pace:
    """The pace of one annotator from their event times (sorted ascending; ``skips`` marks the
    skips among them, none when None)."""
    skips = np.zeros(len(times), dtype=bool) if skips is None else np.asarray(skips, bool)
    cards = card_seconds(times, skips)
    gaps = times.diff().dt.total_seconds().to_numpy()[1:]
    breaks = np.flatnonzero(gaps > BREAK_SECONDS)
    first = int(breaks[-1]) + 1 if len(breaks) else 0
    skipped = float(gaps[first:][skips[first + 1:]].sum())  # time on skipped cards
    span = (times.iloc[-1] - times.iloc[first]).total_seconds() if len(times) else 0.0
    hours = (span - skipped) / 3600
    latest = int((~skips[first:]).sum())
    return Pace(
        annotator=annotator,
        judgments=int((~skips).sum()),
        cards_timed=len(cards),
        seconds_per_card=float(np.median(cards)) if len(cards) else None,
        latest_session_judgments=latest,
        per_hour=latest / hours if latest >= 2 and hours > 0 else None,
    )


def judging_pace(db: sqlite_utils.Database) -> list[Pace]:
    """Every person's pace, by annotator name."""
    events = person_events(db)
    return [pace_of(name, group["at"], group["skip"].to_numpy(bool))
            for name, group in events.groupby("annotator", sort=True)]


def team_seconds_per_card(db: sqlite_utils.Database) -> float:
    """The median time of every timed card of every person; ``DEFAULT_SECONDS_PER_CARD`` when
    nobody has a timed card yet."""
    events = person_events(db)
    cards = [card_seconds(group["at"], group["skip"].to_numpy(bool))
             for _, group in events.groupby("annotator")]
    cards = np.concatenate(cards) if cards else np.empty(0)
    return float(np.median(cards)) if len(cards) else DEFAULT_SECONDS_PER_CARD


def hours_for(cards: int, seconds_per_card: float) -> float:
    """Hours that ``cards`` judgments take at ``seconds_per_card``."""
    return cards * seconds_per_card / 3600
