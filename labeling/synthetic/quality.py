"""Quality signals of candidates: copying, near-duplicates, length, BM25 round trip.

- ``overlap``: share of the question's content words (stopwords dropped) found in the source
  passage, 0..1; high means the question copies the passage's wording.
- near-duplicates: the most similar other candidate or existing query by Jaccard similarity of
  word 3-shingles (words if shorter), with its id (``q:<query id>`` or ``c:<candidate id>``);
  ``NEAR_DUPLICATE`` (0.6) and above counts as a duplicate.
- ``n_words``: the question's length in words.
- round trip: the rank of the source chunk when the question is run against a BM25 index
  (bm25s) of the workspace's chunks; ``None`` when it is not in the top ``k``. The chunks ranked
  above it are kept (``outranking``). A flag, not a filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import bm25s

from labeling.synthetic.text import normalise, words
from labeling.workspace import chunk_store

if TYPE_CHECKING:
    import sqlite_utils

NEAR_DUPLICATE = 0.6
STOPWORDS = frozenset(
    "a an the and or but of to in on at by for from with is are was were be been do does did "
    "can could should would will shall may might must i you we they he she it my your our their "
    "what which who whom whose when where why how this that these those there as if than then "
    "so not no any all each per up out into over about many much".split()
)


def overlap(question: str, passage: str) -> float:
    """Share of the question's content words that occur in ``passage`` (0 when it has none)."""
    content = [w for w in words(question) if w not in STOPWORDS]
    if not content:
        return 0.0
    vocabulary = set(words(passage))
    return sum(w in vocabulary for w in content) / len(content)


def _shingles(text: str) -> frozenset:
    tokens = normalise(text).split()
    if len(tokens) < 3:
        return frozenset(tokens)
    return frozenset(zip(tokens, tokens[1:], tokens[2:], strict=False))


def near_duplicates(
    questions: Sequence[str], others: Sequence[tuple[str, str]]
) -> list[tuple[str | None, float]]:
    """For each question, (id, similarity) of its most similar entry in ``others`` or among the
    earlier questions (ids ``#i``); (None, 0.0) when nothing shares a shingle."""
    pool = [(oid, _shingles(text)) for oid, text in others]
    result: list[tuple[str | None, float]] = []
    for i, question in enumerate(questions):
        mine = _shingles(question)
        best: tuple[str | None, float] = (None, 0.0)
        for oid, theirs in pool:
            if mine and theirs:
                score = len(mine & theirs) / len(mine | theirs)
                if score > best[1]:
                    best = (oid, score)
        result.append(best)
        pool.append((f"#{i}", mine))
    return result


@dataclass
class RoundTrip:
    """Where BM25 ranked the source chunk: ``rank`` (1-based) or None beyond ``k``."""

    rank: int | None
    k: int
    outranking: list[str]


class Bm25Index:
    """A bm25s index of the workspace's chunks (title and text), built once per batch."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        rows = [(cid, f"{title}\n{text}") for cid, title, text in chunk_store.imported_chunks(db)]
        self.ids = [r[0] for r in rows]
        self.retriever = bm25s.BM25()
        if rows:
            self.retriever.index(
                bm25s.tokenize([r[1] for r in rows], show_progress=False), show_progress=False
            )

    def round_trip(self, questions: Sequence[str], sources: Sequence[str], k: int = 10
                   ) -> list[RoundTrip]:
        """The round-trip result of each question for its source chunk id."""
        if not self.ids or not questions:
            return [RoundTrip(None, k, []) for _ in questions]
        tokens = bm25s.tokenize(list(questions), return_ids=False, show_progress=False)
        tokens = [t or ["\u2205"] for t in tokens]  # an all-stopword question finds nothing
        docs, scores = self.retriever.retrieve(
            tokens, k=min(k, len(self.ids)), show_progress=False
        )
        out = []
        for found, score, source in zip(docs, scores, sources, strict=True):
            ranked = [self.ids[int(d)] for d, s in zip(found, score, strict=True) if s > 0]
            if source in ranked:
                position = ranked.index(source)
                out.append(RoundTrip(position + 1, k, ranked[:position]))
            else:
                out.append(RoundTrip(None, k, ranked))
        return out
