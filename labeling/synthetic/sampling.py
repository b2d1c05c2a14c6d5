"""Passage sampling: random, stratified by document, or by segment; seeded so it can be redrawn.

Chunks shorter than ``min_words`` are skipped, and for the offline generator also chunks in
which its rules find nothing to ask (``every=True``, the LLM generator's sampling, keeps them:
every passage may reach the model). A chunk's *segment attributes* are its metadata values
whose names are valid query attribute names, else, for attributes the workspace's queries use,
the value most common among the queries labeled relevant (grade >= 1) on chunks of the same
document.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.errors import ScorecardError
from labeling.synthetic import STRATEGIES, offline
from labeling.workspace import chunk_sets, chunk_store
from labeling.workspace.query_store import ATTRIBUTE_NAME, BASE_COLUMNS

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class Chunk:
    """A passage to generate questions from."""

    id: str
    doc_id: str | None
    title: str | None
    text: str


def chunk_attributes(db: sqlite_utils.Database) -> dict[str, dict[str, str]]:
    """chunk id -> segment attributes (see the module docstring)."""
    rows = chunk_store.imported_chunk_metadata(db)
    votes: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for doc_id, name, value in chunk_sets.document_attribute_votes(db):
        votes[doc_id][name][value] += 1
    out: dict[str, dict[str, str]] = {}
    for chunk_id, doc_id, metadata in rows:
        attrs = {
            name: counter.most_common(1)[0][0] for name, counter in votes.get(doc_id, {}).items()
        }
        for name, value in (json.loads(metadata or "{}") or {}).items():
            if (
                ATTRIBUTE_NAME.match(str(name)) and name not in BASE_COLUMNS
                and isinstance(value, str | int | float) and not isinstance(value, bool)
            ):
                attrs[str(name)] = str(value)
        out[chunk_id] = attrs
    return out


def eligible_chunks(db: sqlite_utils.Database, *, min_words: int = 12, every: bool = False
                    ) -> list[Chunk]:
    """Non-placeholder chunks with at least ``min_words`` words, by id; unless ``every``, only
    those in which the offline rules find a question."""
    chunks = []
    for cid, doc_id, title, text in chunk_store.passages_with_text(db):
        if len(text.split()) >= min_words and (every or offline.fact_sentences(text, title)):
            chunks.append(Chunk(cid, doc_id, title, text))
    return chunks


class Drawn(list):
    """The chunks drawn (a list of ``Chunk``), and ``looked_at``: how many chunks the sampler
    read to find them (the drawn ones and those the offline rules find nothing in)."""

    looked_at: int = 0


def sample_chunks(
    db: sqlite_utils.Database,
    n: int,
    *,
    strategy: str = "random",
    seed: int = 0,
    segment: str | None = None,
    min_words: int = 12,
    every: bool = False,
) -> Drawn:
    """``n`` eligible chunks (fewer if the workspace has fewer), the same for the same seed, and
    how many were read to find them (``Drawn.looked_at``).

    ``random``: the chunks in a seeded random order. ``document``: round-robin over documents
    in a seeded order, so every document is drawn before any is drawn twice. ``segment``: the
    same over the values of chunk attribute ``segment`` (chunks without a value form their own
    stratum). Chunks are drawn in that order and a chunk the offline rules find nothing in is
    passed over (unless ``every``): the rules run only on the chunks drawn, not on the whole
    workspace.
    """
    if strategy not in STRATEGIES:
        raise ScorecardError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    if n < 1:
        raise ScorecardError("the sample size must be at least 1")
    rng = random.Random(seed)
    chunks = eligible_chunks(db, min_words=min_words, every=True)
    if strategy == "random":
        rng.shuffle(chunks)
        return _take(chunks, n, every)
    if strategy == "document":
        key = {c.id: c.doc_id or "" for c in chunks}
    else:
        if not segment:
            raise ScorecardError("sampling by segment needs the attribute name")
        attrs = chunk_attributes(db)
        key = {c.id: attrs.get(c.id, {}).get(segment) or "" for c in chunks}
    strata: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        strata[key[chunk.id]].append(chunk)
    order = sorted(strata)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(strata[name])
    drawn = Drawn()
    for chunk in _round_robin(strata, order, every, drawn):
        drawn.append(chunk)
        if len(drawn) >= n:
            break
    return drawn


def _usable(chunk: Chunk, every: bool, drawn: Drawn) -> bool:
    drawn.looked_at += 1
    return every or bool(offline.fact_sentences(chunk.text, chunk.title))


def _take(chunks: list[Chunk], n: int, every: bool) -> Drawn:
    drawn = Drawn()
    for chunk in chunks:
        if _usable(chunk, every, drawn):
            drawn.append(chunk)
            if len(drawn) >= n:
                break
    return drawn


def _round_robin(strata: dict[str, list[Chunk]], order: list[str], every: bool, drawn: Drawn
                 ) -> Iterator[Chunk]:
    """The strata in turn, each giving its next usable chunk (a stratum with none left is
    skipped), until all are empty; ``drawn`` counts the chunks read."""
    while any(strata[name] for name in order):
        for name in order:
            while strata[name]:
                chunk = strata[name].pop()
                if _usable(chunk, every, drawn):
                    yield chunk
                    break
