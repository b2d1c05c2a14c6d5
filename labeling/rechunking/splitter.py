"""A recursive character splitter that keeps offsets: chunk sets made from stored documents.

The splitter cuts a text at the first separator of ``SEPARATORS`` it holds (paragraphs, then
lines, then sentences, then words; a cut keeps the separator with the text before it), cuts any
piece still longer than ``size`` characters at the next separator (a piece with none left is
cut every ``size`` characters), then joins neighbouring pieces of one level while they fit in
``size``. ``overlap``: a new chunk starts with the last pieces of the previous one that fit in
``overlap`` characters (and leave room for the next piece). Chunks are the document's own text,
stripped of whitespace at both ends; empty ones are dropped. So every chunk is
``text[start:end]`` of its document, and its offsets are exact.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from labeling.errors import InputError, ScorecardError
from labeling.files import importers
from labeling.files.importers import ImportResult
from labeling.workspace import chunk_sets

if TYPE_CHECKING:
    import sqlite_utils

SEPARATORS = ("\n\n", "\n", ". ", " ")
SPLITTER_NAME = "recursive characters (paragraphs, lines, sentences, words)"


def split_spans(
    text: str, size: int, overlap: int = 0, separators: tuple[str, ...] = SEPARATORS
) -> list[tuple[int, int]]:
    """(start, end) of each chunk of ``text``, in order."""
    if size < 1:
        raise ScorecardError("the chunk size must be at least 1 character")
    if not 0 <= overlap < size:
        raise ScorecardError("the overlap must be at least 0 and less than the chunk size")
    spans = []
    for start, end in _split(text, 0, len(text), size, overlap, separators):
        piece = text[start:end]
        start += len(piece) - len(piece.lstrip())
        end -= len(piece) - len(piece.rstrip())
        if end > start:
            spans.append((start, end))
    return spans


def _cuts(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """``[start, end)`` cut after each occurrence of ``separator``."""
    pieces, at = [], start
    while True:
        found = text.find(separator, at, end)
        if found < 0:
            break
        pieces.append((at, found + len(separator)))
        at = found + len(separator)
    if at < end:
        pieces.append((at, end))
    return pieces


def _split(
    text: str, start: int, end: int, size: int, overlap: int, separators: tuple[str, ...]
) -> list[tuple[int, int]]:
    if end - start <= size:
        return [(start, end)]
    level = next((i for i, sep in enumerate(separators) if text.find(sep, start, end) >= 0),
                 None)
    if level is None:
        return [(at, min(at + size, end)) for at in range(start, end, size)]
    chunks: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    for piece in _cuts(text, start, end, separators[level]):
        if piece[1] - piece[0] > size:
            if current:
                chunks.append((current[0][0], current[-1][1]))
                current = []
            chunks += _split(text, *piece, size, overlap, separators[level + 1:])
            continue
        if current and piece[1] - current[0][0] > size:
            chunks.append((current[0][0], current[-1][1]))
            current = _tail(current, overlap, piece, size)
        current.append(piece)
    if current:
        chunks.append((current[0][0], current[-1][1]))
    return chunks


def _tail(
    pieces: list[tuple[int, int]], overlap: int, following: tuple[int, int], size: int
) -> list[tuple[int, int]]:
    """The last pieces of a chunk that fit in ``overlap`` and leave room for ``following``."""
    kept: list[tuple[int, int]] = []
    for piece in reversed(pieces):
        length = pieces[-1][1] - piece[0]
        if length > overlap or following[1] - piece[0] > size:
            break
        kept.insert(0, piece)
    return kept


def chunk_records(
    db: sqlite_utils.Database, name: str, size: int, overlap: int = 0
) -> list[dict]:
    """The chunks of every stored document (current version) split at ``size``: records with
    id (``{name}:{doc_id}:{n}``), doc_id, doc_version, title, text, start, end."""
    records = []
    for doc_id, version, title, text in chunk_sets.current_documents(db.conn):
        for number, (start, end) in enumerate(split_spans(text, size, overlap), 1):
            records.append({"id": f"{name}:{doc_id}:{number}", "doc_id": doc_id,
                            "doc_version": version, "title": title, "text": text[start:end],
                            "start": start, "end": end})
    return records


def rechunk_documents(
    db: sqlite_utils.Database, name: str, size: int, overlap: int = 0
) -> ImportResult:
    """Split the stored documents with this splitter and import the chunks as chunk set
    ``name`` (through the chunk set importer, which checks every offset)."""
    records = chunk_records(db, name, size, overlap)
    if not records:
        raise ScorecardError("the workspace holds no documents to split; import them first")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                        encoding="utf-8")
        try:
            return importers.import_chunk_set(db, path, name, splitter=SPLITTER_NAME,
                                              size=size, overlap=overlap)
        except InputError as error:  # name the chunk set, not the temporary file
            error.source = f"chunk set {name!r}"
            error.line = None
            raise
