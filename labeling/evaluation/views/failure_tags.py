"""Failure tags: why a query failed, as reviewers tag it, and their counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import InputError
from labeling.evaluation.inputs.score_controls import NO_SEGMENT
from labeling.evaluation.inputs.segmenting import _segments
from labeling.workspace import contents, evaluation_records, store

if TYPE_CHECKING:
    import sqlite_utils

FAILURE_TAGS: dict[str, str] = {
    "relevant chunk never retrieved": "A relevant chunk is not in the run at all.",
    "chunk split badly": "The answer is cut across chunks or buried in a long one.",
    "acronym": "The query or the chunk uses an acronym the other spells out.",
    "table": "The answer sits in a table the retriever reads poorly.",
    "stale document": "An outdated document outranks the current one.",
    "label wrong": "The label, not the run, is wrong.",
}


# ---------------------------------------------------------------------------------------------
# Failure review


def failure_tag_names(db: sqlite_utils.Database) -> list[str]:
    """The starting tags, then the team's own in the order they were added."""
    added = evaluation_records.team_failure_tags(db)
    return [*FAILURE_TAGS, *[t for t in added if t not in FAILURE_TAGS]]


def add_failure_tag(
    db: sqlite_utils.Database, name: str, description: str = "", created_by: str | None = None
) -> str:
    """Add a team tag (trimmed, 1-60 characters); adding an existing tag is a no-op."""
    name = " ".join(name.split())
    if not 0 < len(name) <= 60:
        raise InputError("a tag has 1 to 60 characters", source="failure tag")
    if name in failure_tag_names(db):
        return name
    with store.write_transaction(db, action="add_tag") as conn:
        evaluation_records.add_failure_tag(conn, name, description, created_by,
                                           store.utc_now())
    return name


def tag_failure(
    db: sqlite_utils.Database, query_id: str, run: str, tags: Sequence[str], reviewer: str,
    note: str | None = None,
) -> int:
    """Record why ``run`` failed on ``query_id``: one review row per tag. Returns rows added."""
    known = set(failure_tag_names(db))
    unknown = [t for t in tags if t not in known]
    if unknown:
        raise InputError(f"unknown failure tag(s) {unknown}", source="failure review")
    if not tags:
        raise InputError("choose at least one tag", source="failure review")
    if not reviewer.strip():
        raise InputError("type your name in the sidebar before tagging", source="failure review")
    contents.get_run(db, run)
    now = store.utc_now()
    with store.write_transaction(db, action="tag_failure") as conn:
        evaluation_records.add_failure_reviews(conn, query_id, run, tags, note or None,
                                               reviewer.strip(), now)
    return len(tags)


def failure_reviews(db: sqlite_utils.Database, query_id: str | None = None) -> pd.DataFrame:
    """Review rows (newest first): query_id, run_name, tag, note, reviewer, created_at."""
    return evaluation_records.failure_reviews(db, query_id)


def tag_counts(
    db: sqlite_utils.Database, queries: pd.DataFrame, segment: str = NO_SEGMENT
) -> pd.DataFrame:
    """Tagged queries per segment, run and tag: segment, run, tag, queries (distinct)."""
    reviews = failure_reviews(db)
    if reviews.empty:
        return pd.DataFrame(columns=["segment", "run", "tag", "queries"])
    reviews = reviews.drop_duplicates(["query_id", "run_name", "tag"])
    reviews["segment"] = _segments(
        queries, segment, pd.Index(reviews["query_id"].astype("string"))
    ).to_numpy()
    counts = (reviews.groupby(["segment", "run_name", "tag"]).size()
              .rename("queries").reset_index().rename(columns={"run_name": "run"}))
    return counts.sort_values(["queries", "segment"], ascending=[False, True], ignore_index=True)
