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

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.judging import queue
from labeling.rechunking.answers import plan_answers
from labeling.rechunking.mapping import chunk_overlaps
from labeling.rechunking.merge import merge_plans
from labeling.rechunking.plan import DEFAULT_THRESHOLD, OUTCOMES, TransferPlan, plan_transfer
from labeling.workspace import chunk_sets, provenance, roles
from labeling.workspace.evidence import add_evidence, evidence_of
from labeling.workspace.store import utc_now, write_transaction

QUEUE_REASON = "transfer"
TRANSFER_CACHE_KIB = 256 * 1024  # SQLite page cache while a transfer writes: index pages stay
UNTRANSFERRED_ORIGINS = ("machine", "generator")
# Progress callback: (share done 0-1, what is happening).
Progress = Callable[[float, str], None]

# The current graded judgments (each annotator's latest of a pair) of every chunk; those of the
# old chunk set are picked in pandas (a per-row membership probe in SQL costs more).
_JUDGED_SQL = """
SELECT j.id, j.query_id, j.chunk_id, j.annotator, j.grade,
       coalesce(json_extract(j.flags, '$.adjudicated'), 0) AS adjudicated,
       coalesce(json_extract(j.flags, '$.unsure'), 0) AS unsure
FROM judgments j
WHERE j.id IN (SELECT max(id) FROM judgments GROUP BY query_id, chunk_id, annotator)
  AND j.grade IS NOT NULL AND j.origin NOT IN ('machine', 'generator')
"""
_JUDGED_COLUMNS = {"id": np.int64, "query_id": object, "chunk_id": object, "annotator": object,
                   "grade": np.int64, "adjudicated": bool, "unsure": bool}
_SPANS_SQL = """
SELECT p.chunk_id, p.doc_id, p.doc_version, p.start, p."end" FROM chunk_set_members m
JOIN chunk_spans p ON p.chunk_id = m.chunk_id WHERE m.chunk_set = ?
"""
_SPAN_COLUMNS = {"chunk_id": object, "doc_id": object, "doc_version": object, "start": np.int64,
                 "end": np.int64}
_LABELLED_SQL = """
SELECT DISTINCT j.query_id, j.chunk_id FROM judgments j
JOIN chunk_set_members m ON m.chunk_id = j.chunk_id AND m.chunk_set = ?
WHERE j.origin NOT IN ('machine', 'generator')
"""


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
    (``_write_labels`` writes the same, a column at a time)."""
    return f"{annotator} via {from_set}"


def existing_transfer(db: sqlite_utils.Database, from_set: str, to_set: str) -> dict | None:
    """The ``label_transfers`` row of (from_set, to_set), or None."""
    rows = list(db.query("SELECT * FROM label_transfers WHERE from_set = ? AND to_set = ?",
                         [from_set, to_set]))
    return rows[0] if rows else None


def _read(db: sqlite_utils.Database, sql: str, params: list, columns: dict) -> pd.DataFrame:
    """A query's rows as a frame of numpy columns of the given types (ids stay Python strings:
    no per-value conversion to another string type)."""
    rows = db.conn.execute(sql, params).fetchall()
    table = np.array(rows, dtype=object).reshape(len(rows), len(columns))
    return pd.DataFrame({name: pd.Series(table[:, i].astype(kind), dtype=kind)
                         for i, (name, kind) in enumerate(columns.items())})


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
    old, new = (_read(db, _SPANS_SQL, [name], _SPAN_COLUMNS) for name in (from_set, to_set))
    report(0.15, "reading the judgments")
    judged = _read(db, _JUDGED_SQL, [], _JUDGED_COLUMNS)
    blocked = _read(db, _LABELLED_SQL, [to_set], {"query_id": object, "chunk_id": object})
    frozen = pd.Index([r[0] for r in db.conn.execute(
        "SELECT q.id FROM queries q JOIN split_locks l ON l.split = q.split")])
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
        query_texts=dict(db.conn.execute("SELECT id, coalesce(text, '') FROM queries")),
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
    done = existing_transfer(db, from_set, to_set)
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
    cache = db.conn.execute("PRAGMA cache_size").fetchone()[0]
    db.conn.execute(f"PRAGMA cache_size = {-TRANSFER_CACHE_KIB}")
    try:
        transfer_id = _write(db, plan, from_set, to_set, by, report)
    finally:
        db.conn.execute(f"PRAGMA cache_size = {cache}")
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
        transfer_id = int(conn.execute(
            "INSERT INTO label_transfers (from_set, to_set, threshold, transferred_by,"
            " created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
            [from_set, to_set, plan.threshold, by, utc_now()],
        ).fetchone()[0])
        _write_labels(conn, plan.labels, transfer_id, from_set)
        _write_outcomes(conn, plan.outcomes, transfer_id)
        _write_decisions(conn, plan, transfer_id)
        report(0.85, "queueing the suggestions")
        _write_suggestions(db, conn, plan, transfer_id, from_set)
    return transfer_id


# The flags of a transferred label: the source's ``adjudicated`` and ``unsure``, and
# ``inferred`` when the transfer located the answer (in the key order and spacing
# ``json.dumps(..., sort_keys=True)`` writes, as ``add_judgment`` does).
_FLAG_TESTS = {"adjudicated": "coalesce(json_extract(o.flags, '$.adjudicated'), 0)",
               "inferred": "t.inferred", "unsure": "coalesce(json_extract(o.flags, '$.unsure'), 0)"}


def _flags_sql() -> str:
    """A CASE expression giving each combination of the three flags its JSON text."""
    names = list(_FLAG_TESTS)
    cases = []
    for mask in range(2 ** len(names) - 1, 0, -1):
        chosen = [n for i, n in enumerate(names) if mask >> (len(names) - 1 - i) & 1]
        test = " AND ".join(_FLAG_TESTS[n] for n in chosen)
        text = json.dumps({n: True for n in chosen}, sort_keys=True)
        cases.append(f"WHEN {test} THEN '{text}'")
    return "CASE " + " ".join(cases) + " ELSE '{}' END"


# Each label is made in SQL from the judgment it copies and a row of the plan (no Python
# string per label): annotator "<name> via <set>", the plan's grade, a note naming the old chunk
# and how the transfer decided.
_LABELS_SQL = f"""
INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at, note, flags, origin,
                       origin_source)
SELECT o.query_id, t.chunk_id, t.grade, o.annotator || ' via ' || :set, :now,
       'transferred from ' || o.chunk_id
           || CASE WHEN t.split THEN ' (a piece of it: the new chunking split it)' ELSE '' END
           || ': ' || t.how,
       {_flags_sql()}, 'transferred', :set
FROM temp.transfer_plan t JOIN judgments o ON o.id = t.source_id
ORDER BY t.seq
"""


def _write_labels(conn, labels: pd.DataFrame, transfer_id: int, from_set: str) -> int:
    """Append the transferred judgments and their ``transfer_labels`` rows; how many.

    The plan goes to a temporary table once; the judgments and their links are made from it by
    two INSERT ... SELECT statements. Ids are consecutive inside the write lock, so label
    ``seq`` gets judgment id ``before + seq``."""
    if labels.empty:
        return 0
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS transfer_plan (seq INTEGER PRIMARY KEY,"
                 " source_id INTEGER, chunk_id TEXT, share_of_judged REAL,"
                 " share_of_chunk REAL, split INTEGER, grade INTEGER, inferred INTEGER,"
                 " how TEXT)")
    conn.execute("DELETE FROM temp.transfer_plan")
    try:
        # One JSON array of rows parsed by SQLite (json_each), not a Python tuple per label.
        rows = json.dumps(list(zip(
            labels["source_id"].tolist(), labels["chunk_id"].tolist(),
            labels["share_of_judged"].tolist(), labels["share_of_chunk"].tolist(),
            labels["split"].astype(int).tolist(), labels["grade"].astype(int).tolist(),
            labels["inferred"].astype(int).tolist(), labels["how"].tolist(), strict=True)))
        conn.execute(
            "INSERT INTO temp.transfer_plan SELECT key + 1, value ->> 0, value ->> 1,"
            " value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7"
            " FROM json_each(?)", [rows])
        before = conn.execute(
            "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'judgments'), 0)"
        ).fetchone()[0]
        conn.execute(_LABELS_SQL, {"set": from_set, "now": utc_now()})
        after = conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'judgments'").fetchone()[0]
        if after - before != len(labels):  # ids are consecutive inside our write lock
            raise ScorecardError("the transferred labels did not get consecutive ids; "
                                 "nothing saved")
        conn.execute(
            "INSERT INTO transfer_labels (judgment_id, transfer_id, source_judgment_id,"
            " share_of_judged, share_of_chunk, split) SELECT ? + seq, ?, source_id,"
            " share_of_judged, share_of_chunk, split FROM temp.transfer_plan ORDER BY seq",
            [before, transfer_id])
        for seq, spans in enumerate(labels["evidence"].tolist(), start=1):
            if spans:  # the evidence spans the new chunk holds go with its label
                add_evidence(conn, before + seq, spans)
    finally:
        conn.execute("DELETE FROM temp.transfer_plan")
    return len(labels)


def _write_outcomes(conn, outcomes: pd.DataFrame, transfer_id: int) -> None:
    """One ``transfer_sources`` row per old judgment: one statement per (outcome, split) whose
    judgment ids arrive as a JSON array (``json_each``), in id order, with no Python object per
    row."""
    for (outcome, split), group in outcomes.groupby(["outcome", "split"], sort=True):
        ids = np.sort(group["judgment_id"].to_numpy(np.int64))
        conn.execute(
            "INSERT INTO transfer_sources (transfer_id, judgment_id, outcome, split)"
            " SELECT ?, value, ?, ? FROM json_each(?)",
            [transfer_id, str(outcome), int(split), "[" + ",".join(map(str, ids)) + "]"])


def _write_decisions(conn, plan: TransferPlan, transfer_id: int) -> None:
    """What was decided for each new pair, and which judgments were invalidated, and why."""
    if plan.decisions is not None and len(plan.decisions):
        conn.executemany(
            "INSERT INTO transfer_pairs (transfer_id, query_id, chunk_id, decision, how)"
            " VALUES (?, ?, ?, ?, ?)",
            ((transfer_id, *row) for row in plan.decisions[
                ["query_id", "chunk_id", "decision", "how"]].itertuples(index=False)))
    if plan.invalidated is not None and len(plan.invalidated):
        conn.executemany(
            "INSERT INTO transfer_invalidated (transfer_id, judgment_id, how) VALUES (?, ?, ?)",
            ((transfer_id, int(j), how) for j, how in plan.invalidated[
                ["judgment_id", "how"]].itertuples(index=False)))


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
    conn.executemany(
        "INSERT INTO transfer_suggestions (transfer_id, query_id, chunk_id, grade, detail)"
        " VALUES (?, ?, ?, ?, ?)",
        zip([transfer_id] * len(pairs), pairs["query_id"].tolist(), pairs["chunk_id"].tolist(),
            pairs["grade"].tolist(), pairs["detail"].tolist(), strict=True),
    )
    queued = list(zip(pairs["query_id"].tolist(), pairs["chunk_id"].tolist(), strict=True))
    queue.enqueue_pairs(db, queued, QUEUE_REASON)
    provenance.add_pair_sources(conn, queued, "transfer", detail=from_set)
