"""Queries and their splits and attributes: listing, adding and editing queries, seeded dev/test
splits, and the workspace overviews of the Data and Queries pages.

The owner of the split names (``SPLITS``), the query sources (``SOURCES``), the next query id
(``next_query_id``) and the attribute listing (``attribute_names``).

Segment attributes are the ``query_attributes`` rows (name -> text value); ``source`` and
``split`` are columns of ``queries``. Placeholder queries (ids a run or qrels file named
before the queries were imported) are listed too, flagged, so they can be filled in."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import sqlite_utils

from labeling.errors import InputError
from labeling.workspace import frozen_split
from labeling.workspace.ids import problem as id_problem
from labeling.workspace.store import write_transaction

# The one list of each: importers, pages and the dashboard's split control read these.
SOURCES = ("real", "synthetic")
SPLITS = ("dev", "test")
BASE_COLUMNS = ("id", "text", "source", "split")
# What the person asking wants to know, for the judges (``queries.narrative``); edited like the
# columns above, never a segment attribute.
NARRATIVE = "narrative"
RESERVED_COLUMNS = (*BASE_COLUMNS, NARRATIVE, "placeholder")
ATTRIBUTE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,63}$")


# ---------------------------------------------------------------------------------------------
# Reading


def attribute_names(db: sqlite_utils.Database) -> list[str]:
    """Names of the segment attributes in use, alphabetical."""
    return [r[0] for r in db.conn.execute(
        "SELECT DISTINCT name FROM query_attributes ORDER BY name"
    )]


def queries_table(db: sqlite_utils.Database, search: str = "") -> pd.DataFrame:
    """Queries with one column per segment attribute, optionally filtered by a substring.

    ``search`` matches case-insensitively anywhere in the id or text. Columns: id, text,
    narrative, source, split, placeholder (bool), then the attributes in name order (missing
    values are None).
    """
    sql = "SELECT id, text, narrative, source, split, placeholder FROM queries"
    params: list[str] = []
    if search.strip():
        sql += " WHERE instr(lower(id), ?) > 0 OR instr(lower(coalesce(text, '')), ?) > 0"
        needle = search.strip().lower()
        params = [needle, needle]
    frame = pd.read_sql_query(sql + " ORDER BY rowid", db.conn, params=params)
    frame["placeholder"] = frame["placeholder"].astype(bool)
    attrs = pd.read_sql_query("SELECT query_id, name, value FROM query_attributes", db.conn)
    for name in attribute_names(db):
        values = attrs.loc[attrs["name"] == name].set_index("query_id")["value"]
        frame[name] = frame["id"].map(values).astype(object)
        frame[name] = frame[name].where(frame[name].notna(), None)
    return frame


# ---------------------------------------------------------------------------------------------
# Writing


def _check_choice(value: str | None, allowed: tuple[str, ...], what: str) -> str | None:
    if value is None or (isinstance(value, float) and pd.isna(value)) or value == "":
        return None
    if value not in allowed:
        raise InputError(f"{what} must be {' or '.join(allowed)}, not {value!r}", source="queries")
    return str(value)


def _check_attributes(attributes: Mapping[str, object]) -> dict[str, str | None]:
    clean: dict[str, str | None] = {}
    for name, value in attributes.items():
        name = str(name).strip()
        if not ATTRIBUTE_NAME.match(name) or name in RESERVED_COLUMNS:
            raise InputError(
                f"attribute name {name!r} must start with a letter, use letters, digits, _ or -, "
                "and not be id, text, narrative, source, split or placeholder",
                source="queries",
            )
        missing = value is None or (isinstance(value, float) and pd.isna(value))
        text = "" if missing else str(value).strip()
        clean[name] = text or None
    return clean


def next_query_id(conn: sqlite3.Connection, prefix: str = "u") -> str:
    """The first free id ``<prefix>001``, ``<prefix>002``... for a new query (``u`` typed in
    the app, ``s`` accepted from synthetic review)."""
    taken = {r[0] for r in conn.execute(
        "SELECT id FROM queries WHERE id GLOB ?", [f"{prefix}[0-9]*"]
    )}
    number = len(taken) + 1
    while f"{prefix}{number:03d}" in taken:
        number += 1
    return f"{prefix}{number:03d}"


def add_query(
    db: sqlite_utils.Database,
    text: str,
    *,
    query_id: str | None = None,
    source: str = "real",
    split: str | None = None,
    attributes: Mapping[str, object] | None = None,
    narrative: str | None = None,
) -> str:
    """Add one query and return its id (``u001``, ``u002``... when none is given), with an
    optional narrative (what the person asking wants to know).

    Raises ``InputError`` for empty text, a taken id, or a bad source / split / attribute name.
    """
    text = (text or "").strip()
    if not text:
        raise InputError("the query text is empty", source="new query")
    source_value = _check_choice(source, SOURCES, "source")
    split_value = _check_choice(split, SPLITS, "split")
    clean = _check_attributes(attributes or {})
    with write_transaction(db, action="add_query") as conn:
        qid = (query_id or "").strip() or next_query_id(conn)
        if (reason := id_problem("query id", qid)) is not None:
            raise InputError(reason, source="new query")
        if conn.execute("SELECT 1 FROM queries WHERE id = ?", [qid]).fetchone():
            raise InputError(f"query id {qid!r} is already taken", source="new query")
        refusal = frozen_split.membership_refusal(
            qid, None, split_value, frozen_split.locked_splits(conn)
        )
        if refusal:
            raise InputError(refusal, source="new query")
        conn.execute(
            "INSERT INTO queries (id, text, source, split, narrative) VALUES (?, ?, ?, ?, ?)",
            [qid, text, source_value, split_value, clean_narrative(narrative)],
        )
        conn.executemany(
            "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)",
            [(qid, name, value) for name, value in clean.items() if value is not None],
        )
    return qid


def _first_change(new: dict, old: dict, attrs: dict, old_attrs: dict) -> str:
    """What an edit of one query changes first: "source", "split" or a segment attribute."""
    for name in new:
        if new[name] != old[name]:
            return name
    return next(f"segment attribute {n!r}" for n in attrs if attrs[n] != old_attrs[n])


def _refuse_locked_changes(conn, changes: list[tuple[str, object, object, str]]) -> None:
    """Refuse edits of queries in a locked split, and moves into one (``frozen_split``);
    ``changes`` are (query id, old split, new split, what changes first)."""
    locked = frozen_split.locked_splits(conn)
    for qid, old_split, new_split, change in changes:
        refusal = frozen_split.membership_refusal(qid, old_split, new_split, locked)
        if refusal is None and old_split in locked:
            refusal = frozen_split.query_change_refusal(qid, str(old_split), change)
        if refusal:
            raise InputError(refusal, source="queries")


def update_queries(db: sqlite_utils.Database, edited: pd.DataFrame) -> int:
    """Save narrative, source, split and attribute columns of ``edited`` (rows keyed by ``id``).

    Text is never changed here (labels refer to it). Columns other than id, text, narrative,
    source, split and placeholder are segment attributes; an empty cell removes that attribute
    (an empty narrative removes the narrative). All rows are checked before anything is written;
    a change to a query of a locked split, or a move into one, refuses the whole edit (a
    narrative guides the judges and labels nothing: it may change in a locked split too).
    Returns how many queries changed.
    """
    if "id" not in edited.columns:
        raise InputError("the edited table has no id column", source="queries")
    current = queries_table(db).set_index("id")
    attribute_columns = [c for c in edited.columns if c not in RESERVED_COLUMNS]
    _check_attributes({c: None for c in attribute_columns})
    updates, changes, narratives = [], [], []
    for row in edited.to_dict("records"):
        qid = str(row["id"])
        if qid not in current.index:
            raise InputError(f"unknown query id {qid!r}", source="queries")
        before = current.loc[qid]
        new = {
            "source": _check_choice(row.get("source", before["source"]), SOURCES, "source"),
            "split": _check_choice(row.get("split", before["split"]), SPLITS, "split"),
        }
        attrs = _check_attributes({c: row.get(c) for c in attribute_columns})
        old_attrs = {c: (before[c] if c in before.index else None) for c in attribute_columns}
        old_attrs = {c: (None if v is None or pd.isna(v) else v) for c, v in old_attrs.items()}
        old = {k: (None if before[k] is None or pd.isna(before[k]) else before[k]) for k in new}
        if NARRATIVE in row:
            narrative = clean_narrative(row[NARRATIVE])
            if narrative != clean_narrative(before[NARRATIVE]):
                narratives.append((narrative, qid))
        if new != old or attrs != old_attrs:
            updates.append((qid, new, attrs))
            change = _first_change(new, old, attrs, old_attrs)
            changes.append((qid, old["split"], new["split"], change))
    with write_transaction(db, action="edit_queries") as conn:
        _refuse_locked_changes(conn, changes)
        conn.executemany("UPDATE queries SET narrative = ? WHERE id = ?", narratives)
        for qid, new, attrs in updates:
            conn.execute(
                "UPDATE queries SET source = ?, split = ? WHERE id = ?",
                [new["source"], new["split"], qid],
            )
            for name, value in attrs.items():
                if value is None:
                    conn.execute(
                        "DELETE FROM query_attributes WHERE query_id = ? AND name = ?", [qid, name]
                    )
                else:
                    conn.execute(
                        "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)"
                        " ON CONFLICT (query_id, name) DO UPDATE SET value = excluded.value",
                        [qid, name, value],
                    )
    return len({qid for qid, _, _ in updates} | {qid for _, qid in narratives})


def clean_narrative(value: object) -> str | None:
    """A narrative as stored: text with its blanks trimmed, None when empty or missing."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None
    return str(value).strip() or None


def narrative(db: sqlite_utils.Database, query_id: str) -> str | None:
    """The narrative of ``query_id`` (None when it has none or the query is unknown)."""
    row = db.conn.execute("SELECT narrative FROM queries WHERE id = ?", [query_id]).fetchone()
    return None if row is None else row[0]


@dataclass
class SplitResult:
    """How many queries a split assignment put in dev and in test."""

    dev: int
    test: int

    def summary(self) -> str:
        return f"{self.dev} queries in dev, {self.test} in test"


def split_assignment(
    query_ids: list[str],
    dev_share: float,
    seed: int,
    strata: Mapping[str, str | None] | None = None,
) -> dict[str, str]:
    """A seeded dev/test assignment: query id -> "dev" or "test".

    The ids are sorted then shuffled with ``random.Random(seed)``; ``round(share * n)`` go to
    dev. With ``strata`` (query id -> group) each group is split on its own so every segment
    keeps about the same dev share. The same ids, share and seed always give the same split.
    """
    if not 0.0 <= dev_share <= 1.0:
        raise InputError(f"dev share must be between 0 and 1, not {dev_share}", source="split")
    groups: dict[str, list[str]] = {}
    for qid in sorted(set(query_ids)):
        key = "" if strata is None else str(strata.get(qid) or "")
        groups.setdefault(key, []).append(qid)
    rng = random.Random(seed)
    assignment: dict[str, str] = {}
    for key in sorted(groups):
        ids = groups[key]
        rng.shuffle(ids)
        cut = round(dev_share * len(ids))
        assignment.update({qid: ("dev" if i < cut else "test") for i, qid in enumerate(ids)})
    return assignment


def assign_split(
    db: sqlite_utils.Database,
    dev_share: float,
    seed: int,
    *,
    stratify_by: str | None = None,
    only_unassigned: bool = False,
) -> SplitResult:
    """Assign a seeded dev/test split to the (non-placeholder) queries and store it.

    ``stratify_by`` names a segment attribute to split within; ``only_unassigned`` leaves
    queries that already have a split alone.
    """
    sql = "SELECT id FROM queries WHERE placeholder = 0"
    if only_unassigned:
        sql += " AND split IS NULL"
    ids = [r[0] for r in db.conn.execute(sql)]
    strata = None
    if stratify_by:
        strata = dict(db.conn.execute(
            "SELECT query_id, value FROM query_attributes WHERE name = ?", [stratify_by]
        ).fetchall())
    assignment = split_assignment(ids, dev_share, seed, strata)
    with write_transaction(db, action="assign_split") as conn:
        locked = frozen_split.locked_splits(conn)
        if locked:
            current = dict(conn.execute("SELECT id, split FROM queries WHERE placeholder = 0"))
            for qid, split in assignment.items():
                refusal = frozen_split.membership_refusal(qid, current.get(qid), split, locked)
                if refusal:
                    raise InputError(refusal, source="split")
        conn.executemany(
            "UPDATE queries SET split = ? WHERE id = ?",
            [(split, qid) for qid, split in assignment.items()],
        )
    dev = sum(1 for s in assignment.values() if s == "dev")
    return SplitResult(dev=dev, test=len(assignment) - dev)


def split_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Number of non-placeholder queries per split ("dev", "test", "none")."""
    rows = db.conn.execute(
        "SELECT coalesce(split, 'none'), count(*) FROM queries WHERE placeholder = 0 GROUP BY 1"
    ).fetchall()
    return {"dev": 0, "test": 0, "none": 0} | dict(rows)


def runs_overview(db: sqlite_utils.Database) -> pd.DataFrame:
    """One row per stored run: name, index_build, notes, created_at, queries, results."""
    return pd.read_sql_query(
        "SELECT r.name, r.index_build, r.notes, r.created_at,"
        " count(DISTINCT x.query_id) AS queries, count(x.chunk_id) AS results"
        " FROM runs r LEFT JOIN run_results x ON x.run_id = r.id WHERE NOT r.importing"
        " GROUP BY r.id ORDER BY r.id",
        db.conn,
    )


def annotators(db: sqlite_utils.Database) -> list[str]:
    """Names of everyone who has judged something, alphabetical."""
    return [r[0] for r in db.conn.execute(
        "SELECT DISTINCT annotator FROM judgments ORDER BY annotator"
    )]


# Reads and writes used by labeling.synthetic, labeling.evaluation and labeling.report


def add_synthetic_query(conn: sqlite3.Connection, query_id: str, text: str,
                        attributes: Mapping[str, str]) -> None:
    """Store query ``query_id`` (source 'synthetic') with its segment ``attributes``, in the
    caller's transaction."""
    conn.execute(
        "INSERT INTO queries (id, text, source) VALUES (?, ?, 'synthetic')", [query_id, text]
    )
    conn.executemany(
        "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)",
        [(query_id, name, value) for name, value in attributes.items()],
    )


def split_query_ids(db: sqlite_utils.Database, split: str) -> set[str]:
    """Ids of the queries in ``split`` ('dev' or 'test')."""
    return {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = ?", [split])}


def split_lock_row(db: sqlite_utils.Database, split: str) -> dict | None:
    """The ``split_locks`` row of ``split`` (split, locked_by, locked_at, snapshot_hash, rule),
    or None."""
    rows = list(db.query("SELECT * FROM split_locks WHERE split = ?", [split]))
    return rows[0] if rows else None


def add_split_lock(conn: sqlite3.Connection, split: str, locked_by: str, locked_at: str,
                   snapshot_hash: str, rule: str) -> bool:
    """Lock ``split`` in the caller's transaction; False (nothing written) when it already is."""
    if conn.execute("SELECT 1 FROM split_locks WHERE split = ?", [split]).fetchone():
        return False
    conn.execute(
        "INSERT INTO split_locks (split, locked_by, locked_at, snapshot_hash, rule)"
        " VALUES (?, ?, ?, ?, ?)", (split, locked_by, locked_at, snapshot_hash, rule),
    )
    return True


def remove_split_lock(conn: sqlite3.Connection, split: str) -> None:
    """Lift the lock of ``split`` (nothing when it is not locked)."""
    conn.execute("DELETE FROM split_locks WHERE split = ?", [split])


def queries_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every query: id, text, source, split."""
    return pd.read_sql_query("SELECT id, text, source, split FROM queries", db.conn)


def attributes_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every segment attribute: query_id, name, value."""
    return pd.read_sql_query("SELECT query_id, name, value FROM query_attributes", db.conn)


def queries_arrived_without_results(db: sqlite_utils.Database, after_seq: int,
                                    run_id: int) -> set[str]:
    """Ids of the queries that arrived after arrival number ``after_seq`` and have no result
    in run ``run_id``."""
    return {r[0] for r in db.conn.execute(
        "SELECT a.query_id FROM query_arrivals a WHERE a.seq > ? AND NOT EXISTS ("
        " SELECT 1 FROM run_results r WHERE r.run_id = ? AND r.query_id = a.query_id)",
        [after_seq, run_id],
    )}
# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.files and labeling.rechunking


def upsert_queries(
    conn: sqlite3.Connection, rows: list[tuple], narratives: list[tuple],
    attributes: list[tuple],
) -> None:
    """Insert or replace queries by id in the caller's transaction, by ``executemany``: ``rows``
    of (id, text, source, split, metadata JSON) (a placeholder becomes a real query),
    ``narratives`` of (narrative, id) for those whose file has one, and ``attributes`` of
    (query id, name, value), which replace all segment attributes of the ``rows``' queries."""
    conn.executemany(
        "INSERT INTO queries (id, text, source, split, metadata, placeholder)"
        " VALUES (?, ?, ?, ?, ?, 0)"
        " ON CONFLICT (id) DO UPDATE SET text = excluded.text, source = excluded.source,"
        " split = excluded.split, metadata = excluded.metadata, placeholder = 0",
        rows,
    )
    conn.executemany("UPDATE queries SET narrative = ? WHERE id = ?", narratives)
    conn.executemany("DELETE FROM query_attributes WHERE query_id = ?", ((r[0],) for r in rows))
    conn.executemany(
        "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)", attributes
    )


def split_query_texts(conn: sqlite3.Connection, split: str | None) -> list[tuple[str, str]]:
    """(id, text) of the queries of ``split`` (every split: None), placeholders left out, in
    the order they were stored."""
    return conn.execute(
        "SELECT id, coalesce(text, '') FROM queries WHERE placeholder = 0"
        " AND (:split IS NULL OR split = :split) ORDER BY rowid", {"split": split}).fetchall()


def stored_queries_frame(conn: sqlite3.Connection) -> pd.DataFrame:
    """Non-placeholder queries in the order they were added: _id, text ('' when missing),
    source, split, metadata (JSON text)."""
    return pd.read_sql_query(
        "SELECT id AS _id, coalesce(text, '') AS text, source, split, metadata FROM queries"
        " WHERE placeholder = 0 ORDER BY rowid", conn)


def all_attributes(conn: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """Query id -> its segment attributes (name -> value)."""
    attributes: dict[str, dict[str, str]] = {}
    for qid, name, value in conn.execute("SELECT query_id, name, value FROM query_attributes"):
        attributes.setdefault(qid, {})[name] = value
    return attributes
