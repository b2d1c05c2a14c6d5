"""Corpus search: find any chunk of the workspace by its words, to judge chunks no run
retrieved (what makes recall measurable), and record that a pair was found this way.

Conventions
- The index is ``chunk_search`` (SQLite FTS5 over chunk titles and texts, kept in step with
  every import by triggers; migration 10). Words are matched lowercased, without diacritics and
  Porter-stemmed.
- A search's words are ``labeling.chunk_markup.query_terms`` of its text (common function words
  and one-letter words left out; when nothing is left, every word), at most ``MAX_TERMS``. A
  chunk matches when it holds any of them; hits are ranked by FTS5's BM25 (k1 = 1.2,
  b = 0.75, a title word counting twice a text word), best first. ``score`` is the BM25 value
  (higher is better).
- A judgment made from a search is an ordinary judgment (``queue.save_judgment``) plus a
  ``pair_sources`` row with source ``search`` and the search text as detail, written in the
  same transaction; a pair gets that row once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlite_utils

from labeling.chunk_markup import query_terms, snippet, term_marks, words
from labeling.judging import queue
from labeling.workspace import provenance, store

DEFAULT_LIMIT = 20
MAX_TERMS = 32
DETAIL_CHARS = 500

_SEARCH_SQL = """
SELECT c.id, coalesce(c.doc_id, ''), coalesce(c.title, ''), coalesce(c.text, ''), -hit.rank
FROM (SELECT rowid, rank FROM chunk_search WHERE chunk_search MATCH ?
      ORDER BY rank LIMIT ?) AS hit
JOIN chunks c ON c.rowid = hit.rowid
ORDER BY hit.rank, c.id
"""


@dataclass(frozen=True)
class Hit:
    """One chunk a search found: its place (``rank``, 1 = best), ``score`` (BM25, higher is
    better), ids, title, full text and a snippet (literal markdown, the search words marked)."""

    rank: int
    chunk_id: str
    doc_id: str
    title: str
    text: str
    score: float
    snippet: str


def search_terms(text: str) -> list[str]:
    """The words a search for ``text`` looks for (module conventions)."""
    terms = query_terms(text)
    if not terms:
        terms = words(text)
    return terms[:MAX_TERMS]


def match_expression(terms: list[str]) -> str:
    """An FTS5 query matching any of ``terms``, each quoted (no FTS5 syntax can come from the
    user's text)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search(db: sqlite_utils.Database, text: str, limit: int = DEFAULT_LIMIT) -> list[Hit]:
    """The ``limit`` chunks that best match ``text`` (module conventions); none for a text
    without words."""
    terms = search_terms(text)
    if not terms or limit <= 0:
        return []
    rows = db.conn.execute(_SEARCH_SQL, [match_expression(terms), int(limit)]).fetchall()
    marked = " ".join(terms)
    return [
        Hit(rank=i, chunk_id=chunk_id, doc_id=doc_id, title=title, text=body, score=float(score),
            snippet=snippet(body, term_marks(body, marked)))
        for i, (chunk_id, doc_id, title, body, score) in enumerate(rows, start=1)
    ]


def judge_found(
    db: sqlite_utils.Database,
    query_id: str,
    chunk_id: str,
    grade: int | None,
    annotator: str,
    *,
    search_text: str,
    note: str | None = None,
) -> int:
    """Judge a pair found by a corpus search for ``search_text`` and mark it "found by search";
    returns the judgment id. Raises what ``queue.save_judgment`` raises (nothing is written)."""
    with store.write_transaction(db, action="judge") as conn:
        judgment_id = queue.save_judgment(db, query_id, chunk_id, grade, annotator, note=note)
        if not found_by_search(db, query_id, [chunk_id]):
            detail = re.sub(r"\s+", " ", search_text or "").strip()[:DETAIL_CHARS] or None
            provenance.add_pair_sources(conn, [(query_id, chunk_id)], "search", detail=detail)
    return judgment_id


def found_by_search(
    db: sqlite_utils.Database, query_id: str, chunk_ids: list[str] | None = None
) -> set[str]:
    """The chunk ids of ``query_id`` (among ``chunk_ids`` when given) marked "found by search"."""
    rows = db.conn.execute(
        "SELECT DISTINCT chunk_id FROM pair_sources WHERE query_id = ? AND source = 'search'",
        [query_id],
    ).fetchall()
    found = {r[0] for r in rows}
    return found if chunk_ids is None else found & set(chunk_ids)


def pair_sources(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> list[str]:
    """How a pair reached the judges, oldest first, as short phrases ("pool of depth 10",
    "found by search", ...); each phrase once."""
    rows = db.conn.execute(
        "SELECT source, pool_depth FROM pair_sources WHERE query_id = ? AND chunk_id = ?"
        " ORDER BY id",
        [query_id, chunk_id],
    ).fetchall()
    phrases = {
        "pool": "pool of depth {depth}", "search": "found by search", "import": "imported",
        "synthetic": "synthetic question", "transfer": "transferred", "queue": "queued by hand",
    }
    return list(dict.fromkeys(
        phrases.get(source, source).format(depth=depth) for source, depth in rows))
