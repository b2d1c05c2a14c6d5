"""Ids of an import checked against the workspace: unknown ones (placeholders, or refused when
strict), repeated ones (in a batch or across the batches of one import), and the id column."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import numpy as np
import pandas as pd

from labeling.errors import InputError
from labeling.files.importers.lines import RowLines
from labeling.workspace import imports


def pick_column(columns: Iterable[str], names: tuple[str, ...]) -> str | None:
    """The first of ``names`` among ``columns``, or None."""
    present = set(columns)
    return next((n for n in names if n in present), None)


def ensure_ids(
    conn: sqlite3.Connection,
    table: str,
    ids: pd.Series,
    lines: RowLines,
    *,
    strict: bool,
    source: str,
) -> int:
    """Insert placeholders for unknown ids (or raise when strict); return how many were added."""
    unknown = missing_ids(conn, table, ids, lines, strict=strict, source=source)
    if not unknown:
        return 0
    imports.insert_placeholders(conn, table, unknown)
    return len(unknown)


def missing_ids(
    conn: sqlite3.Connection,
    table: str,
    ids: pd.Series,
    lines: RowLines,
    *,
    strict: bool,
    source: str,
) -> list[str]:
    """The distinct ``ids`` not in ``table``; when ``strict``, an unknown id is an error naming
    its line instead."""
    distinct = pd.unique(ids.to_numpy(dtype=object))
    unknown = imports.unknown_ids(conn, table, distinct.tolist())
    if unknown and strict:
        row = int(np.argmax(ids.isin(unknown).to_numpy()))
        noun = "chunk" if table == "chunks" else "query"
        raise InputError(
            f"unknown {noun} id {ids.iloc[row]!r} (strict mode; import the {table} first)",
            source=source,
            line=int(lines[row]),
        )
    return unknown


def first_duplicate(frame: pd.DataFrame, columns: list[str]) -> int | None:
    """Position of the first row repeating an earlier row's ``columns``, or None."""
    dup = frame.duplicated(columns).to_numpy()
    return int(np.argmax(dup)) if dup.any() else None


def unique_ids(
    conn: sqlite3.Connection,
    batch: pd.DataFrame,
    id_col: str,
    kind: str,
    lines: RowLines,
    source: str,
) -> pd.Series:
    """The batch's ids as strings; an id that is missing or repeats (in the batch or an earlier
    batch of this import) is an error naming its line."""
    ids = batch[id_col].astype("string")
    if ids.isna().any():
        row = int(np.argmax(ids.isna().to_numpy()))
        raise InputError(f"{kind} without an id", source=source, line=int(lines[row]))
    dup = first_duplicate(batch.assign(_id=ids), ["_id"])
    seen = _seen_before(conn, ids)
    if dup is not None or seen is not None:
        row = dup if seen is None or (dup is not None and dup < seen) else seen
        raise InputError(
            f"{kind} id {ids.iloc[row]!r} appears twice", source=source, line=int(lines[row])
        )
    return ids


def _seen_before(conn: sqlite3.Connection, ids: pd.Series) -> int | None:
    """Track ids across batches of one import; position of the first id seen in an earlier one."""
    again = imports.seen_before(conn, ids.tolist())
    if not again:
        return None
    return int(np.argmax(ids.isin(again).to_numpy()))


def ensure_pair_ids(
    conn: sqlite3.Connection, batch: pd.DataFrame, lines: RowLines, *, strict: bool, source: str
) -> tuple[int, int]:
    """``ensure_ids`` for the query and doc ids of a qrels or run batch: (queries, chunks) added."""
    queries = ensure_ids(conn, "queries", batch["query_id"], lines, strict=strict, source=source)
    chunks = ensure_ids(conn, "chunks", batch["doc_id"], lines, strict=strict, source=source)
    return queries, chunks
