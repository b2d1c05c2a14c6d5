"""Small read helpers over what a workspace holds: table counts, runs, segment attributes, a
chunk's neighbours in its document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError

# What stands for the text of a chunk or query known only by its id (a placeholder made by a
# qrels or run import): shown with the id, never as an empty cell, "None" or "nan".
PLACEHOLDER_TEXT = "text not imported"


def shown_text(text: object, item_id: object) -> str:
    """``text`` as a page or an export shows it: itself, or for a chunk or query without text
    (NULL, NaN, NA) ``"text not imported (id <item_id>)"``."""
    missing = text is None or (pd.api.types.is_scalar(text) and bool(pd.isna(text)))
    return f"{PLACEHOLDER_TEXT} (id {item_id})" if missing else str(text)


# ---------------------------------------------------------------------------------------------
# Small read helpers for the app


def counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Row counts of the main tables (chunks, queries, runs, run_results, judgments)."""
    tables = ("chunks", "queries", "query_attributes", "runs", "run_results", "judgments")
    counted = {t: db.table(t).count for t in tables}
    # a run being imported is invisible until it is published (labeling.workspace.staged_runs)
    counted["runs"], counted["run_results"] = db.conn.execute(
        "SELECT count(*), coalesce(sum("
        "(SELECT count(*) FROM run_results x WHERE x.run_id = r.id)), 0)"
        " FROM runs r WHERE NOT importing").fetchone()
    return counted


def describe_counts(counts: dict[str, int], separator: str = ", ") -> str:
    """The main counts of ``counts(db)`` as words: "12 chunks, 5 queries, 2 runs, 40 judgments"."""
    return separator.join(
        f"{counts[table]} {table}" for table in ("chunks", "queries", "runs", "judgments")
    )


def run_names(db: sqlite_utils.Database) -> list[str]:
    """Names of the stored runs, oldest first."""
    return [r[0] for r in db.conn.execute("SELECT name FROM runs WHERE NOT importing ORDER BY id")]


def get_run(db: sqlite_utils.Database, name: str) -> dict:
    """The ``runs`` row of ``name`` (metadata decoded); ``ScorecardError`` if there is none."""
    rows = list(db.query("SELECT * FROM runs WHERE name = ? AND NOT importing", [name]))
    if not rows:
        raise ScorecardError(f"no run named {name!r} (runs: {', '.join(run_names(db)) or 'none'})")
    row = rows[0]
    row["metadata"] = json.loads(row["metadata"])
    return row


def query_segments(db: sqlite_utils.Database, attribute: str) -> dict[str, str | None]:
    """query_id -> value of segment attribute ``attribute`` (queries lacking it are absent)."""
    return dict(
        db.conn.execute(
            "SELECT query_id, value FROM query_attributes WHERE name = ?", [attribute]
        ).fetchall()
    )


# ---------------------------------------------------------------------------------------------
# A chunk in its document


@dataclass(frozen=True)
class Neighbours:
    """A chunk's place in its document and the chunks around it.

    Chunks of a document are in the order they were imported (a document's file order);
    ``title`` is the document's title: the title of its first chunk with one. ``before`` and
    ``after`` hold (chunk id, title, text) of up to ``around`` chunks each side, in document
    order. A chunk without a ``doc_id`` is a document of its own.
    """

    doc_id: str
    title: str
    position: int
    chunks: int
    before: list[tuple[str, str, str]]
    after: list[tuple[str, str, str]]


def neighbours(db: sqlite_utils.Database, chunk_id: str, around: int = 1) -> Neighbours:
    """The chunks around ``chunk_id`` in its document (``Neighbours``)."""
    row = db.conn.execute(
        "SELECT doc_id, coalesce(title, '') FROM chunks WHERE id = ?", [chunk_id]
    ).fetchone()
    if row is None:
        raise ScorecardError(f"no chunk {chunk_id!r} in this workspace")
    doc_id, own_title = row
    if doc_id is None:
        return Neighbours("", own_title, 1, 1, [], [])
    rows = db.conn.execute(
        "SELECT id, coalesce(title, ''), coalesce(text, '') FROM chunks WHERE doc_id = ?"
        " ORDER BY rowid",
        [doc_id],
    ).fetchall()
    ids = [r[0] for r in rows]
    at = ids.index(chunk_id)
    title = next((r[1] for r in rows if r[1]), "")
    return Neighbours(
        doc_id=str(doc_id), title=title, position=at + 1, chunks=len(rows),
        before=[tuple(r) for r in rows[max(0, at - around):at]],
        after=[tuple(r) for r in rows[at + 1:at + 1 + around]],
    )


# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.judging and labeling.machine_judging


def setting(db: sqlite_utils.Database, name: str) -> str | None:
    """The ``labeling_settings`` value stored under ``name`` (None when there is none)."""
    row = db.conn.execute("SELECT value FROM labeling_settings WHERE name = ?", [name]).fetchone()
    return None if row is None else str(row[0])


def save_setting(conn, name: str, value: str) -> None:
    """Store ``value`` under ``name`` in ``labeling_settings``, replacing what was there, inside
    the caller's transaction."""
    conn.execute(
        "INSERT INTO labeling_settings (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [name, value],
    )


def top_results(db: sqlite_utils.Database, run_ids: list[int], k: int, *,
                split: str | None = None,
                segment: tuple[str, list[str]] | None = None) -> pd.DataFrame:
    """The distinct (query_id, chunk_id) pairs among the top ``k`` results of each run, sorted;
    ranks by score descending, ties by chunk id descending in byte order (the metric engine's
    order). ``split`` keeps that split's queries, ``segment=(attribute, values)`` queries whose
    attribute is one of ``values``."""
    marks = ", ".join("?" for _ in run_ids)
    where, params = [f"r.run_id IN ({marks})"], [*run_ids]
    if split is not None:
        where.append("r.query_id IN (SELECT id FROM queries WHERE split = ?)")
        params.append(split)
    if segment is not None:
        attribute, values = segment
        where.append(
            "r.query_id IN (SELECT query_id FROM query_attributes WHERE name = ?"
            f" AND value IN ({', '.join('?' for _ in values)}))"
        )
        params += [attribute, *values]
    sql = f"""
        SELECT DISTINCT query_id, chunk_id FROM (
            SELECT r.query_id, r.chunk_id, row_number() OVER (
                PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC, r.chunk_id DESC
            ) AS rank
            FROM run_results r WHERE {' AND '.join(where)}
        ) WHERE rank <= ?
        ORDER BY query_id, chunk_id
    """
    return pd.read_sql_query(sql, db.conn, params=[*params, int(k)])


def query_column(db: sqlite_utils.Database, column: str) -> dict[str, object]:
    """query id -> the value of ``queries.<column>`` (``source`` or ``split``)."""
    if column not in ("source", "split"):
        raise ValueError(f"not a query column read here: {column!r}")
    return dict(db.conn.execute(f"SELECT id, {column} FROM queries").fetchall())


def locked_query_ids(db: sqlite_utils.Database) -> set[str]:
    """The ids of the queries in a locked split (their labels are frozen)."""
    return {r[0] for r in db.conn.execute(
        "SELECT q.id FROM queries q JOIN split_locks l ON l.split = q.split")}


def _pairs_json(pairs: list[tuple[str, str]]) -> str:
    return json.dumps([list(p) for p in pairs])


def locked_pairs(db: sqlite_utils.Database, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (query id, chunk id) pairs whose query is in a locked split."""
    rows = db.conn.execute(
        "SELECT json_extract(p.value, '$[0]'), json_extract(p.value, '$[1]') FROM json_each(?) p"
        " JOIN queries q ON q.id = json_extract(p.value, '$[0]')"
        " JOIN split_locks l ON l.split = q.split",
        [_pairs_json(pairs)],
    )
    return {(str(q), str(c)) for q, c in rows}


def narrative_source(db: sqlite_utils.Database) -> str | None:
    """Where narratives come from: ``column`` (``queries.narrative``), ``attribute`` (the
    query attribute ``narrative``) or None."""
    if "narrative" in db.table("queries").columns_dict:
        return "column"
    row = db.conn.execute(
        "SELECT 1 FROM query_attributes WHERE name = 'narrative' LIMIT 1").fetchone()
    return "attribute" if row else None


def pair_texts(db: sqlite_utils.Database,
               pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """query, narrative (``narrative_source``), title and passage of each known pair (empty
    strings where missing; unknown pairs left out)."""
    narrative = {
        "column": "coalesce(q.narrative, '')",
        "attribute": "coalesce((SELECT value FROM query_attributes a WHERE a.query_id = q.id"
                     " AND a.name = 'narrative'), '')",
        None: "''",
    }[narrative_source(db)]
    sql = (
        f"SELECT q.id, c.id, coalesce(q.text, ''), {narrative}, coalesce(c.title, ''),"
        " coalesce(c.text, '') FROM json_each(?) p"
        " JOIN queries q ON q.id = json_extract(p.value, '$[0]')"
        " JOIN chunks c ON c.id = json_extract(p.value, '$[1]')"
    )
    out = {}
    for query_id, chunk_id, query, story, title, passage in db.conn.execute(
            sql, [_pairs_json(pairs)]):
        out[(query_id, chunk_id)] = {"query": query, "narrative": story, "title": title,
                                     "passage": passage}
    return out


def run_ranks_of_chunks(db: sqlite_utils.Database, query_id: str,
                        chunk_ids: list[str]) -> list[tuple[str, str, int]]:
    """(run name, chunk_id, rank) of each stored run that returned one of ``chunk_ids`` for
    ``query_id``, runs oldest first; ranks 1-based by score descending, ties by chunk id
    descending (the metric engine's order)."""
    wanted = json.dumps(list(chunk_ids))
    found = []
    for run_id, name in db.conn.execute("SELECT id, name FROM runs ORDER BY id").fetchall():
        for chunk, rank in db.conn.execute(
            "SELECT chunk_id, rank FROM (SELECT chunk_id, row_number() OVER"
            " (ORDER BY score DESC, chunk_id DESC) AS rank FROM run_results"
            " WHERE run_id = ? AND query_id = ?)"
            " WHERE chunk_id IN (SELECT value FROM json_each(?))",
            [run_id, query_id, wanted],
        ):
            found.append((name, chunk, int(rank)))
    return found


def run_results_frame(db: sqlite_utils.Database, run_id: int) -> pd.DataFrame:
    """The results of run ``run_id`` as stored: query_id, doc_id (= chunk id), score, rank
    (NULL where the file gave none); no order."""
    return pd.read_sql_query(
        "SELECT query_id, chunk_id AS doc_id, score, rank FROM run_results WHERE run_id = ?",
        db.conn,
        params=[run_id],
    )


def query_texts(db: sqlite_utils.Database) -> dict[str, str | None]:
    """query id -> its text as stored (None when not imported)."""
    return dict(db.conn.execute("SELECT id, text FROM queries").fetchall())


# Reads and writes used by labeling.evaluation, labeling.synthetic and labeling.report


def query_set_versions(db: sqlite_utils.Database) -> list[str]:
    """Distinct ``runs.query_set_version`` values of published runs (``(unversioned)`` for
    NULL), in the order of each one's first run."""
    rows = db.conn.execute(
        "SELECT coalesce(query_set_version, '(unversioned)') FROM runs WHERE NOT importing"
        " GROUP BY 1 ORDER BY min(id)"
    )
    return [r[0] for r in rows]


def runs_of_query_set(db: sqlite_utils.Database, query_set_version: str) -> list[dict]:
    """{name, created_at} of the published runs of one query set version (``(unversioned)``:
    runs without one), by creation time."""
    return list(db.query(
        "SELECT name, created_at FROM runs WHERE NOT importing"
        " AND coalesce(query_set_version, '(unversioned)') = ?"
        " ORDER BY created_at, id", [query_set_version]))


def change_counters(db: sqlite_utils.Database) -> tuple[tuple[str, int], ...]:
    """(name, value) of the ``data`` and ``queries`` change counters (kept by triggers, see
    migration 15), by name."""
    return tuple(db.conn.execute(
        "SELECT name, value FROM change_counters WHERE name IN ('data', 'queries')"
        " ORDER BY name").fetchall())


def queries_counter(db: sqlite_utils.Database) -> int | None:
    """The ``queries`` change counter, or None when the workspace has none."""
    row = db.conn.execute("SELECT value FROM change_counters WHERE name = 'queries'").fetchone()
    return None if row is None else int(row[0])


def data_version(db: sqlite_utils.Database) -> int:
    """SQLite's ``PRAGMA data_version`` of the connection: changes when another connection
    commits."""
    return int(db.conn.execute("PRAGMA data_version").fetchone()[0])


def run_rows(db: sqlite_utils.Database, run_id: int) -> pd.DataFrame:
    """The stored rows of run ``run_id``: query_id, doc_id (the chunk id), score."""
    return pd.read_sql_query(
        "SELECT query_id, chunk_id AS doc_id, score FROM run_results WHERE run_id = ?",
        db.conn, params=[run_id],
    )


def live_run_connections(db: sqlite_utils.Database) -> list[tuple[str, str | None]]:
    """(name, connection id) of every live run (metadata ``live_run``), oldest first."""
    return db.conn.execute(
        "SELECT name, json_extract(metadata, '$.live_run.connection') FROM runs"
        " WHERE json_extract(metadata, '$.live_run') IS NOT NULL ORDER BY created_at, id"
    ).fetchall()


def run_metadata(db: sqlite_utils.Database, name: str) -> dict | None:
    """The decoded metadata of run ``name``, or None when there is no such run."""
    row = db.conn.execute("SELECT metadata FROM runs WHERE name = ?", [name]).fetchone()
    return None if row is None else json.loads(row[0])


def unjudged_run_results(db: sqlite_utils.Database, run: str, k: int) -> list[tuple[str, str]]:
    """(query_id, chunk_id) of run ``run``'s results at rank <= ``k`` that nobody judged and
    nobody queued, by rank then query id."""
    return [tuple(row) for row in db.conn.execute(
        "SELECT x.query_id, x.chunk_id FROM run_results x JOIN runs r ON r.id = x.run_id"
        " WHERE r.name = ? AND x.rank <= ?"
        " AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.query_id = x.query_id"
        "  AND j.chunk_id = x.chunk_id)"
        " AND NOT EXISTS (SELECT 1 FROM label_queue q WHERE q.query_id = x.query_id"
        "  AND q.chunk_id = x.chunk_id)"
        " ORDER BY x.rank, x.query_id", [run, k])]


def run_values_about(db: sqlite_utils.Database, run_id: int) -> tuple[str, str] | None:
    """(labels JSON, created_at) of the per-query values imported with run ``run_id``, or
    None when it has none."""
    return db.conn.execute(
        "SELECT labels, created_at FROM run_values WHERE run_id = ?", [run_id]).fetchone()


def run_values_data(db: sqlite_utils.Database, run_id: int) -> bytes:
    """The Arrow IPC stream of the per-query values imported with run ``run_id``."""
    (blob,) = db.conn.execute(
        "SELECT data FROM run_values WHERE run_id = ?", [run_id]).fetchone()
    return blob
