"""Where a judging session stands: one person's pace and how often their grades were corrected
or disputed, and the team's remaining queued work with the hours it takes at the measured pace.

Conventions
- People's judgments are those of origin ``person`` and ``unknown`` (rows stored before origins
  were recorded were typed in the app or imported alike); imports, the generator and machines
  are not people. Pace is ``labeling.judging.pace`` (origin ``person`` only).
- A person's *pairs* are those where their latest judgment is a grade. A pair was *corrected*
  when they gave it more than one distinct grade (their own correction, undo included) or an
  adjudication gave it a grade other than their latest; it was *disputed* when another person's
  latest grade of it differs from theirs.
- The team's remaining work is the votes the queue still needs (``needed - judged`` over its
  open pairs); hours left = those votes at the team's median seconds per card
  (``pace.team_seconds_per_card``, a stated default while nobody has a timed card).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from labeling.judging import pace
from labeling.workspace import judgments, label_queue

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class PersonStanding:
    """One person's standing: their ``pace`` (None before their first judgment), how many pairs
    they graded, and how many of those were ``corrected`` or ``disputed`` (conventions)."""

    annotator: str
    pace: pace.Pace | None
    pairs: int
    corrected: int
    disputed: int

    @property
    def corrected_share(self) -> float | None:
        return self.corrected / self.pairs if self.pairs else None

    @property
    def disputed_share(self) -> float | None:
        return self.disputed / self.pairs if self.pairs else None


@dataclass(frozen=True)
class TeamStanding:
    """The queue's open pairs, the votes they still need, the seconds per card the estimate uses
    (``measured`` False when it is the default) and the hours those votes take."""

    open_pairs: int
    votes_needed: int
    seconds_per_card: float
    measured: bool

    @property
    def hours_left(self) -> float:
        return pace.hours_for(self.votes_needed, self.seconds_per_card)


def person_standing(db: sqlite_utils.Database, annotator: str) -> PersonStanding:
    """``annotator``'s standing (module conventions)."""
    name = (annotator or "").strip()
    mine_pace = next((p for p in pace.judging_pace(db) if p.annotator == name), None)
    rows = pd.DataFrame(
        judgments.people_on_pairs_of(db, name),
        columns=["query_id", "chunk_id", "annotator", "grade", "id", "adjudicated"],
    )
    if rows.empty:
        return PersonStanding(name, mine_pace, 0, 0, 0)
    pair = ["query_id", "chunk_id"]
    votes = rows.loc[rows["adjudicated"] == 0]
    latest = votes.groupby([*pair, "annotator"], sort=False).tail(1)
    mine = latest.loc[(latest["annotator"] == name) & latest["grade"].notna()].set_index(pair)
    own = votes.loc[(votes["annotator"] == name) & votes["grade"].notna()]
    regraded = own.groupby(pair)["grade"].nunique() > 1
    decided = rows.loc[rows["adjudicated"] == 1].groupby(pair)["grade"].last().dropna()
    overruled = decided.reindex(mine.index).ne(mine["grade"]) & decided.reindex(mine.index).notna()
    corrected = regraded.reindex(mine.index, fill_value=False) | overruled
    others = latest.loc[(latest["annotator"] != name) & latest["grade"].notna()]
    others = others.join(mine["grade"].rename("my_grade"), on=pair, how="inner")
    disputed = others.loc[others["grade"] != others["my_grade"]].set_index(pair).index.unique()
    return PersonStanding(
        annotator=name, pace=mine_pace, pairs=len(mine), corrected=int(corrected.sum()),
        disputed=len(disputed),
    )


def team_standing(db: sqlite_utils.Database) -> TeamStanding:
    """The queue's remaining work and the hours it takes (module conventions)."""
    open_pairs, votes = label_queue.open_work(db)
    timed = any(p.cards_timed for p in pace.judging_pace(db))
    return TeamStanding(int(open_pairs), int(votes), pace.team_seconds_per_card(db), timed)
