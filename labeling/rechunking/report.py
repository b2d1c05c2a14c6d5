"""What a transfer did, read back from its records: first the new pairs by decision (exact,
inferred, sent to review with the hours that takes at the workspace's measured pace, not
relevant) and the old judgments it invalidated (their text or evidence edited or deleted, with
the queries they affect); then old judgments by outcome, by grade and by segment, the labels it
wrote, its suggestions and how many an expert has judged since.

Counts are of old judgments (one per annotator and judged pair of the old chunk set); the
outcomes are ``labeling.rechunking.plan.OUTCOMES``. A segment is a query attribute (or the
query's ``source`` or ``split``); queries without it are in segment ``(missing)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.judging.pace import hours_for, team_seconds_per_card
from labeling.judging.visibility import EVERYTHING, Sight
from labeling.rechunking.answers import DECISIONS
from labeling.rechunking.plan import OUTCOMES
from labeling.workspace import query_store, transfer_reports
from labeling.workspace.transfers import existing_transfer

if TYPE_CHECKING:
    import sqlite_utils

MISSING_SEGMENT = "(missing)"


@dataclass(frozen=True)
class TransferReport:
    """A transfer's report (``to_dict`` is the command line's JSON)."""

    transfer_id: int
    from_set: str
    to_set: str
    threshold: float
    transferred_by: str | None
    created_at: str
    outcomes: dict[str, int]
    split: int
    labels: int
    suggestions: int
    suggestions_judged: int
    segment: str
    by_grade: pd.DataFrame = field(repr=False)
    by_segment: pd.DataFrame = field(repr=False)
    carried_queries: list[str] = field(repr=False)
    pairs: dict[str, int] = field(default_factory=dict)
    invalidated: int = 0
    invalidated_queries: list[str] = field(default_factory=list)
    seconds_per_judgment: float = 0.0
    inferred_labels: int = 0

    @property
    def review_hours(self) -> float:
        return hours_for(self.pairs.get("review", 0), self.seconds_per_judgment)

    def headline(self) -> str:
        """The new pairs by decision and the judgments invalidated, in one sentence."""
        p = self.pairs
        return (
            f"New pairs of {self.to_set!r}: {p.get('exact', 0)} labelled exactly (the answer's "
            f"place is known to be in the chunk: it holds an evidence span or the whole judged "
            f"text), {p.get('inferred', 0)} inferred (it holds the sentence that best matches "
            f"the query; {self.inferred_labels} labels marked inferred), {p.get('review', 0)} "
            f"sent to review (about {self.review_hours:.1f} hours at "
            f"{self.seconds_per_judgment:.0f} s per judgment, the workspace's measured pace), "
            f"{p.get('not_relevant', 0)} not relevant. {self.invalidated} old judgments were "
            f"invalidated (their judged text or evidence was edited or deleted in the new "
            f"document version) on {len(self.invalidated_queries)} queries"
            + (f" ({', '.join(self.invalidated_queries[:10])}"
               + (", ..." if len(self.invalidated_queries) > 10 else "") + ")"
               if self.invalidated_queries else "") + "."
        )

    @property
    def judgments(self) -> int:
        return sum(self.outcomes.values())

    def sentence(self) -> str:
        """The report in one plain sentence, saying what its numbers are made of."""
        o = self.outcomes
        return self.headline() + " " + (
            f"Of the {self.judgments} current judgments of {self.from_set!r} (each annotator's "
            f"latest grade of a pair), {o['carried']} carried over to {self.to_set!r} "
            f"({self.split} of them split across chunks), {o['suggested']} became suggestions, "
            f"{o['kept']} met a pair someone had already labelled, {o['frozen']} are in a "
            f"locked split, {o['dropped']} were dropped (not relevant, their text only in "
            f"slivers or in chunks mostly unjudged) and {o['lost']} were lost (invalidated, or "
            f"their text is in no chunk of {self.to_set!r}). The transfer wrote {self.labels} "
            f"labels of origin "
            f"'transferred' at an overlap threshold of {self.threshold:.0%} and queued "
            f"{self.suggestions} pairs, of which {self.suggestions_judged} have been judged since."
        )

    def to_dict(self) -> dict:
        """Plain JSON types only."""
        return {
            "from": self.from_set, "to": self.to_set, "threshold": self.threshold,
            "transferred_by": self.transferred_by, "created_at": self.created_at,
            "judgments": self.judgments, "outcomes": self.outcomes, "split": self.split,
            "labels_written": self.labels, "suggestions": self.suggestions,
            "suggestions_judged": self.suggestions_judged,
            "by_grade": _records(self.by_grade), "segment": self.segment,
            "by_segment": _records(self.by_segment),
            "carried_queries": len(self.carried_queries),
            "new_pairs": {d: int(self.pairs.get(d, 0)) for d in DECISIONS},
            "inferred_labels": self.inferred_labels,
            "review_hours": round(self.review_hours, 2),
            "seconds_per_judgment": self.seconds_per_judgment,
            "invalidated": self.invalidated,
            "invalidated_queries": self.invalidated_queries,
            "headline": self.headline(),
        }


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in frame.to_dict("records")]


def transferred_labels(
    db: sqlite_utils.Database, transfer_id: int, sight: Sight = EVERYTHING
) -> pd.DataFrame:
    """The labels a transfer wrote that ``sight`` may see (the blind rule): query_id,
    chunk_id, annotator, grade, source_chunk, share_of_judged, share_of_chunk, split."""
    frame = transfer_reports.labels_written(db.conn, transfer_id)
    frame["split"] = frame["split"].astype(bool)
    return frame.loc[sight.pair_mask(frame).to_numpy()].reset_index(drop=True)


def transfers(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every transfer: id, from_set, to_set, threshold, transferred_by, created_at."""
    return transfer_reports.transfers_table(db.conn)


def check_segment(db: sqlite_utils.Database, segment: str) -> None:
    """Refuse a segment that is neither ``source``, ``split`` nor a query attribute."""
    choices = ["source", "split", *query_store.attribute_names(db)]
    if segment not in choices:
        raise ScorecardError(f"no segment {segment!r} (choose from "
                             f"{', '.join(dict.fromkeys(choices))})")


def transfer_report(
    db: sqlite_utils.Database, from_set: str, to_set: str, segment: str = "source"
) -> TransferReport:
    """The report of the transfer from ``from_set`` to ``to_set``, with counts by ``segment``."""
    check_segment(db, segment)
    row = existing_transfer(db, from_set, to_set)
    if row is None:
        raise ScorecardError(f"the labels of {from_set!r} have not been transferred to "
                             f"{to_set!r}")
    tid = int(row["id"])
    sources = _sources(db, tid, segment)
    counts = sources["outcome"].value_counts()
    stored = transfer_reports.record_counts(db.conn, tid)
    return TransferReport(
        transfer_id=tid, from_set=from_set, to_set=to_set, threshold=float(row["threshold"]),
        transferred_by=row["transferred_by"], created_at=row["created_at"],
        outcomes={o: int(counts.get(o, 0)) for o in OUTCOMES},
        split=int(sources.loc[sources["outcome"] == "carried", "split"].sum()),
        labels=stored["labels"], suggestions=stored["suggestions"],
        suggestions_judged=stored["suggestions_judged"],
        segment=segment,
        by_grade=_crosstab(sources, "grade"),
        by_segment=_crosstab(sources, "segment"),
        carried_queries=sorted(sources.loc[sources["outcome"] == "carried", "query_id"].unique()),
        pairs=transfer_reports.pairs_by_decision(db.conn, tid),
        invalidated=stored["invalidated"],
        invalidated_queries=transfer_reports.invalidated_queries(db.conn, tid),
        seconds_per_judgment=team_seconds_per_card(db),
        inferred_labels=stored["inferred_labels"],
    )


def _sources(db: sqlite_utils.Database, tid: int, segment: str) -> pd.DataFrame:
    """Each old judgment the transfer read: query_id, grade, outcome, split, segment."""
    frame = transfer_reports.sources_with_segment(db.conn, tid, segment)
    frame["segment"] = frame["segment"].fillna(MISSING_SEGMENT).astype(str)
    return frame


def _crosstab(sources: pd.DataFrame, by: str) -> pd.DataFrame:
    """Rows of ``by`` values; a column per outcome and the total."""
    if sources.empty:
        return pd.DataFrame(columns=[by, *OUTCOMES, "total"])
    table = pd.crosstab(sources[by], sources["outcome"]).reindex(columns=list(OUTCOMES),
                                                                 fill_value=0)
    table["total"] = table.sum(axis=1)
    table.columns.name = None
    return table.reset_index()
