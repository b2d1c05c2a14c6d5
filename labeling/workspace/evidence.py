"""Evidence spans: where in a judged chunk the answer is.

Conventions
- A span is ``(start, end)``: Python string indices (code points) of the document version the
  chunk was cut from (``chunk_spans``), end exclusive, like chunk offsets. A span lies inside
  its chunk's span (and so inside the document); ``start < end``.
- Only a relevant judgment (grade 1 or more) carries evidence. A judgment's evidence is stored
  with it (``judgment_evidence``, append-only) and never changes: a new decision is a new
  judgment with its own evidence. A relevant judgment without evidence says nothing about where
  the answer is.
- In files a span is ``{"start": N, "end": M}`` and a judgment's evidence a JSON list of them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlite_utils

from labeling.errors import InputError
from labeling.workspace.store import write_transaction

Span = tuple[int, int]
SPAN_SHAPE = 'evidence is a list of {"start": N, "end": M} with whole numbers 0 <= N < M'


@dataclass(frozen=True)
class ChunkPlace:
    """Where a chunk sits: its document (id, version, length) and its span in it."""

    doc_id: str
    doc_version: str
    doc_length: int
    start: int
    end: int


def parse_spans(value: object, *, source: str = "evidence", line: int | None = None) -> list[Span]:
    """A file's evidence value (a list of ``{"start", "end"}`` objects, or of pairs) as sorted,
    distinct spans; ``InputError`` with ``SPAN_SHAPE`` for anything else. ``None`` is none."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InputError(SPAN_SHAPE, source=source, line=line)
    spans = []
    for item in value:
        if isinstance(item, dict) and set(item) == {"start", "end"}:
            start, end = item["start"], item["end"]
        elif isinstance(item, list | tuple) and len(item) == 2:
            start, end = item
        else:
            raise InputError(SPAN_SHAPE, source=source, line=line)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not (
            0 <= start < end
        ):
            raise InputError(SPAN_SHAPE, source=source, line=line)
        spans.append((start, end))
    return sorted(set(spans))


def spans_json(spans: Iterable[Span]) -> list[dict[str, int]]:
    """Spans as the files write them: ``[{"start": N, "end": M}, ...]``."""
    return [{"start": int(s), "end": int(e)} for s, e in spans]


def chunk_places(conn: sqlite3.Connection, chunk_ids: Iterable[str]) -> dict[str, ChunkPlace]:
    """The place of each chunk that has one (chunks of no chunk set have none)."""
    wanted = sorted(set(chunk_ids))
    places: dict[str, ChunkPlace] = {}
    for at in range(0, len(wanted), 500):
        batch = wanted[at:at + 500]
        rows = conn.execute(
            "SELECT p.chunk_id, p.doc_id, p.doc_version, length(d.text), p.start, p.\"end\""
            " FROM chunk_spans p JOIN documents d ON d.id = p.doc_id AND d.version = p.doc_version"
            f" WHERE p.chunk_id IN ({','.join('?' * len(batch))})", batch)
        for chunk_id, doc_id, version, length, start, end in rows:
            places[chunk_id] = ChunkPlace(doc_id, version, int(length), int(start), int(end))
    return places


def check_spans(
    chunk_id: str, grade: int | None, spans: Sequence[Span], place: ChunkPlace | None, *,
    source: str = "judgment", line: int | None = None,
) -> None:
    """Refuse, with one sentence, evidence that cannot be stored: on a judgment that is not
    relevant, on a chunk with no place in a document, or a span outside the document or chunk."""
    if not spans:
        return
    if grade is None or grade < 1:
        raise InputError(
            f"evidence marks where the answer is, so only a relevant grade (1 or more) carries "
            f"it, not {'no grade' if grade is None else f'grade {grade}'}",
            source=source, line=line)
    if place is None:
        raise InputError(
            f"chunk {chunk_id!r} has no place in a document (import its chunk set with the "
            "documents first), so its evidence cannot be checked", source=source, line=line)
    for start, end in spans:
        if end > place.doc_length:
            raise InputError(
                f"evidence span {start}-{end} is outside document {place.doc_id!r} "
                f"({place.doc_length} characters)", source=source, line=line)
        if start < place.start or end > place.end:
            raise InputError(
                f"evidence span {start}-{end} is outside chunk {chunk_id!r} (characters "
                f"{place.start}-{place.end} of document {place.doc_id!r})",
                source=source, line=line)


def add_evidence(conn: sqlite3.Connection, judgment_id: int, spans: Sequence[Span]) -> None:
    """Store checked spans of judgment ``judgment_id`` inside the caller's transaction."""
    conn.executemany(
        'INSERT INTO judgment_evidence (judgment_id, start, "end") VALUES (?, ?, ?)',
        [(int(judgment_id), int(s), int(e)) for s, e in spans])


def evidence_of(conn: sqlite3.Connection, judgment_ids: Iterable[int]) -> dict[int, list[Span]]:
    """The evidence of each judgment that has some, spans sorted by start."""
    wanted = sorted({int(i) for i in judgment_ids})
    found: dict[int, list[Span]] = {}
    for at in range(0, len(wanted), 500):
        batch = wanted[at:at + 500]
        rows = conn.execute(
            'SELECT judgment_id, start, "end" FROM judgment_evidence'
            f" WHERE judgment_id IN ({','.join('?' * len(batch))}) ORDER BY judgment_id, start,"
            ' "end"', batch)
        for judgment_id, start, end in rows:
            found.setdefault(int(judgment_id), []).append((int(start), int(end)))
    return found


def all_evidence(conn: sqlite3.Connection) -> dict[int, list[Span]]:
    """The evidence of every judgment that has some (exports, transfers)."""
    found: dict[int, list[Span]] = {}
    for judgment_id, start, end in conn.execute(
            'SELECT judgment_id, start, "end" FROM judgment_evidence'
            ' ORDER BY judgment_id, start, "end"'):
        found.setdefault(int(judgment_id), []).append((int(start), int(end)))
    return found


def attach_evidence(
    db: sqlite_utils.Database, judgment_id: int, spans: Sequence[Span], annotator: str
) -> None:
    """Give ``annotator``'s judgment ``judgment_id``, saved a moment ago without evidence, the
    spans they picked next (the judging pages save the grade first, so it is never lost, and
    ask for the answer after). Refused, with one sentence, for someone else's judgment, one that
    already has evidence or has been followed by a newer judgment of the same pair, and for
    spans that do not fit (``check_spans``)."""
    spans = parse_spans(list(spans), source="evidence")
    with write_transaction(db, action="judge") as conn:
        row = conn.execute(
            "SELECT query_id, chunk_id, grade, annotator FROM judgments WHERE id = ?",
            [int(judgment_id)]).fetchone()
        if row is None or row[3] != annotator:
            raise InputError("evidence can be added only to your own judgment", source="evidence")
        newer = conn.execute(
            "SELECT 1 FROM judgments WHERE query_id = ? AND chunk_id = ? AND annotator = ?"
            " AND id > ?", [row[0], row[1], annotator, int(judgment_id)]).fetchone()
        has = conn.execute("SELECT 1 FROM judgment_evidence WHERE judgment_id = ?",
                           [int(judgment_id)]).fetchone()
        if newer or has:
            raise InputError("this judgment already has its evidence or a newer judgment "
                             "replaced it; judge the pair again to mark the answer",
                             source="evidence")
        check_spans(row[1], row[2], spans, chunk_places(conn, [row[1]]).get(row[1]),
                    source="evidence")
        add_evidence(conn, int(judgment_id), spans)


def chunk_and_document_text(
    conn: sqlite3.Connection, chunk_id: str, place: ChunkPlace
) -> tuple[str | None, str] | None:
    """(the chunk's text, the text of the document version it is placed in), or None."""
    return conn.execute(
        "SELECT c.text, d.text FROM chunks c, documents d WHERE c.id = ? AND d.id = ?"
        " AND d.version = ?", [chunk_id, place.doc_id, place.doc_version]).fetchone()


def current_judgment_ids(
    conn: sqlite3.Connection, query_id: str, chunk_id: str
) -> list[tuple[int, str]]:
    """(id, annotator) of each annotator's latest judgment of a pair."""
    return conn.execute(
        "SELECT id, annotator FROM judgments WHERE id IN (SELECT max(id) FROM judgments"
        " WHERE query_id = ? AND chunk_id = ? GROUP BY annotator)", [query_id, chunk_id]
    ).fetchall()
