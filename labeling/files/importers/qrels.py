"""Qrels files (TREC, CSV, JSON lines...) appended as judgments by one annotator."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import InputError, ScorecardError
from labeling.files import formats
from labeling.files.importers.ids import ensure_pair_ids
from labeling.files.importers.lines import RowLines, batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import judgments
from labeling.workspace.evidence import add_evidence, check_spans, chunk_places
from labeling.workspace.provenance import add_pair_sources, check_origin
from labeling.workspace.store import utc_now

if TYPE_CHECKING:
    import sqlite_utils


def import_qrels(
    db: sqlite_utils.Database,
    path: str | Path,
    annotator: str | None = None,
    strict: bool = False,
    *,
    format: str | None = None,
    origin: str = "import",
    source_name: str | None = None,
) -> ImportResult:
    """Append a qrels file (TREC/CSV/JSONL...) as judgments of ``origin`` ``import`` unless the
    caller knows better (the demo's files hold its two annotators' hand judgments).

    The file's name (``source_name``, by default the name of ``path``) is each row's
    ``origin_source``, and the annotator the rows are recorded under unless ``annotator`` names
    another. Imported labels are never recorded under a person's name: an annotator name that
    has judgments of origin ``person`` or is an account is refused, unless ``origin`` is
    ``person``."""
    check_origin(origin)
    source = str(path)
    file_name = (source_name or "").strip() or Path(source).name
    if origin == "person" and not (annotator or "").strip():
        raise InputError("hand judgments need the name of the person who made them",
                         source=source)
    annotator = (annotator or "").strip() or file_name
    with import_transaction(db, source) as conn:
        if origin != "person":
            _refuse_a_person(conn, annotator, source)
        result = store_qrels(
            conn,
            batches(formats.iter_qrels_batches(path, format=format), path, format),
            annotator=annotator,
            strict=strict,
            source=source,
            origin=origin,
            origin_source=file_name,
        )
        if result.rows == 0:
            raise InputError("no judgments in the file", source=source)
    return result


def store_qrels(
    conn: sqlite3.Connection,
    frames: Iterable[tuple[pd.DataFrame, RowLines]],
    *,
    annotator: str,
    strict: bool,
    source: str,
    origin: str = "import",
    origin_source: str | None = None,
) -> ImportResult:
    """Store qrels batches as judgments (one timestamp for all), placeholders for unknown ids;
    each pair is recorded as reached through an ``import`` of the file (``pair_sources``)."""
    result = ImportResult("qrels")
    scale = judgments.scale_grades(conn)
    created_at = utc_now()
    added_q = added_c = 0  # placeholder queries and chunks
    for batch, lines in frames:
        grades = batch["relevance"]
        off = ~grades.isin(scale).to_numpy()
        if off.any():
            row = int(np.argmax(off))
            raise InputError(
                f"grade {grades.iloc[row]} is not on the workspace scale {sorted(scale)}",
                source=source,
                line=int(lines[row]),
            )
        queries, chunks = ensure_pair_ids(conn, batch, lines, strict=strict, source=source)
        added_q, added_c = added_q + queries, added_c + chunks
        evidence = _checked_evidence(conn, batch, lines, source)
        before = judgments.last_judgment_id(conn)
        judgments.append_imported_judgments(
            conn,
            zip(
                batch["query_id"].tolist(),
                batch["doc_id"].tolist(),
                grades.astype("int64").tolist(),
                [annotator] * len(batch),
                [created_at] * len(batch),
                [origin] * len(batch),
                [origin_source or Path(source).name] * len(batch),
                strict=True,
            ),
        )
        _store_evidence(conn, evidence, before, len(batch))
        add_pair_sources(conn, zip(batch["query_id"].tolist(), batch["doc_id"].tolist(),
                                   strict=True), "import", detail=Path(source).name)
        result.rows += len(batch)
    result.add_placeholders(added_q, added_c)
    return result


def _checked_evidence(
    conn: sqlite3.Connection, batch: pd.DataFrame, lines: RowLines, source: str
) -> dict[int, list]:
    """The evidence of the batch's rows that have some (row -> spans), each checked against
    its chunk's place; ``InputError`` naming the line of the first that does not fit."""
    if "evidence" not in batch.columns:
        return {}
    rows = {row: spans for row, spans in enumerate(batch["evidence"].tolist()) if spans}
    if not rows:
        return {}
    chunk_ids = batch["doc_id"].tolist()
    grades = batch["relevance"].tolist()
    places = chunk_places(conn, (chunk_ids[row] for row in rows))
    for row, spans in rows.items():
        check_spans(chunk_ids[row], int(grades[row]), spans, places.get(chunk_ids[row]),
                    source=source, line=int(lines[row]))
    return rows


def _store_evidence(
    conn: sqlite3.Connection, evidence: dict[int, list], before: int, rows: int
) -> None:
    """Store the batch's evidence: row ``i`` of the batch became judgment ``before + 1 + i``
    (ids are consecutive inside the import's write lock; checked)."""
    if not evidence:
        return
    if judgments.last_judgment_id(conn) - before != rows:
        raise ScorecardError("the imported judgments did not get consecutive ids; nothing saved")
    for row, spans in evidence.items():
        add_evidence(conn, before + 1 + row, spans)


def _refuse_a_person(conn: sqlite3.Connection, annotator: str, source: str) -> None:
    """Refuse to record imported labels under the name of someone who judges here."""
    if judgments.judges_as_person(conn, annotator):
        raise InputError(
            f"{annotator!r} is a person who judges in this workspace; imported labels are "
            "recorded under a name of their own (by default the file's name)",
            source=source,
        )
