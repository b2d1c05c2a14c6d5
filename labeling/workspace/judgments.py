"""Judgments: append-only, one row per decision of one annotator on one (query, chunk) pair.

Conventions
- ``judgments`` is append-only (triggers abort UPDATE and DELETE); ``current_judgments`` is the
  latest row per (query, chunk, annotator). ``grade`` is NULL when the annotator could not judge.
- ``flags`` is a JSON object: ``unsure``, ``cant_judge``, ``adjudicated``, ``generator``,
  ``confirm`` (bools).
- ``origin`` / ``origin_source`` say who or what decided (``labeling.workspace.provenance``).
- A relevant judgment may carry evidence spans (``labeling.workspace.evidence``), stored with it.
- ``inferred`` marks a label whose grade was located rather than read (a transfer that placed the
  answer in a piece of a split chunk by matching the query: ``labeling.rechunking``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator

import pandas as pd
import pyarrow as pa
import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.workspace import roles
from labeling.workspace.columnar import read_columns, table_of_rows
from labeling.workspace.evidence import (
    Span,
    add_evidence,
    check_spans,
    chunk_places,
    evidence_of,
    parse_spans,
)
from labeling.workspace.provenance import check_origin
from labeling.workspace.store import utc_now, write_transaction

JUDGMENT_FLAGS = ("unsure", "cant_judge", "adjudicated", "generator", "confirm", "inferred")


# ---------------------------------------------------------------------------------------------
# Judgments (append-only)


def add_judgment(
    db: sqlite_utils.Database,
    query_id: str,
    chunk_id: str,
    grade: int | None,
    annotator: str,
    *,
    note: str | None = None,
    flags: dict[str, bool] | None = None,
    created_at: str | None = None,
    origin: str = "person",
    origin_source: str | None = None,
    evidence: list[Span] | None = None,
) -> int:
    """Append one judgment and return its id. ``grade=None`` means the annotator could not judge.
    ``origin`` is one of ``provenance.ORIGINS`` (a person judging in the app by default).
    ``evidence``: spans of the chunk's document that answer the query (a relevant grade only;
    ``labeling.workspace.evidence``), stored with the judgment in the same transaction.

    Raises ``InputError`` for a grade off the scale, an unknown query/chunk id or evidence that
    does not fit the chunk.
    """
    flags = {k: bool(v) for k, v in (flags or {}).items() if v}
    check_origin(origin)
    unknown = set(flags) - set(JUDGMENT_FLAGS)
    if unknown:
        raise InputError(f"unknown judgment flags {sorted(unknown)}", source="judgment")
    with write_transaction(db, action="judge") as conn:
        _check_own_name(db, annotator, origin)
        _refuse_locked_split(conn, query_id)
        judgment_id = _insert_judgment(conn, (
            query_id, chunk_id, grade, annotator, created_at or utc_now(), note,
            json.dumps(flags, sort_keys=True), origin, origin_source,
        ))
        if evidence:
            spans = parse_spans(list(evidence), source="judgment")
            check_spans(chunk_id, grade, spans, chunk_places(conn, [chunk_id]).get(chunk_id))
            add_evidence(conn, judgment_id, spans)
        return judgment_id


def _refuse_locked_split(conn: sqlite3.Connection, query_id: str) -> None:
    """A locked split (``labeling.evaluation.inputs.locked_splits.lock_split``) is frozen."""
    locked = conn.execute(
        "SELECT q.split FROM queries q JOIN split_locks l ON l.split = q.split WHERE q.id = ?",
        (query_id,),
    ).fetchone()
    if locked:
        raise ScorecardError(
            f"query {query_id!r} is in the {locked[0]} split, which is locked: "
            "its labels cannot change until the split is unlocked"
        )


def _insert_judgment(conn: sqlite3.Connection, row: tuple) -> int:
    """Insert one judgment row (query_id, chunk_id, grade, annotator, created_at, note, flags,
    origin, origin_source) and return its id."""
    try:
        # RETURNING, not lastrowid: the id of this statement's row, whatever else the
        # connection or the file saw meanwhile.
        cursor = conn.execute(
            "INSERT INTO judgments"
            " (query_id, chunk_id, grade, annotator, created_at, note, flags, origin,"
            " origin_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            row,
        )
        return int(cursor.fetchone()[0])
    except sqlite3.IntegrityError as error:
        query_id, chunk_id, grade = row[:3]
        if "FOREIGN KEY" in str(error):
            raise InputError(
                f"unknown query {query_id!r} or chunk {chunk_id!r}", source="judgment"
            ) from error
        raise InputError(f"grade {grade} is not on the scale", source="judgment") from error


def _check_own_name(db: sqlite_utils.Database, annotator: str, origin: str) -> None:
    """Refuse a judgment saved under another person's name unless the actor (the signed-in
    account, ``roles.current_actor``) is an admin or the trusted owner (``None``). A label
    from a machine or a generator carries its own name, which may not be a person's account.
    """
    actor = roles.current_actor(db)
    if actor is None or actor == annotator or not roles.accounts_enabled(db):
        return
    if roles.role_of(db, actor) == "admin":
        return
    if origin == "person" or roles.role_of(db, annotator) is not None:
        raise roles.AccessDenied(
            f"{actor or 'nobody signed in'} cannot save a judgment under the name "
            f"{annotator!r}: only an admin may save for another person (nothing was saved)"
        )


def judgment_history(
    db: sqlite_utils.Database, query_id: str | None = None, chunk_id: str | None = None
) -> list[dict]:
    """All judgments (oldest first), optionally for one query and/or chunk; flags decoded,
    ``evidence`` the judgment's spans (``[]`` for none)."""
    where, params = [], []
    if query_id is not None:
        where.append("query_id = ?")
        params.append(query_id)
    if chunk_id is not None:
        where.append("chunk_id = ?")
        params.append(chunk_id)
    sql = "SELECT * FROM judgments" + (" WHERE " + " AND ".join(where) if where else "")
    rows = list(db.query(sql + " ORDER BY id", params))
    evidence = evidence_of(db.conn, [row["id"] for row in rows])
    for row in rows:
        row["flags"] = json.loads(row["flags"])
        row["evidence"] = evidence.get(row["id"], [])
    return rows


# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.judging and labeling.machine_judging


def judgment_owner(db: sqlite_utils.Database, judgment_id: int) -> tuple[str, str, str] | None:
    """(query_id, chunk_id, annotator) of a judgment, None when there is no such id."""
    row = db.conn.execute(
        "SELECT query_id, chunk_id, annotator FROM judgments WHERE id = ?", [judgment_id]
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def previous_judgment(db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str,
                      before_id: int) -> dict | None:
    """The grade, note and flags (decoded) of ``annotator``'s last judgment of the pair before
    judgment ``before_id``; None when there is none."""
    rows = list(db.query(
        "SELECT grade, note, flags FROM judgments WHERE query_id = ? AND chunk_id = ?"
        " AND annotator = ? AND id < ? ORDER BY id DESC LIMIT 1",
        [query_id, chunk_id, annotator, before_id],
    ))
    if not rows:
        return None
    return {**rows[0], "flags": json.loads(rows[0]["flags"])}


def latest_grade(db: sqlite_utils.Database, query_id: str, chunk_id: str,
                 annotator: str) -> int | None:
    """The grade of ``annotator``'s latest judgment of the pair (None: never judged, can't
    judge or withdrawn)."""
    row = db.conn.execute(
        "SELECT grade FROM judgments WHERE query_id = ? AND chunk_id = ? AND annotator = ?"
        " ORDER BY id DESC LIMIT 1",
        [query_id, chunk_id, annotator],
    ).fetchone()
    return None if row is None else row[0]


def any_machine_judgment(db: sqlite_utils.Database) -> bool:
    """Whether any judgment of origin ``machine`` is stored."""
    return bool(db.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM judgments WHERE origin = 'machine')").fetchone()[0])


def current_labels_of_chunks(db: sqlite_utils.Database, query_id: str,
                             chunk_ids: list[str]) -> list[tuple[str, str, int | None, str]]:
    """(chunk_id, annotator, grade, origin) of the current judgments of ``query_id``'s pairs
    with ``chunk_ids``, by annotator."""
    return db.conn.execute(
        "SELECT chunk_id, annotator, grade, origin FROM current_judgments WHERE query_id = ?"
        " AND chunk_id IN (SELECT value FROM json_each(?)) ORDER BY annotator",
        [query_id, json.dumps(list(chunk_ids))],
    ).fetchall()


def person_judgment_times(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(annotator, created_at) of every judgment made in the app by a person (origin
    ``person``, no ``origin_source``), oldest first."""
    return db.conn.execute(
        "SELECT annotator, created_at FROM judgments"
        " WHERE origin = 'person' AND origin_source IS NULL ORDER BY id"
    ).fetchall()


_PEOPLE_ON_PAIRS_OF = """
SELECT j.query_id, j.chunk_id, j.annotator, j.grade, j.id,
       coalesce(json_extract(j.flags, '$.adjudicated'), 0) AS adjudicated
FROM judgments j
WHERE (j.query_id, j.chunk_id) IN (SELECT DISTINCT query_id, chunk_id FROM judgments
                                   WHERE annotator = ? AND origin IN ('person', 'unknown'))
  AND j.origin IN ('person', 'unknown')
ORDER BY j.id
"""


def people_on_pairs_of(db: sqlite_utils.Database, annotator: str) -> list[tuple]:
    """(query_id, chunk_id, annotator, grade, id, adjudicated 0/1) of every judgment by people
    (origin ``person`` or ``unknown``) of the pairs ``annotator`` judged, oldest first."""
    return db.conn.execute(_PEOPLE_ON_PAIRS_OF, [annotator]).fetchall()


_CURRENT_GRADED = """
SELECT id, query_id, chunk_id, grade, annotator,
       coalesce(json_extract(flags, '$.adjudicated'), 0) AS adjudicated,
       {generator} AS generator,
       {last}
FROM current_judgments
WHERE grade IS NOT NULL
"""


def current_graded(db: sqlite_utils.Database, *, machine_column: bool = False) -> pd.DataFrame:
    """Current graded judgments (NULL grades left out), one row per annotator and pair, as
    stored: id, query_id, chunk_id, grade, annotator, adjudicated (0/1), generator, then
    ``origin`` (text) or, with ``machine_column``, ``machine`` (1 for origin ``machine``).
    ``generator`` is the flag, or with ``origin`` also 1 for a transferred label."""
    if machine_column:
        sql = _CURRENT_GRADED.format(
            generator="coalesce(json_extract(flags, '$.generator'), 0)",
            last="origin = 'machine' AS machine")
    else:
        sql = _CURRENT_GRADED.format(
            generator="(coalesce(json_extract(flags, '$.generator'), 0)"
                      " OR origin = 'transferred')",
            last="origin")
    return pd.read_sql_query(sql, db.conn)


# Each judgment's part in a consensus rule, as bits of one small integer computed by SQLite:
# the flags are parsed only where there are some (most judgments have none: '{}'), as
# ``current_graded`` reads them (json_extract, then truthiness).
ADJUDICATED, GENERATOR, TRANSFERRED, MACHINE = 1, 2, 4, 8
_KIND = (
    "CASE WHEN flags = '{}' THEN 0 ELSE"
    " (coalesce(json_extract(flags, '$.adjudicated'), 0) != 0)"
    " + 2 * (coalesce(json_extract(flags, '$.generator'), 0) != 0) END"
    " + 4 * (origin IS 'transferred') + 8 * (origin IS 'machine')"
)
_TEXT_COLUMNS = {"query_id": "query_id", "chunk_id": "chunk_id", "annotator": "annotator"}
# The grade and the kind in one integer, ``grade * 16 + kind`` (null when the annotator could
# not judge): one column fewer to pack and parse (0.1 s of 1.0 for 1M judgments).
_INTEGER_COLUMNS = {"grade_kind": f"grade * 16 + ({_KIND})"}
JUDGMENT_COLUMNS = (*_TEXT_COLUMNS, *_INTEGER_COLUMNS)  # what ``judgment_columns`` returns


def judgment_columns(db: sqlite_utils.Database, after_id: int = 0) -> pa.Table:
    """Every judgment with id above ``after_id``, oldest first (by id), as Arrow columns
    (``columnar.read_columns``): query_id, chunk_id, annotator and grade_kind: ``grade * 16 +
    kind`` (null: could not judge), kind holding the bits ``ADJUDICATED``, ``GENERATOR`` from
    the flags, ``TRANSFERRED``, ``MACHINE`` from the origin."""
    return read_columns(
        db.conn, "judgments", key="id", text=_TEXT_COLUMNS, integer=_INTEGER_COLUMNS,
        where="id > ?" if after_id else "", params=[after_id] if after_id else [],
    )


def query_judgment_columns(db: sqlite_utils.Database, query_ids: list[str]) -> pa.Table:
    """``judgment_columns`` of ``query_ids`` alone, read through the judgments' pair index."""
    expressions = ", ".join([*_TEXT_COLUMNS.values(), *_INTEGER_COLUMNS.values()])
    rows = db.conn.execute(
        f"SELECT {expressions} FROM judgments"
        " WHERE query_id IN (SELECT value FROM json_each(?)) ORDER BY id",
        [json.dumps(list(query_ids))],
    ).fetchall()
    return table_of_rows(rows, {name: pa.string() if name in _TEXT_COLUMNS else pa.int64()
                                for name in JUDGMENT_COLUMNS})


def annotators_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """One row per annotator of any judgment: annotator, origin (their distinct origins,
    comma-separated, unordered), sources (distinct ``origin_source`` values, comma-separated,
    '' when none), judgments (rows), pairs (distinct pairs); no order."""
    return pd.read_sql_query(
        "SELECT annotator, group_concat(DISTINCT origin) AS origin,"
        " coalesce(group_concat(DISTINCT origin_source), '') AS sources,"
        " count(*) AS judgments, count(DISTINCT query_id || char(31) || chunk_id) AS pairs"
        " FROM judgments GROUP BY annotator",
        db.conn,
    )
# Reads and writes used by labeling.evaluation

# The current judgments (each annotator's latest row per pair) as they stood after a given
# judgment id, graded ones only, with the flags consensus reads.
_AS_OF_SQL = """
SELECT j.id, j.query_id, j.chunk_id, j.grade, j.annotator,
       coalesce(json_extract(j.flags, '$.adjudicated'), 0) AS adjudicated,
       coalesce(json_extract(j.flags, '$.generator'), 0) AS generator
FROM judgments j
JOIN (SELECT max(id) AS id FROM judgments WHERE id <= ? GROUP BY query_id, chunk_id, annotator)
USING (id)
WHERE j.grade IS NOT NULL
"""

# Pairs whose every current non-machine judgment is a transferred, inferred one.
_INFERRED_PAIRS_SQL = """
SELECT query_id, chunk_id FROM judgments
WHERE id IN (SELECT max(id) FROM judgments GROUP BY query_id, chunk_id, annotator)
  AND origin <> 'machine'
GROUP BY query_id, chunk_id
HAVING min(origin = 'transferred' AND coalesce(json_extract(flags, '$.inferred'), 0)) = 1
"""


def last_judgment(db: sqlite_utils.Database) -> tuple[int, str] | None:
    """(id, created_at) of the newest judgment, or None when there is none."""
    row = db.conn.execute(
        "SELECT id, created_at FROM judgments ORDER BY id DESC LIMIT 1"
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def judgment_time(db: sqlite_utils.Database, judgment_id: int) -> str | None:
    """created_at of judgment ``judgment_id``, or None when there is none."""
    row = db.conn.execute("SELECT created_at FROM judgments WHERE id = ?",
                          [judgment_id]).fetchone()
    return None if row is None else str(row[0])


def judgment_count(db: sqlite_utils.Database) -> int:
    """How many judgment rows the log holds."""
    return int(db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0])


def judgment_ids(db: sqlite_utils.Database) -> list[int]:
    """Every judgment id, oldest first."""
    return [row[0] for row in db.conn.execute("SELECT id FROM judgments ORDER BY id")]


def queries_judged_after(db: sqlite_utils.Database, after_id: int, rows: int) -> list[str]:
    """The query id of each of the first ``rows`` judgments after ``after_id``, in id order."""
    return [r[0] for r in db.conn.execute(
        "SELECT query_id FROM judgments WHERE id > ? ORDER BY id LIMIT ?",  # by rowid
        [after_id, rows],
    ).fetchall()]


AS_OF_COLUMNS = ("id", "query_id", "chunk_id", "grade", "annotator", "adjudicated", "generator")


def current_judgments_as_of(db: sqlite_utils.Database, last_id: int) -> list[tuple]:
    """The graded current judgments after judgment ``last_id``, as rows of ``AS_OF_COLUMNS``
    (adjudicated and generator: the flags, 0/1)."""
    return db.conn.execute(_AS_OF_SQL, [int(last_id)]).fetchall()


def inferred_pairs(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(query_id, chunk_id) of the pairs whose current people's labels are all inferred by a
    label transfer (``flags.inferred``) and that no one has judged since."""
    return db.conn.execute(_INFERRED_PAIRS_SQL).fetchall()
# Reads and writes used by labeling.files and labeling.rechunking


def scale_grades(conn: sqlite3.Connection) -> list[int]:
    """The grades of the workspace's scale (``scale`` rows), in stored order."""
    return [r[0] for r in conn.execute("SELECT grade FROM scale")]


def last_judgment_id(conn: sqlite3.Connection) -> int:
    """The id the last judgment ever appended got (0 when none): the next ones, appended inside
    one write lock, get consecutive ids after it."""
    return int(conn.execute(
        "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'judgments'), 0)"
    ).fetchone()[0])


def append_imported_judgments(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """Append judgments without note or flags by one ``executemany``: rows of (query_id,
    chunk_id, grade, annotator, created_at, origin, origin_source)."""
    conn.executemany(
        "INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at, flags,"
        " origin, origin_source) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)",
        rows,
    )


def judges_as_person(conn: sqlite3.Connection, name: str) -> bool:
    """Whether ``name`` has judgments of origin ``person`` or is an account's name."""
    return conn.execute(
        "SELECT 1 FROM judgments WHERE annotator = ? AND origin = 'person'"
        " UNION ALL SELECT 1 FROM users WHERE name = ? LIMIT 1",
        [name, name],
    ).fetchone() is not None


# The current relevant judgments of people (each annotator's latest of a pair) with evidence.
_PAIR_EVIDENCE_SQL = """
SELECT j.query_id, j.chunk_id, e.start, e."end" FROM judgments j
JOIN judgment_evidence e ON e.judgment_id = j.id
WHERE j.id IN (SELECT max(id) FROM judgments GROUP BY query_id, chunk_id, annotator)
  AND j.grade >= 1 AND j.origin <> 'machine'
"""


def current_relevant_spans(conn: sqlite3.Connection) -> list[tuple[str, str, int, int]]:
    """(query_id, chunk_id, start, end) of every evidence span of a current relevant judgment
    (each annotator's latest of a pair, grade 1 or more) not made by a machine judge."""
    return conn.execute(_PAIR_EVIDENCE_SQL).fetchall()


def judgment_batches(
    conn: sqlite3.Connection, columns: tuple[str, ...], batch_rows: int = 10_000
) -> Iterator[list[tuple]]:
    """Every judgment's ``columns`` (names of ``judgments`` columns), oldest first, in lists
    of up to ``batch_rows`` rows."""
    cursor = conn.execute(f"SELECT {', '.join(columns)} FROM judgments ORDER BY id")
    while rows := cursor.fetchmany(batch_rows):
        yield rows
