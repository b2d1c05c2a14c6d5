"""The pair sets a machine judge can grade, by name, with a sentence saying what they are.

- ``pool``: the union of the top ``k`` of ``runs`` (``labeling.judging.pooling``);
- ``unjudged``: those of them people have not judged, in the queries people have labeled at
  least once (the coverage view's unjudged pairs);
- ``queue``: the pairs open in the labeling queue.

``split`` (``dev``/``test``) and ``segment`` (attribute, values) narrow the queries of the first
two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import judged_coverage
from labeling.judging import pooling
from labeling.machine_judging import machine_judge
from labeling.workspace import contents

if TYPE_CHECKING:
    import sqlite_utils

PAIR_SETS = {
    "pool": "the top k of runs (their pool)",
    "unjudged": "the top k of runs that people have not judged (in queries they labeled)",
    "queue": "the pairs open in the labeling queue",
}

Pair = tuple[str, str]


def pair_set(
    db: sqlite_utils.Database,
    kind: str,
    runs: Sequence[str] = (),
    k: int = pooling.DEFAULT_K,
    *,
    split: str | None = None,
    segment: tuple[str, Sequence[str]] | None = None,
) -> tuple[list[Pair], str]:
    """The pairs of set ``kind`` (a key of ``PAIR_SETS``) and what they are, in words."""
    if kind not in PAIR_SETS:
        raise ScorecardError(f"unknown pair set {kind!r} (use {', '.join(PAIR_SETS)})")
    if kind == "queue":
        return machine_judge.queued_pairs(db), PAIR_SETS["queue"]
    if not runs:
        raise ScorecardError("choose at least one run")
    described = f"top {k} of {', '.join(runs)}"
    if split:
        described += f", {split}"
    if segment is not None:
        attribute, values = segment
        described += f", {attribute} in {', '.join(values)}"
    if kind == "pool":
        frame = pooling.pool_pairs(db, runs, int(k), split=split, segment=segment)
        return list(zip(frame["query_id"], frame["chunk_id"], strict=True)), described
    query_ids = None
    if segment is not None:
        wanted = set(segment[1])
        query_ids = [q for q, v in contents.query_segments(db, segment[0]).items()
                     if v in wanted]
    controls = Controls(runs[0], k=int(k), split=split or "all")
    pairs = judged_coverage.unjudged_pairs(db, controls, runs, query_ids=query_ids)
    return pairs, f"unjudged {described}"


def pool_depth(kind: str, k: int) -> int | None:
    """The pool depth a batch of pair set ``kind`` records as its pairs' source: ``k`` for the
    sets made of runs' top ``k``, None for the queue (its pairs' sources are recorded)."""
    return None if kind == "queue" else int(k)


def segment_values(db: sqlite_utils.Database, attribute: str) -> list[str]:
    """The values a query attribute takes (for a segment filter), sorted."""
    return sorted({str(v) for v in contents.query_segments(db, attribute).values()
                   if v is not None})
