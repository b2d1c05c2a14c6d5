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

import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.workspace import roles
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
        # A locked split (labeling.evaluation.inputs.locked_splits.lock_split) is frozen.
        locked = conn.execute(
            "SELECT q.split FROM queries q JOIN split_locks l ON l.split = q.split WHERE q.id = ?",
            (query_id,),
        ).fetchone()
        if locked:
            raise ScorecardError(
                f"query {query_id!r} is in the {locked[0]} split, which is locked: "
                "its labels cannot change until the split is unlocked"
            )
        try:
            # RETURNING, not lastrowid: the id of this statement's row, whatever else the
            # connection or the file saw meanwhile.
            cursor = conn.execute(
                "INSERT INTO judgments"
                " (query_id, chunk_id, grade, annotator, created_at, note, flags, origin,"
                " origin_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    query_id,
                    chunk_id,
                    grade,
                    annotator,
                    created_at or utc_now(),
                    note,
                    json.dumps(flags, sort_keys=True),
                    origin,
                    origin_source,
                ),
            )
            judgment_id = int(cursor.fetchone()[0])
        except sqlite3.IntegrityError as error:
            if "FOREIGN KEY" in str(error):
                raise InputError(
                    f"unknown query {query_id!r} or chunk {chunk_id!r}", source="judgment"
                ) from error
            raise InputError(f"grade {grade} is not on the scale", source="judgment") from error
        if evidence:
            spans = parse_spans(list(evidence), source="judgment")
            check_spans(chunk_id, grade, spans, chunk_places(conn, [chunk_id]).get(chunk_id))
            add_evidence(conn, judgment_id, spans)
        return judgment_id


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
