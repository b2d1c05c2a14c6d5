"""Label transfers between chunk sets as stored (``label_transfers``, ``transfer_labels``,
``transfer_sources``, ``transfer_pairs``, ``transfer_invalidated``, ``transfer_suggestions``):
what a transfer reads to plan and what it writes (``labeling.rechunking.transfer``).

Conventions
- The judgments a transfer reads are the current graded ones (each annotator's latest grade
  of a pair) of every origin but ``machine`` and ``generator``.
- A transferred label is a judgment of origin ``transferred``, ``origin_source`` the old chunk
  set, annotator ``"<annotator> via <old chunk set>"``; its ``transfer_labels`` row links it to
  the judgment it copies, with the overlap shares (0-1).
- The writes run in the caller's write transaction; none opens or commits one. Bulk rows go in
  as one JSON array parsed by SQLite (``json_each``) or one ``executemany``, in index order.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.workspace.evidence import add_evidence
from labeling.workspace.judgments import last_judgment_id

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


def existing_transfer(db: sqlite_utils.Database, from_set: str, to_set: str) -> dict | None:
    """The ``label_transfers`` row of (from_set, to_set), or None."""
    rows = list(db.query("SELECT * FROM label_transfers WHERE from_set = ? AND to_set = ?",
                         [from_set, to_set]))
    return rows[0] if rows else None


def _read(conn: sqlite3.Connection, sql: str, params: list, columns: dict) -> pd.DataFrame:
    """A query's rows as a frame of numpy columns of the given types (ids stay Python strings:
    no per-value conversion to another string type)."""
    rows = conn.execute(sql, params).fetchall()
    table = np.array(rows, dtype=object).reshape(len(rows), len(columns))
    return pd.DataFrame({name: pd.Series(table[:, i].astype(kind), dtype=kind)
                         for i, (name, kind) in enumerate(columns.items())})


def member_spans(conn: sqlite3.Connection, chunk_set: str) -> pd.DataFrame:
    """The spans of ``chunk_set``'s chunks: chunk_id, doc_id, doc_version (objects), start, end
    (int64 character offsets, end exclusive)."""
    return _read(conn, _SPANS_SQL, [chunk_set], _SPAN_COLUMNS)


def current_graded_judgments(conn: sqlite3.Connection) -> pd.DataFrame:
    """The judgments a transfer reads (see the module docstring): id, query_id, chunk_id,
    annotator, grade, adjudicated, unsure."""
    return _read(conn, _JUDGED_SQL, [], _JUDGED_COLUMNS)


def labelled_pairs(conn: sqlite3.Connection, chunk_set: str) -> pd.DataFrame:
    """The (query_id, chunk_id) pairs of ``chunk_set``'s chunks judged by anyone but a machine
    or a generator."""
    return _read(conn, _LABELLED_SQL, [chunk_set], {"query_id": object, "chunk_id": object})


def query_texts(conn: sqlite3.Connection) -> dict[str, str]:
    """Query id -> text ('' for a placeholder)."""
    return dict(conn.execute("SELECT id, coalesce(text, '') FROM queries"))


def insert_transfer(
    conn: sqlite3.Connection, from_set: str, to_set: str, threshold: float, by: str | None,
    created_at: str,
) -> int:
    """Store a transfer's ``label_transfers`` row; its id."""
    return int(conn.execute(
        "INSERT INTO label_transfers (from_set, to_set, threshold, transferred_by,"
        " created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
        [from_set, to_set, threshold, by, created_at],
    ).fetchone()[0])


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


def _stage_plan(conn: sqlite3.Connection, labels: pd.DataFrame) -> None:
    """The labels of the plan into the temporary table ``transfer_plan`` (``seq`` from 1), as
    one JSON array of rows parsed by SQLite (json_each), not a Python tuple per label."""
    rows = json.dumps(list(zip(
        labels["source_id"].tolist(), labels["chunk_id"].tolist(),
        labels["share_of_judged"].tolist(), labels["share_of_chunk"].tolist(),
        labels["split"].astype(int).tolist(), labels["grade"].astype(int).tolist(),
        labels["inferred"].astype(int).tolist(), labels["how"].tolist(), strict=True)))
    conn.execute(
        "INSERT INTO temp.transfer_plan SELECT key + 1, value ->> 0, value ->> 1,"
        " value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7"
        " FROM json_each(?)", [rows])


def append_labels(
    conn: sqlite3.Connection, labels: pd.DataFrame, transfer_id: int, from_set: str, now: str
) -> int:
    """Append the transferred judgments of ``labels`` (the plan's: source_id, chunk_id,
    share_of_judged, share_of_chunk, split, grade, inferred, how, evidence) with their
    ``transfer_labels`` rows and evidence; how many.

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
        _stage_plan(conn, labels)
        before = last_judgment_id(conn)
        conn.execute(_LABELS_SQL, {"set": from_set, "now": now})
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


def add_sources(conn: sqlite3.Connection, outcomes: pd.DataFrame, transfer_id: int) -> None:
    """One ``transfer_sources`` row per old judgment of ``outcomes`` (judgment_id, outcome,
    split): one statement per (outcome, split) whose judgment ids arrive as a JSON array
    (``json_each``), in id order, with no Python object per row."""
    for (outcome, split), group in outcomes.groupby(["outcome", "split"], sort=True):
        ids = np.sort(group["judgment_id"].to_numpy(np.int64))
        conn.execute(
            "INSERT INTO transfer_sources (transfer_id, judgment_id, outcome, split)"
            " SELECT ?, value, ?, ? FROM json_each(?)",
            [transfer_id, str(outcome), int(split), "[" + ",".join(map(str, ids)) + "]"])


def add_decisions(
    conn: sqlite3.Connection, transfer_id: int, decisions: pd.DataFrame | None,
    invalidated: pd.DataFrame | None,
) -> None:
    """What was decided for each new pair (query_id, chunk_id, decision, how), and which
    judgments were invalidated (judgment_id, how)."""
    if decisions is not None and len(decisions):
        conn.executemany(
            "INSERT INTO transfer_pairs (transfer_id, query_id, chunk_id, decision, how)"
            " VALUES (?, ?, ?, ?, ?)",
            ((transfer_id, *row) for row in decisions[
                ["query_id", "chunk_id", "decision", "how"]].itertuples(index=False)))
    if invalidated is not None and len(invalidated):
        conn.executemany(
            "INSERT INTO transfer_invalidated (transfer_id, judgment_id, how) VALUES (?, ?, ?)",
            ((transfer_id, int(j), how) for j, how in invalidated[
                ["judgment_id", "how"]].itertuples(index=False)))


def add_suggestions(conn: sqlite3.Connection, transfer_id: int, pairs: pd.DataFrame) -> None:
    """Store the suggested pairs (query_id, chunk_id, grade: the highest old one, detail: the
    JSON list of the old grades) by one ``executemany``."""
    conn.executemany(
        "INSERT INTO transfer_suggestions (transfer_id, query_id, chunk_id, grade, detail)"
        " VALUES (?, ?, ?, ?, ?)",
        zip([transfer_id] * len(pairs), pairs["query_id"].tolist(), pairs["chunk_id"].tolist(),
            pairs["grade"].tolist(), pairs["detail"].tolist(), strict=True),
    )
