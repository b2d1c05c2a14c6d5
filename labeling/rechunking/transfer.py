"""A transfer of labels from one chunk set to another: read, plan (``plan``), write, all or
nothing in one transaction.

Conventions
- The judgments read are the *current* graded judgments (each annotator's latest, a grade) of
  the old chunk set's chunks, of every origin but ``machine`` and ``generator`` (labels people
  stand behind: their own, imported ones, earlier transfers of theirs).
- Each label written is a judgment of origin ``transferred`` whose ``origin_source`` is the old
  chunk set's name, with a note saying where it came from; ``transfer_labels`` links it to the
  judgment it copies, with the overlap. Its annotator is ``"<annotator> via <old chunk set>"``
  (``transferred_annotator``): one voter per person, as before, but not the person, who has not
  seen the new chunk (so the blind rule still hides others' grades of it from them, and their
  own judgment of it later is theirs). The consensus counts a transferred label only until a
  person judges the pair, and it does not mark a queued pair as handled.
- One transfer per (old, new) chunk set pair; the suggested pairs go to the labeling queue with
  reason ``transfer`` and a ``pair_sources`` row (source ``transfer``, detail the old chunk
  set): that is how they reach the judges. A carried pair's labels say the same by their origin.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import ScorecardError
from labeling.judging import queue
from labeling.rechunking.answers import plan_answers
from labeling.rechunking.mapping import chunk_overlaps
from labeling.rechunking.merge import merge_plans
from labeling.rechunking.plan import DEFAULT_THRESHOLD, OUTCOMES, TransferPlan, plan_transfer
from labeling.workspace import chunk_sets, contents, imports, provenance, roles, transfers
from labeling.workspace.evidence import evidence_of
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

QUEUE_REASON = "transfer"
TRANSFER_CACHE_KIB = 256 * 1024  # SQLite page cache while a transfer writes: index pages stay
UNTRANSFERRED_ORIGINS = ("machine", "generator")
# Progress callback: (share done 0-1, what is happening).
Progress = Callable[[float, str], None]

@dataclass(frozen=True)
class TransferResult:
    """What a transfer wrote: its id, the labels and suggestions, and the old judgments by
    outcome (``OUTCOMES``) with the split ones counted apart."""

    transfer_id: int
    from_set: str
    to_set: str
    threshold: float
    labels: int
    suggestions: int
    outcomes: dict[str, int]
    split: int
    pairs: dict[str, int] | None = None
    invalidated: int = 0

    def summary(self) -> str:
        judged = sum(self.outcomes.values())
        pairs = self.pairs or {}
        return (
            f"{self.from_set} -> {self.to_set}: new pairs {pairs.get('exact', 0)} exact, "
            f"{pairs.get('inferred', 0)} inferred, {pairs.get('review', 0)} sent to review, "
            f"{pairs.get('not_relevant', 0)} not relevant; {self.invalidated} judgments "
            f"invalidated (text or evidence edited or deleted); of {judged} judgments, "
            + ", ".join(f"{self.outcomes[o]} {o}" for o in OUTCOMES)
            + f" ({self.split} split); {self.labels} transferred labels written, "
            f"{self.suggestions} pairs sent to the labeling queue"
        )


def transferred_annotator(annotator: str, from_set: str) -> str:
    """The annotator name of a label transferred from ``annotator``'s judgment in ``from_set``
    (``transfers.append_labels`` writes the same, a column at a time)."""
    return f"{annotator} via {from_set}"


def plan_for(
    db: sqlite_utils.Database, from_set: str, to_set: str, threshold: float = DEFAULT_THRESHOLD,
    progress: Progress | None = None,
) -> TransferPlan:
    """What transferring the labels of ``from_set`` to ``to_set`` would write (nothing is)."""
    report = progress or (lambda share, what: None)
    chunk_sets.get_chunk_set(db, from_set)
    chunk_sets.get_chunk_set(db, to_set)
    if from_set == to_set:
        raise ScorecardError("choose two different chunk sets")
    report(0.0, "reading the chunk spans")
    old, new = (transfers.member_spans(db.conn, name) for name in (from_set, to_set))
    report(0.15, "reading the judgments")
    judged = transfers.current_graded_judgments(db.conn)
    blocked = transfers.labelled_pairs(db.conn, to_set)
    frozen = pd.Index(sorted(contents.locked_query_ids(db)), dtype=object)
    report(0.35, "measuring how the chunks overlap")
    overlaps = chunk_overlaps(old, new, lambda keys: chunk_sets.document_texts(db, keys))
    report(0.55, "deciding which labels carry over")
    overlap_plan = plan_transfer(judged, old, new, overlaps, blocked=blocked,
                                 frozen_queries=frozen, threshold=threshold)
    report(0.6, "deciding the relevant labels by where the answer is")
    judged = judged.loc[judged["chunk_id"].isin(set(old["chunk_id"]))]
    relevant_ids = judged.loc[judged["grade"] >= 1, "id"].tolist()
    answer_plan = plan_answers(
        judged, evidence_of(db.conn, relevant_ids), old, new, overlaps,
        texts=lambda keys: chunk_sets.document_texts(db, keys),
        query_texts=transfers.query_texts(db.conn),
        skip_pairs=set(zip(blocked["query_id"], blocked["chunk_id"], strict=True)),
        frozen=set(frozen))
    return merge_plans(overlap_plan, answer_plan)


def transfer_labels(
    db: sqlite_utils.Database,
    from_set: str,
    to_set: str,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    by: str | None = None,
    progress: Progress | None = None,
) -> TransferResult:
    """Transfer the labels of chunk set ``from_set`` to ``to_set`` (see ``plan``): write the
    carried labels, queue the suggested pairs and record every outcome, in one transaction.
    A second transfer between the same two chunk sets is refused (its report stands)."""
    report = progress or (lambda share, what: None)
    roles.check_current(db, "transfer_labels")  # before the work; checked again when writing
    done = transfers.existing_transfer(db, from_set, to_set)
    if done is not None:
        raise ScorecardError(
            f"the labels of {from_set!r} were already transferred to {to_set!r} "
            f"({done['created_at'][:16].replace('T', ' ')} UTC); its report stands"
        )
    try:
        plan = plan_for(db, from_set, to_set, threshold, report)
    except ValueError as error:  # a threshold out of range
        raise ScorecardError(str(error)) from None
    report(0.7, "writing the transferred labels")
    with imports.larger_page_cache(db.conn, TRANSFER_CACHE_KIB):
        transfer_id = _write(db, plan, from_set, to_set, by, report)
    report(1.0, "done")
    counts = plan.outcomes["outcome"].value_counts()
    carried = plan.outcomes.loc[plan.outcomes["outcome"] == "carried", "split"]
    return TransferResult(
        transfer_id, from_set, to_set, plan.threshold, len(plan.labels), len(plan.suggestions),
        {o: int(counts.get(o, 0)) for o in OUTCOMES}, int(carried.sum()),
        plan.decisions["decision"].value_counts().to_dict() if plan.decisions is not None else {},
        len(plan.invalidated) if plan.invalidated is not None else 0,
    )


def _write(
    db: sqlite_utils.Database, plan: TransferPlan, from_set: str, to_set: str, by: str | None,
    report: Progress,
) -> int:
    """Everything a transfer writes, in one transaction; its id. Rows go in the order of the
    indexes they land in (pairs sorted), which keeps the B-tree inserts local."""
    with write_transaction(db, action="transfer_labels") as conn:
        transfer_id = transfers.insert_transfer(conn, from_set, to_set, plan.threshold, by,
                                                utc_now())
        transfers.append_labels(conn, plan.labels, transfer_id, from_set, utc_now())
        transfers.add_sources(conn, plan.outcomes, transfer_id)
        transfers.add_decisions(conn, transfer_id, plan.decisions, plan.invalidated)
        report(0.85, "queueing the suggestions")
        _write_suggestions(db, conn, plan, transfer_id, from_set)
    return transfer_id


def _json_text(values: pd.Series) -> pd.Series:
    """Each string as a JSON string literal: quotes and backslashes escaped by column
    operations; values with control characters (never ids, maybe names) by ``json.dumps``."""
    plain = values.astype(str)
    out = '"' + plain.str.replace("\\", "\\\\", regex=False).str.replace(
        '"', '\\"', regex=False) + '"'
    odd = plain.str.contains(r"[\x00-\x1f\x7f]", regex=True)
    if odd.any():
        out[odd] = plain[odd].map(json.dumps)
    return out


def _suggestion_rows(texts: pd.DataFrame) -> pd.DataFrame:
    """One row per suggested pair from the old grades touching it: query_id, chunk_id, grade
    (the highest) and detail (their JSON list), built with column operations (no Python loop
    per pair): a pair's items are joined by a sum over its run of rows (``np.add.reduceat``)."""
    texts = texts.sort_values(["query_id", "chunk_id"], kind="stable", ignore_index=True)
    items = ('{"old_chunk": ' + _json_text(texts["old_chunk"]) + ', "annotator": '
             + _json_text(texts["annotator"]) + ', "grade": ' + texts["grade"].astype(str)
             + ', "share_of_judged": ' + texts["share_of_judged"].round(4).astype(str)
             + ', "share_of_chunk": ' + texts["share_of_chunk"].round(4).astype(str) + "}")
    query, chunk = texts["query_id"].to_numpy(object), texts["chunk_id"].to_numpy(object)
    starts = np.flatnonzero(np.r_[True, (query[1:] != query[:-1]) | (chunk[1:] != chunk[:-1])])
    first = np.zeros(len(texts), dtype=bool)
    first[starts] = True
    pieces = np.where(first, "", ", ").astype(object) + items.to_numpy(object)
    return pd.DataFrame({
        "query_id": pd.Series(query[starts], dtype=object),
        "chunk_id": pd.Series(chunk[starts], dtype=object),
        "grade": np.maximum.reduceat(texts["grade"].to_numpy(np.int64), starts),
        "detail": pd.Series("[" + np.add.reduceat(pieces, starts) + "]", dtype=object),
    })


def _write_suggestions(db: sqlite_utils.Database, conn, plan: TransferPlan,
                       transfer_id: int, from_set: str) -> None:
    """Store each suggested pair with the old grades it will show, and queue it."""
    if plan.suggestions.empty:
        return
    pairs = _suggestion_rows(plan.suggestion_texts)  # every suggested pair has old grades
    transfers.add_suggestions(conn, transfer_id, pairs)
    queued = list(zip(pairs["query_id"].tolist(), pairs["chunk_id"].tolist(), strict=True))
    queue.enqueue_pairs(db, queued, QUEUE_REASON)
    provenance.add_pair_sources(conn, queued, "transfer", detail=from_set)
