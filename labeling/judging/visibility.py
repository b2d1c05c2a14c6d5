"""Blind judging: what one person may see of other people's grades. One rule, used by every page
and download that shows grades.

The rule (``sight``):
- An ``admin`` sees every grade.
- So does the one local user of a workspace *without accounts*: sign-in is off there, that user
  may do everything an admin may (``labeling.workspace.roles``) and types whatever name they like,
  so no
  rule could keep a grade from them. They are the owner of the file, as on the command line.
- Everyone else (``annotator``, ``viewer``, no account) sees their own judgments, and other
  people's grades of a pair only once they have judged that pair themselves (their latest
  judgment of it is a grade or "can't judge"; a judgment withdrawn by undo does not count) and
  the pair is not waiting for them in the queue (re-queued by a re-judge request, or an overlap
  pair they have not handled since it was queued). A viewer judges nothing, so sees no one
  else's grades.
- A consensus grade of a pair is made of other people's grades: it is shown under the same rule.
- A machine judge's grade of a pair that waits in the queue for the viewer is hidden from
  everyone, admins and the local user included (``waiting``): an audit of machine labels is
  only worth something if the expert grades without seeing the machine's answer. Scores on
  machine labels hide those pairs' grades too (``Sight.hiding_waiting``).

Counts (how many pairs are judged, agreement statistics, scores) are not grades of a pair and
are not filtered here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import pandas as pd

from labeling.workspace import judgments, label_queue, roles

if TYPE_CHECKING:
    import sqlite_utils

SEES_ALL_ROLES = frozenset({"admin"})

@dataclass(frozen=True)
class Sight:
    """What ``viewer`` may see of other people's grades: everything (``sees_all``), else their
    own judgments and other people's grades of ``pairs`` (query_id, chunk_id). ``waiting``:
    pairs waiting in the queue for the viewer, whose machine grades nobody sees; ``hidden``:
    pairs whose grades are hidden whatever the rest says."""

    viewer: str
    sees_all: bool
    pairs: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)
    waiting: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)
    hidden: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)

    def sees_pair(self, query_id: str, chunk_id: str) -> bool:
        """Whether other people's grades of the pair (and its consensus) may be shown."""
        pair = (str(query_id), str(chunk_id))
        return (self.sees_all or pair in self.pairs) and pair not in self.hidden

    def sees(self, query_id: str, chunk_id: str, annotator: str, origin: str | None = None
             ) -> bool:
        """Whether one judgment (by ``annotator``, of ``origin``) of the pair may be shown."""
        if origin == "machine" and (str(query_id), str(chunk_id)) in self.waiting:
            return False
        own = bool(self.viewer) and str(annotator).strip() == self.viewer
        return own or self.sees_pair(query_id, chunk_id)

    def pair_mask(
        self, frame: pd.DataFrame, query: str = "query_id", chunk: str = "chunk_id"
    ) -> pd.Series:
        """Per row of ``frame``: whether the grades of its pair may be shown."""
        if self.sees_all and not self.hidden:
            return pd.Series(True, index=frame.index, dtype=bool)
        pairs = zip(frame[query].astype(str), frame[chunk].astype(str), strict=True)
        return pd.Series([self.sees_pair(*p) for p in pairs], index=frame.index, dtype=bool)

    @property
    def blind_to_some(self) -> bool:
        """Whether any grade is hidden from this viewer (False: show everything)."""
        return not self.sees_all or bool(self.hidden)

    def hiding_waiting(self) -> Sight:
        """The same sight, also hiding every grade of the pairs waiting for the viewer: for
        grades that may be a machine's (scores on a machine label source)."""
        return replace(self, hidden=self.hidden | self.waiting)


EVERYTHING = Sight(viewer="", sees_all=True)


def judged_pairs(
    db: sqlite_utils.Database, viewer: str, query_id: str | None = None
) -> frozenset[tuple[str, str]]:
    """The pairs ``viewer`` has judged and that are not waiting for them in the queue (only
    those of ``query_id`` when given: a page showing one query reads its rows only)."""
    name = (viewer or "").strip()
    if not name:
        return frozenset()
    return label_queue.judged_not_waiting(db, name, query_id)

def sight(
    db: sqlite_utils.Database, viewer: str | None, role: str | None, *,
    query_id: str | None = None,
) -> Sight:
    """What ``viewer`` (an account or typed name), whose role is ``role`` (None: no account),
    may see of other people's grades in this workspace now (see the module's rule).

    ``query_id``: only that query's pairs are looked up (the Label card, a drill-down); the
    sight then shows no other query's grades.
    """
    name = (viewer or "").strip()
    waiting = waiting_pairs(db, name, query_id)
    if role in SEES_ALL_ROLES or not roles.accounts_enabled(db):
        return Sight(viewer=name, sees_all=True, waiting=waiting)
    return Sight(viewer=name, sees_all=False, pairs=judged_pairs(db, name, query_id),
                 waiting=waiting)


def waiting_pairs(
    db: sqlite_utils.Database, viewer: str, query_id: str | None = None
) -> frozenset[tuple[str, str]]:
    """Pairs waiting in the queue for ``viewer`` (open, not handled by them), of ``query_id``
    when given; empty while no machine judge has graded anything (nothing to hide)."""
    if not judgments.any_machine_judgment(db):
        return frozenset()
    return label_queue.waiting_for(db, viewer, query_id)

def visible_judgments(rows: list[dict], seen: Sight) -> list[dict]:
    """The judgment rows (dicts with query_id, chunk_id, annotator and, when known, origin)
    ``seen`` allows."""
    if seen.sees_all and not seen.hidden and not seen.waiting:
        return list(rows)
    return [r for r in rows
            if seen.sees(r["query_id"], r["chunk_id"], r["annotator"], r.get("origin"))]
