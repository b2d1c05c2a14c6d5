"""A locked split freezes what its labels describe, not only the labels.

A grade is given for a query as it was worded, in its segments, against a chunk as it read. While
a split is locked (``labeling.evaluation.inputs.locked_splits.lock_split``) none of that may
change for its queries:

- a query of the split keeps its text, ``source``, segment attributes (``query_attributes``) and
  its split; no query joins the split;
- a chunk judged for a query of the split (any judgment in the history) keeps its document
  (``doc_id``), title and text.

Writes that would change them are refused whole with one sentence naming the first query or chunk
(and, for imports, the file and line); nothing is written. The split's snapshot hash
(``labeling.evaluation.inputs.locked_splits.split_hash``) covers these texts too
(``described_texts_digest``), so an
equal hash means equal labels *of* equal texts. SQLite triggers keep guarding judgments and
membership against writes that do not come through here.

Values are compared as text (SQLite stores these columns as TEXT), ``None`` meaning absent.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from labeling.errors import InputError

QueryRow = Sequence[object]  # (id, text, source, split)
ChunkRow = Sequence[object]  # (id, doc_id, title, text)


class LineNumbers(Protocol):
    """Maps a row's position in a batch to its 1-based line in the file
    (``labeling.files.importers.lines.RowLines``)."""

    def __getitem__(self, position: int) -> int: ...


def locked_splits(conn: sqlite3.Connection) -> set[str]:
    """The splits locked now."""
    return {r[0] for r in conn.execute("SELECT split FROM split_locks")}


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _refusal(what: str, split: str, change: str) -> str:
    return (
        f"{what} the locked {split} split, and this would change its {change}: its labels "
        f"were given for it as it is (unlock the {split} split first)"
    )


def query_change_refusal(query_id: str, split: str, change: str) -> str:
    """The sentence refusing to change ``change`` (e.g. "text") of a query of a locked split."""
    return _refusal(f"query {query_id!r} is in", split, change)


def _json_ids(ids: Iterable[object]) -> str:
    return json.dumps([str(i) for i in ids])


def _first_query_change(
    old: tuple[object, object],
    new: tuple[object, object],
    old_attributes: Mapping[str, object],
    new_attributes: Mapping[str, object],
) -> str | None:
    """Which of text, source and segment attributes differ (the first one), or None."""
    for name, before, after in zip(("text", "source"), old, new, strict=True):
        if _text(before) != _text(after):
            return name
    for name in sorted(set(old_attributes) | set(new_attributes)):
        if _text(old_attributes.get(name)) != _text(new_attributes.get(name)):
            return f"segment attribute {name!r}"
    return None


def membership_refusal(
    query_id: str, old_split: object, new_split: object, locked: set[str]
) -> str | None:
    """The sentence refusing to move ``query_id`` from ``old_split`` to ``new_split``, or None
    when neither is locked or nothing moves."""
    if old_split == new_split:
        return None
    if old_split in locked:
        return query_change_refusal(query_id, str(old_split), "split")
    if new_split in locked:
        return f"query {query_id!r} cannot join the locked {new_split} split (unlock it first)"
    return None


def check_queries(
    conn: sqlite3.Connection,
    rows: Sequence[QueryRow],
    attributes: Iterable[tuple[str, str, object]],
    source: str,
    lines: LineNumbers,
) -> None:
    """Refuse a batch of imported queries that changes what a locked split's labels describe.

    ``rows`` are (id, text, source, split) in file order and ``attributes`` the (query id, name,
    value) rows that will replace each query's segment attributes. Raises ``InputError`` naming
    ``source`` and the line of the first offending row.
    """
    locked = locked_splits(conn)
    if not locked or not rows:
        return
    ids = _json_ids(r[0] for r in rows)
    stored = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT id, text, source, split FROM queries"
            " WHERE placeholder = 0 AND id IN (SELECT value FROM json_each(?))",
            [ids],
        )
    }
    frozen = {qid for qid, (_, _, split) in stored.items() if split in locked}
    old_attributes: dict[str, dict[str, str]] = {qid: {} for qid in frozen}
    for qid, name, value in conn.execute(
        "SELECT query_id, name, value FROM query_attributes"
        " WHERE query_id IN (SELECT value FROM json_each(?))",
        [_json_ids(frozen)],
    ):
        old_attributes[qid][name] = value
    new_attributes: dict[str, dict[str, object]] = {qid: {} for qid in frozen}
    for qid, name, value in attributes:
        if qid in new_attributes:
            new_attributes[qid][name] = value
    for position, (qid, text, origin, split) in enumerate(r[:4] for r in rows):
        old_text, old_origin, old_split = stored.get(qid, (None, None, None))
        problem = membership_refusal(str(qid), old_split, split or None, locked)
        if problem is None and qid in frozen:
            change = _first_query_change(
                (old_text, old_origin), (text, origin), old_attributes[qid], new_attributes[qid]
            )
            if change is not None:
                problem = query_change_refusal(str(qid), str(old_split), change)
        if problem is not None:
            raise InputError(problem, source=source, line=int(lines[position]))


def check_chunks(
    conn: sqlite3.Connection, rows: Sequence[ChunkRow], source: str, lines: LineNumbers
) -> None:
    """Refuse a batch of imported chunks that changes the document (``doc_id``), title or text
    of a chunk judged for a query of a locked split. ``rows`` are (id, doc_id, title, text) in
    file order. A document change names every such chunk of the batch (document-unit scores
    move with them), at the line of the first."""
    locked = locked_splits(conn)
    if not locked or not rows:
        return
    judged: dict[str, tuple] = {}  # chunk id -> (doc_id, title, text, a query, its split)
    for cid, *rest in conn.execute(
        "SELECT DISTINCT c.id, c.doc_id, c.title, c.text, q.id, q.split FROM chunks c"
        " JOIN judgments j ON j.chunk_id = c.id JOIN queries q ON q.id = j.query_id"
        f" WHERE q.split IN ({', '.join('?' * len(locked))})"
        " AND c.id IN (SELECT value FROM json_each(?)) ORDER BY q.id",
        [*sorted(locked), _json_ids(r[0] for r in rows)],
    ):
        judged.setdefault(cid, tuple(rest))
    for position, row in enumerate(rows):
        cid = row[0]
        if cid not in judged:
            continue
        *old, query, split = judged[cid]
        for name, before, after in zip(("doc_id", "title", "text"), old, row[1:4], strict=True):
            if _text(before) == _text(after):
                continue
            if name == "doc_id":
                problem = _moved_chunks(rows, judged, split)
            else:
                problem = _refusal(f"chunk {cid!r} is judged for query {query!r} of", split, name)
            raise InputError(problem, source=source, line=int(lines[position]))


MOVED_SHOWN = 5  # chunk ids a refusal names before "and N more"


def _moved_chunks(rows: Sequence[ChunkRow], judged: Mapping[str, tuple], split: str) -> str:
    """The sentence refusing to move the judged chunks of ``rows`` to other documents."""
    moved = [str(r[0]) for r in rows
             if r[0] in judged and _text(judged[r[0]][0]) != _text(r[1])]
    names = ", ".join(repr(m) for m in moved[:MOVED_SHOWN])
    if len(moved) > MOVED_SHOWN:
        names += f" and {len(moved) - MOVED_SHOWN} more"
    noun = "chunk" if len(moved) == 1 else f"{len(moved)} chunks"
    verb = "is" if len(moved) == 1 else "are"
    return (
        f"{noun} {names} {verb} judged for queries of the locked {split} split, and this "
        "would move them to another document (doc_id), which changes its document scores "
        f"(unlock the {split} split first)"
    )


def described_texts_digest(conn: sqlite3.Connection, split: str) -> str:
    """SHA-256 (hex) over what the labels of ``split`` describe: each query's id, text, source and
    segment attributes, and the id, title and text of each chunk judged for one of them."""
    digest = hashlib.sha256()
    parts = (
        ("query", "SELECT id, text, source FROM queries WHERE split = ? ORDER BY id"),
        (
            "attribute",
            "SELECT a.query_id, a.name, a.value FROM query_attributes a"
            " JOIN queries q ON q.id = a.query_id WHERE q.split = ? ORDER BY 1, 2",
        ),
        (
            "chunk",
            "SELECT id, title, text FROM chunks WHERE id IN (SELECT j.chunk_id FROM judgments j"
            " JOIN queries q ON q.id = j.query_id WHERE q.split = ?) ORDER BY id",
        ),
    )
    for kind, sql in parts:
        for row in conn.execute(sql, [split]):
            digest.update(json.dumps([kind, *row], ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()
