"""Corpus search: find any chunk of the workspace by its words, to judge chunks no run
retrieved (what makes recall measurable), and record that a pair was found this way.

Conventions
- The index is ``chunk_search`` (SQLite FTS5 over chunk titles and texts, kept in step with
  every import by triggers; migration 10). Words are matched lowercased, without diacritics and
  Porter-stemmed.
- A search's words are ``labeling.chunk_markup.query_terms`` of its text (common function words
  and one-letter words left out; when nothing is left, every word), at most ``MAX_TERMS``.
  A chunk matches when it holds any of them; hits are ranked by FTS5's BM25 over them
  (k1 = 1.2, b = 0.75, a title word counting twice a text word), best first, ties by chunk id.
  ``score`` is that BM25 value (higher is better).
- A large corpus answers fast because FTS5 reads every chunk holding a word it searches for
  (about 2.5 µs each, measured at a million chunks): the words are searched for from the
  rarest on while the chunks holding them stay within ``POSTINGS_BUDGET`` together (the rarest
  word always); the others are *left out* (``Results.left_out``: held by many chunks, they
  weigh little in BM25) and the hits are ranked by BM25 over the words searched for. How many
  chunks hold a word is counted up to the budget (``SELECT ... LIMIT``), further only when no
  word fits in it (then the rarest one is searched for alone). Below the budget (any corpus of
  fewer chunks than it) every word is searched for.
- A judgment made from a search is an ordinary judgment (``queue.save_judgment``) plus a
  ``pair_sources`` row with source ``search`` and the search text as detail, written in the
  same transaction; a pair gets that row once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.chunk_markup import query_terms, snippet, term_marks
from labeling.chunk_markup import words as all_words
from labeling.judging import queue
from labeling.workspace import provenance, search_index, store

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_LIMIT = 20
MAX_TERMS = 32
DETAIL_CHARS = 500
POSTINGS_BUDGET = 20_000

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


@dataclass(frozen=True)
class Results:
    """A search's hits, the words it searched for and those it left out as too common."""

    hits: list[Hit]
    words: list[str]
    left_out: list[str]


def search_terms(text: str) -> list[str]:
    """The words a search for ``text`` looks for (module conventions)."""
    terms = query_terms(text)
    if not terms:
        terms = all_words(text)
    return terms[:MAX_TERMS]


def match_expression(terms: list[str]) -> str:
    """An FTS5 query matching any of ``terms``, each quoted (no FTS5 syntax can come from the
    user's text)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search(db: sqlite_utils.Database, text: str, limit: int = DEFAULT_LIMIT) -> Results:
    """The ``limit`` chunks that best match ``text`` (module conventions); no hit for a text
    without words."""
    searched, left_out = words_to_search(db, search_terms(text))
    if not searched or limit <= 0:
        return Results([], searched, left_out)
    rows = search_index.chunks_matching(db.conn, match_expression(searched), limit)
    return Results(_hits(rows, searched), searched, left_out)


def words_to_search(
    db: sqlite_utils.Database, terms: list[str]
) -> tuple[list[str], list[str]]:
    """(the words to search for, those left out), each in query order (module conventions)."""
    held = {w: holding(db, w, POSTINGS_BUDGET + 1) for w in terms}
    if terms and min(held.values()) > POSTINGS_BUDGET:  # none fits: find the rarest one
        held = {w: holding(db, w, None) for w in terms}
    chosen, total = set(), 0
    for word in sorted(terms, key=held.__getitem__):
        if chosen and total + held[word] > POSTINGS_BUDGET:
            break
        chosen.add(word)
        total += held[word]
    return [w for w in terms if w in chosen], [w for w in terms if w not in chosen]


def holding(db: sqlite_utils.Database, word: str, cap: int | None) -> int:
    """How many chunks hold ``word`` as the index reads it, counted up to ``cap`` (None: all)."""
    return search_index.chunks_holding(db.conn, match_expression([word]), cap)


def _hits(rows: list[tuple], words: list[str]) -> list[Hit]:
    """Hits from (chunk id, doc id, title, text, score) rows in rank order."""
    marked = " ".join(words)
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
    found = provenance.chunks_with_source(db.conn, query_id, "search")
    return found if chunk_ids is None else found & set(chunk_ids)


def pair_sources(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> list[str]:
    """How a pair reached the judges, oldest first, as short phrases ("pool of depth 10",
    "found by search", ...); each phrase once."""
    rows = provenance.sources_of_pair(db.conn, query_id, chunk_id)
    phrases = {
        "pool": "pool of depth {depth}", "search": "found by search", "import": "imported",
        "synthetic": "synthetic question", "transfer": "transferred", "queue": "queued by hand",
    }
    return list(dict.fromkeys(
        phrases.get(source, source).format(depth=depth) for source, depth in rows))
