"""The demo workspace with three different label sets under the three consensus rules.

On the demo, two annotators disagree by one grade on 27 pairs: ``default`` rounds their mean up,
so it equals ``lenient`` everywhere. ``split_the_rules`` adds a third annotator who sides with the
lower grade on every other such pair: there ``default`` (now a majority) takes the lower grade,
elsewhere the higher one, so no rule's labels equal another's and a tab that silently used the
default rule shows other numbers than the rule chosen.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.evaluation.inputs.label_sets import snapshot_hash
from labeling.judging import consensus
from labeling.metrics.engine import evaluate, ranked_list
from labeling.workspace import frozen_split, judgments

EXACT = 1e-9  # numbers shown must equal the engine's to this
THIRD_ANNOTATOR = "carol"
RULES = ("strict", "lenient")  # the rules a test switches to (default is the one left behind)


def split_the_rules(db: sqlite_utils.Database) -> int:
    """Add the third annotator's votes; returns how many pairs got one."""
    current = consensus.current_judgments_frame(db)
    spread = current.groupby(["query_id", "chunk_id"])["grade"].agg(["min", "max"])
    disputed = spread.loc[spread["min"] < spread["max"]].sort_index()
    chosen = disputed.iloc[::2]
    for (query_id, chunk_id), row in chosen.iterrows():
        judgments.add_judgment(db, str(query_id), str(chunk_id), int(row["min"]), THIRD_ANNOTATOR)
    return len(chosen)


def same(got, expected) -> None:
    """``got`` equals ``expected`` number for number, to ``EXACT``."""
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float),
                               rtol=0, atol=EXACT)


def differ(ours, default) -> None:
    """The precondition of a check: the default rule would give other numbers."""
    assert not np.allclose(np.asarray(ours, dtype=float), np.asarray(default, dtype=float))


def engine(db: sqlite_utils.Database, rule: str, run: str, measures) -> pd.DataFrame:
    """Per-query values straight from the metric engine on the consensus labels under
    ``rule``: what every tab and file must show."""
    qrels, frame = consensus.consensus_qrels(db, rule), consensus.run_frame(db, run)
    values = evaluate(qrels, frame, list(measures)).per_query
    return values.set_axis(values.index.astype("string"))


def labels_hash(db: sqlite_utils.Database, rule: str) -> str:
    """The label snapshot hash of the consensus labels under ``rule``."""
    return snapshot_hash(consensus.consensus_qrels(db, rule))


def expected_split_hash(db: sqlite_utils.Database, rule: str) -> str:
    """The test split's hash under ``rule``, from its parts: the hash of its queries' labels and
    the digest of the texts they describe (``labeling.workspace.frozen_split``)."""
    qrels = consensus.consensus_qrels(db, rule)
    ids = {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = 'test'")}
    labels = snapshot_hash(qrels.loc[qrels["query_id"].isin(ids)])
    texts = frozen_split.described_texts_digest(db.conn, "test")
    return hashlib.sha256(f"{labels} {texts}".encode()).hexdigest()[:12]


def unjudged_in_top(db: sqlite_utils.Database, rule: str, runs, k: int) -> set[tuple[str, str]]:
    """(query, chunk) pairs in the top ``k`` of ``runs`` with no label under ``rule``, from the
    engine's ranked lists."""
    qrels = consensus.consensus_qrels(db, rule)
    pairs = set()
    for run in runs:
        rows = ranked_list(qrels, consensus.run_frame(db, run))
        top = rows.loc[(rows["rank"] <= k) & rows["grade"].isna()]
        pairs |= set(zip(top["query_id"].astype(str), top["doc_id"].astype(str), strict=True))
    return pairs


def regraded_query(db: sqlite_utils.Database, rule: str, run: str) -> str:
    """A query with a chunk of ``run`` whose grade under ``rule`` is not the default's."""
    graded = consensus.consensus_qrels(db, rule).set_index(["query_id", "doc_id"])["relevance"]
    default = consensus.consensus_qrels(db, "default").set_index(["query_id", "doc_id"])
    moved = graded.loc[graded != default["relevance"].reindex(graded.index)]
    frame = consensus.run_frame(db, run)
    retrieved = set(zip(frame["query_id"], frame["doc_id"], strict=True))
    return sorted(q for q, c in moved.index if (q, c) in retrieved)[0]
