"""Evidence on screen: a chunk's sentences to pick the answer from, and evidence spans marked in
the chunk's text (``labeling.chunk_markup`` renders them; user text is never markup).

Conventions
- Spans are evidence spans (``labeling.workspace.evidence``): offsets of the chunk's document.
- A chunk's sentences are ``labeling.synthetic.text.split_sentences`` of its span of the
  document, as document offsets: picking sentences gives evidence spans directly.
- The chunk's stored text may differ from its span of the document by whitespace (a splitter
  that collapsed it); a mark is then placed by finding the span's text with runs of whitespace
  normalised (``labeling.files.text_spans``), and left out when it cannot be found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.chunk_markup import ANSWER_COLOR, Mark
from labeling.files.text_spans import DocumentText
from labeling.synthetic.text import split_sentences
from labeling.workspace.evidence import (
    Span,
    chunk_and_document_text,
    chunk_places,
    current_judgment_ids,
    evidence_of,
)

if TYPE_CHECKING:
    import sqlite_utils

EVIDENCE_COLOR = ANSWER_COLOR


@dataclass(frozen=True)
class PlacedChunk:
    """A chunk's text as stored, and the document text and span it was cut from."""

    chunk_id: str
    text: str
    document: str
    start: int
    end: int

    def sentences(self) -> list[Span]:
        """The chunk's sentences as document offsets, in order."""
        return [(self.start + a, self.start + b)
                for a, b in split_sentences(self.document[self.start:self.end])]

    def marks(self, spans: list[Span], color: str = EVIDENCE_COLOR) -> list[Mark]:
        """``spans`` as marks of the chunk's stored text (see the module conventions)."""
        exact = self.document[self.start:self.end] == self.text
        located = None if exact else DocumentText(self.text)
        out = []
        for start, end in spans:
            start, end = max(start, self.start), min(end, self.end)
            if start >= end:
                continue
            if exact:
                out.append(Mark(start - self.start, end - self.start, color))
                continue
            found = located.locate(self.document[start:end])
            if found is not None:
                out.append(Mark(found[0], found[1], color))
        return sorted(out, key=lambda m: m.start)


def placed_chunk(db: sqlite_utils.Database, chunk_id: str) -> PlacedChunk | None:
    """The chunk with its document, or None when it has no place in one."""
    place = chunk_places(db.conn, [chunk_id]).get(chunk_id)
    if place is None:
        return None
    row = chunk_and_document_text(db.conn, chunk_id, place)
    if row is None:
        return None
    return PlacedChunk(chunk_id, row[0] or "", row[1], place.start, place.end)


def current_evidence(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, annotators: set[str] | None = None
) -> list[Span]:
    """The spans of the current judgments of a pair (each annotator's latest; only those of
    ``annotators`` when given: the blind rule's), merged and sorted."""
    rows = current_judgment_ids(db.conn, query_id, chunk_id)
    ids = [i for i, who in rows if annotators is None or who in annotators]
    spans = {span for found in evidence_of(db.conn, ids).values() for span in found}
    return sorted(spans)


def evidence_cards(
    db: sqlite_utils.Database, query_id: str, chunk_ids: list[str]
) -> list[tuple[PlacedChunk, list[Span]]]:
    """Each of ``chunk_ids`` (first occurrence, in order) that is placed in a document and whose
    current judgments for the query carry evidence, with the spans."""
    cards = []
    for chunk_id in dict.fromkeys(str(c) for c in chunk_ids):
        spans = current_evidence(db, query_id, chunk_id)
        chunk = placed_chunk(db, chunk_id) if spans else None
        if chunk is not None:
            cards.append((chunk, spans))
    return cards


def own_marks(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str
) -> list[Mark]:
    """Marks of ``annotator``'s own current evidence of the pair in the chunk's text (a judging
    card shows only the judge's own: others' evidence would tell their grade)."""
    spans = current_evidence(db, query_id, chunk_id, {annotator})
    chunk = placed_chunk(db, chunk_id) if spans else None
    return chunk.marks(spans) if chunk is not None else []
