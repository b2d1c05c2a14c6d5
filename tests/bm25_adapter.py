"""A Python retriever for ``scorecard retrieve`` (``tests.bm25_adapter:search``): bm25s over the
chunks of the workspace named by ``$SCORECARD_BM25_WORKSPACE``, indexed as
``labeling.files.baseline`` indexes them (the text field, bm25s defaults), so its live run
equals ``scorecard baseline``'s run.
"""

from __future__ import annotations

import functools
import os
import sqlite3

import bm25s


@functools.cache
def _index(path: str, k1: float, b: float) -> tuple[bm25s.BM25, list[str]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        chunks = conn.execute("SELECT id, coalesce(text, '') FROM chunks WHERE placeholder = 0"
                              " ORDER BY rowid").fetchall()
    finally:
        conn.close()
    retriever = bm25s.BM25(k1=k1, b=b)
    retriever.index(bm25s.tokenize([c[1] for c in chunks], show_progress=False),
                    show_progress=False)
    return retriever, [c[0] for c in chunks]


def search(query: str, k: int, k1: float = 1.5, b: float = 0.75) -> list[tuple[str, float]]:
    """The chunks matching ``query`` (score above 0), best first, at most ``k``; ``k1`` and
    ``b`` are BM25's (the defaults are the baseline's)."""
    retriever, ids = _index(os.environ["SCORECARD_BM25_WORKSPACE"], float(k1), float(b))
    tokens = bm25s.tokenize([query], return_ids=False, show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
    return [(ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
