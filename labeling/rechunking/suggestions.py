"""The pairs a transfer sent to the experts, and the old grades each shows once judged.

Blindness: a suggestion's old grades (which judged texts touch the new chunk, who graded them
what, how much of each is in it) are given to a person only after they judged the pair
themselves (their latest judgment of it is a grade or "can't judge"), so the old label cannot
anchor the new one. Suggestions are judged like any pair (``labeling.judging.queue``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from labeling.workspace import transfer_reports

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class OldGrade:
    """One old judgment touching a suggested pair: the old chunk, who graded it what, and the
    shares (of that judged text in the new chunk; of the new chunk made of it)."""

    old_chunk: str
    annotator: str
    grade: int
    share_of_judged: float
    share_of_chunk: float

    def describe(self, grade_names: dict[int, str] | None = None) -> str:
        """One plain sentence: who graded which old chunk what, and how much of it is here."""
        name = (grade_names or {}).get(self.grade)
        grade = f"{self.grade} ({name})" if name else str(self.grade)
        return (f"{self.annotator} graded {self.old_chunk} {grade}; "
                f"{self.share_of_judged:.0%} of that text is in this chunk and makes up "
                f"{self.share_of_chunk:.0%} of it")


def open_suggestions(
    db: sqlite_utils.Database, transfer_id: int, annotator: str, limit: int = 50
) -> pd.DataFrame:
    """Suggestions of a transfer that ``annotator`` has not judged yet: query_id, chunk_id,
    query_text, title, chunk_text (no grade: judging is blind)."""
    return transfer_reports.unjudged_suggestions(db.conn, transfer_id, annotator, limit)


def has_judged(db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str) -> bool:
    """Whether ``annotator``'s latest judgment of the pair is a grade or "can't judge"."""
    latest = transfer_reports.latest_own_judgment(db.conn, query_id, chunk_id, annotator)
    return latest is not None and (latest[0] is not None or latest[1])


def old_grades(
    db: sqlite_utils.Database, transfer_id: int, query_id: str, chunk_id: str, annotator: str
) -> list[OldGrade] | None:
    """The old grades of a suggested pair, for ``annotator`` once they have judged it; None
    before (or when the pair is not a suggestion of that transfer)."""
    if not has_judged(db, query_id, chunk_id, annotator):
        return None
    detail = transfer_reports.suggestion_detail(db.conn, transfer_id, query_id, chunk_id)
    if detail is None:
        return None
    return [OldGrade(d["old_chunk"], d["annotator"], int(d["grade"]),
                     float(d["share_of_judged"]), float(d["share_of_chunk"]))
            for d in json.loads(detail)]
