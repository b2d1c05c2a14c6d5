"""A chunk set: a named chunking of the workspace's documents, each chunk with its span.

Conventions
- Records (JSON lines, CSV/TSV, Parquet): ``id`` (or ``_id``, ``chunk_id``), ``doc_id`` (the
  document, imported first) and ``text``; optional ``title``, ``start`` and ``end`` (character
  offsets into the document, end exclusive; aliases ``char_start``/``char_end``,
  ``start_char``/``end_char``, ``start_index``/``end_index``) and ``doc_version`` (default: the
  document's current version); other fields are kept as metadata.
- With offsets, ``text[start:end]`` of the document must be the chunk's text (exactly, or equal
  once whitespace is normalised). Without them the chunk's text is looked for in its document
  (``labeling.files.text_spans``), after the previous chunk of the same document first.
- Without ``text``, the id must name a chunk the workspace holds: its stored text is used (so
  the chunks of a workspace made before chunk sets can be given their documents and spans).
- A chunk id the workspace holds already must describe the same text: with a span, the same
  document, version and span (then the chunk simply belongs to both chunk sets); without one,
  the same text once normalised. Otherwise the import stops: give each chunking its own ids.
- Every chunk that cannot be placed is reported (its id and line, up to ``SHOWN_FAILURES`` of
  them) and nothing of the file is written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.formats.values import is_missing, plain_value
from labeling.files.importers import cells
from labeling.files.importers.ids import pick_column, unique_ids
from labeling.files.importers.lines import RowLines, batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.files.text_spans import DocumentText, normalise
from labeling.workspace import chunk_sets as stored_sets
from labeling.workspace import chunk_store, ids
from labeling.workspace.imports import forget_seen
from labeling.workspace.store import utc_now

if TYPE_CHECKING:
    import sqlite_utils

CHUNK_ID = ("id", "_id", "chunk_id")
DOC_ID = ("doc_id", "document_id", "docid")
START = ("start", "char_start", "start_char", "start_index")
END = ("end", "char_end", "end_char", "end_index")
SHOWN_FAILURES = 10


@dataclass
class _Placement:
    """Where the chunks of one document were found so far (the search hint)."""

    document: DocumentText
    version: str
    title: str | None
    last_start: int = -1


class _Failures:
    """Chunks that could not be placed: (their batch's lines, row, chunk id, why). Lines are
    counted in the file only for the failures shown."""

    def __init__(self) -> None:
        self.items: list[tuple[RowLines, int, str, str]] = []

    def add(self, where: tuple[RowLines, int], chunk_id: str, why: str) -> None:
        self.items.append((*where, chunk_id, why))

    def raise_if_any(self, source: str) -> None:
        if not self.items:
            return
        shown = [(int(lines[row]), cid, why) for lines, row, cid, why in
                 self.items[:SHOWN_FAILURES]]
        listed = "; ".join(f"{cid!r} (line {line}): {why}" for line, cid, why in shown)
        more = len(self.items) - SHOWN_FAILURES
        raise InputError(
            f"{len(self.items)} chunks could not be placed in their documents, so nothing was "
            f"imported: {listed}" + (f"; and {more} more" if more > 0 else ""),
            source=source, line=shown[0][0],
        )


def import_chunk_set(
    db: sqlite_utils.Database,
    path: str | Path,
    name: str,
    *,
    splitter: str | None = None,
    size: int | None = None,
    overlap: int | None = None,
    notes: str | None = None,
) -> ImportResult:
    """Store the chunks of ``path`` as the new chunk set ``name`` with their document spans.

    ``splitter``, ``size`` and ``overlap`` describe the chunking (free text and characters).
    All or nothing: an unknown document, a chunk not found in its document or an id that
    names another text leaves the workspace unchanged.
    """
    source = str(path)
    name = _check_name(name, source)
    result = ImportResult("chunk set")
    with import_transaction(db, source) as conn:
        if stored_sets.has_chunk_set(conn, name):
            raise InputError(f"a chunk set named {name!r} already exists (a chunk set does not "
                             "change; import the new chunking under a new name)", source=source)
        stored_sets.insert_chunk_set(
            conn, name, splitter or None, _count(size, "size", source),
            _count(overlap, "overlap", source, zero=True), notes or None, utc_now(),
        )
        placements: dict[str, _Placement] = {}
        failures = _Failures()
        try:
            for batch, lines in batches(formats.iter_record_batches(path), path, None):
                _store_batch(conn, name, batch, lines, source, placements, failures, result)
        finally:
            forget_seen(conn)
        failures.raise_if_any(source)
        if result.rows == 0:
            raise InputError("no chunks in the file", source=source)
    return result


def _check_name(name: str, source: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InputError("give the chunk set a name", source=source)
    reason = ids.problem("chunk set name", name)
    if reason is not None:
        raise InputError(reason, source=source)
    return name


def _count(value: Any, what: str, source: str, zero: bool = False) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        raise InputError(f"the chunk set's {what} must be a whole number of characters, "
                         f"not {value!r}", source=source) from None
    if number < 0 or (number == 0 and not zero):
        raise InputError(f"the chunk set's {what} must be {'0 or more' if zero else 'positive'}",
                         source=source)
    return number


def _store_batch(
    conn: sqlite3.Connection, chunk_set: str, batch: pd.DataFrame, lines: RowLines, source: str,
    placements: dict[str, _Placement], failures: _Failures, result: ImportResult,
) -> None:
    id_col, doc_col = pick_column(batch.columns, CHUNK_ID), pick_column(batch.columns, DOC_ID)
    if id_col is None or doc_col is None:
        raise InputError("a chunk set file needs an id column (id, _id or chunk_id) and a "
                         "doc_id column", source=source, line=lines.first())
    start_col, end_col = pick_column(batch.columns, START), pick_column(batch.columns, END)
    if (start_col is None) != (end_col is None):
        raise InputError("give both start and end offsets, or neither", source=source,
                         line=lines.first())
    chunk_ids = unique_ids(conn, batch, id_col, "chunk", lines, source)
    known = {id_col, doc_col, "text", "title", "doc_version", "line", "metadata",
             start_col, end_col}
    extras = [c for c in batch.columns if c not in known]
    for i, record in enumerate(batch.to_dict("records")):
        chunk_id = str(chunk_ids.iloc[i])
        row = _place(conn, chunk_id, record, (doc_col, start_col, end_col), lines, i, source,
                     placements, failures)
        if row is None:
            continue
        doc_id, version, start, end, text, stored = row
        meta = cells.metadata(record.get("metadata"), source, lines, i)
        meta.update({c: plain_value(record[c]) for c in extras if not is_missing(record[c])})
        title = cells.text(record.get("title"), "title", source, lines, i)
        if not stored:
            chunk_store.insert_chunk(
                conn, chunk_id, doc_id, title if title is not None else placements[doc_id].title,
                text, cells.json_text(meta, source, lines, i),
            )
        stored_sets.add_member(conn, chunk_set, chunk_id, result.rows,
                               (doc_id, version, start, end))
        result.rows += 1
        result.updated += bool(stored)


def _place(
    conn: sqlite3.Connection, chunk_id: str, record: dict[str, Any], columns: tuple,
    lines: RowLines, row: int, source: str, placements: dict[str, _Placement],
    failures: _Failures,
) -> tuple[str, str, int, int, str, bool] | None:
    """(doc_id, version, start, end, text, already stored) of one chunk, or None after
    recording why it cannot be placed. Problems with the file itself raise at once."""
    doc_col, start_col, end_col = columns
    where = (lines, row)
    doc_id = plain_value(record[doc_col])
    if doc_id is None or str(doc_id) == "":
        raise InputError(f"chunk {chunk_id!r} names no document (doc_id)", source=source,
                         line=int(lines[row]))
    doc_id = str(doc_id)
    placement = _placement(conn, doc_id, record.get("doc_version"), chunk_id, where, source,
                           placements)
    stored = stored_sets.stored_chunk_span(conn, chunk_id)
    text = cells.text(record.get("text"), "text", source, lines, row)
    if text is None:
        if stored is None:
            raise InputError(f"chunk {chunk_id!r} has no text and the workspace holds no chunk "
                             "of that id", source=source, line=int(lines[row]))
        text = stored[0] or ""
    text = str(text)
    span = _span(placement, chunk_id, text, record, start_col, end_col, where, failures)
    if span is None:
        return None
    start, end = span
    if stored is not None:
        if stored[1] is not None and (stored[1], stored[2], stored[3], stored[4]) != (
                doc_id, placement.version, start, end):
            failures.add(where, chunk_id, f"the workspace holds this id with another span "
                         f"({stored[1]} {stored[3]}-{stored[4]}); give each chunking its own ids")
            return None
        if normalise(stored[0] or "") != normalise(text):
            failures.add(where, chunk_id, "the workspace holds this id with another text; give "
                         "each chunking its own ids")
            return None
    placement.last_start = start
    return doc_id, placement.version, start, end, text, stored is not None


def _placement(
    conn: sqlite3.Connection, doc_id: str, version: Any, chunk_id: str,
    where: tuple[RowLines, int], source: str, placements: dict[str, _Placement],
) -> _Placement:
    """The document a chunk names, read once per import; an unknown one stops the import."""
    version = plain_value(version)
    if doc_id in placements and (version is None or str(version) == placements[doc_id].version):
        return placements[doc_id]
    row = stored_sets.latest_document(conn, doc_id, None if version is None else str(version))
    if row is None:
        which = f"document {doc_id!r}" + (f" version {version!r}" if version is not None else "")
        lines, row_in_batch = where
        raise InputError(f"chunk {chunk_id!r} names {which}, which the workspace does not hold "
                         "(import the documents first)", source=source,
                         line=int(lines[row_in_batch]))
    placements[doc_id] = _Placement(DocumentText(row[1]), row[0], row[2])
    return placements[doc_id]


def _span(
    placement: _Placement, chunk_id: str, text: str, record: dict[str, Any],
    start_col: str | None, end_col: str | None, where: tuple[RowLines, int],
    failures: _Failures,
) -> tuple[int, int] | None:
    document = placement.document
    if start_col is not None:
        start, end = plain_value(record[start_col]), plain_value(record[end_col])
        if start is not None or end is not None:
            if not (_whole(start) and _whole(end)):
                failures.add(where, chunk_id, f"offsets must be whole numbers, not {start!r} and "
                             f"{end!r}")
                return None
            if not document.matches(text, int(start), int(end)):
                failures.add(where, chunk_id, f"its text is not at {int(start)}-{int(end)} of its "
                             "document")
                return None
            return int(start), int(end)
    span = document.locate(text, after=placement.last_start + 1)  # after the previous chunk
    if span is None:
        failures.add(where, chunk_id, "its text is not in its document")
    return span


def _whole(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()
