"""Seeded synthetic qrels and runs for the benchmarks (shared by bench_metrics and bench_cli).

Shape of the data, per query: 100 retrieved documents drawn without repetition from a corpus of
1M ids; ~10 labels (4-10 on retrieved documents, biased towards high scores, and 1-5 on documents
the run did not retrieve); grades 0-3 with at least one positive grade. Scores are multiples of
1/64 in [0, 4), so ties are common and every score is exact in float32 (trec_eval 9 reads
scores as float32). Ids are strings ("q123", "doc4567") and the rows of both frames are
shuffled, so nothing arrives grouped or sorted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

CORPUS = 1_000_000
DEPTH = 100
MEASURES = ["P@10", "R@100", "Success@10", "RR", "AP@100", "nDCG@10"]


def _distinct_rows(rng: np.random.Generator, n: int, width: int, high: int) -> np.ndarray:
    """``n`` rows of ``width`` distinct integers in [0, high)."""
    out = rng.integers(0, high, size=(n, width))
    while True:
        ordered = np.sort(out, axis=1)
        bad = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if not len(bad):
            return out
        out[bad] = rng.integers(0, high, size=(len(bad), width))


def _ids(prefix: str, numbers: np.ndarray, vocabulary: int) -> pd.Series:
    names = np.array([f"{prefix}{i}" for i in range(vocabulary)], dtype=object)
    return pd.Series(pd.array(names[numbers], dtype="str"))


def make_data(n_queries: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) frames: query_id, doc_id, relevance / query_id, doc_id, score."""
    rng = np.random.default_rng(seed)
    docs = _distinct_rows(rng, n_queries, DEPTH, CORPUS)
    scores = np.floor(rng.random((n_queries, DEPTH)) * 256) / 64  # 256 levels, 1/64 apart

    # Labels on retrieved documents: the top 4-10 by score plus noise (so rather high ranks).
    n_ret = rng.integers(4, 11, size=n_queries)
    key = scores + rng.exponential(1.5, size=scores.shape)
    picked = np.argsort(-key, axis=1)[:, :10]
    ret_docs = np.take_along_axis(docs, picked, axis=1)
    ret_keep = np.arange(10) < n_ret[:, None]

    # Labels on documents the run missed: 1-5 others from the corpus.
    n_unret = rng.integers(1, 6, size=n_queries)
    unret_docs = rng.integers(0, CORPUS, size=(n_queries, 5))
    in_run = (unret_docs[:, :, None] == docs[:, None, :]).any(axis=2)
    same = (unret_docs[:, :, None] == unret_docs[:, None, :]) & np.tri(5, k=-1, dtype=bool)
    unret_keep = (np.arange(5) < n_unret[:, None]) & ~in_run & ~same.any(axis=2)

    label_docs = np.concatenate([ret_docs, unret_docs], axis=1)
    keep = np.concatenate([ret_keep, unret_keep], axis=1)
    grades = rng.choice(4, size=label_docs.shape, p=[0.4, 0.3, 0.2, 0.1])
    grades[:, 0] = np.maximum(grades[:, 0], 1)  # every query has a relevant document

    q_of_label = np.broadcast_to(np.arange(n_queries)[:, None], keep.shape)[keep]
    label_order = rng.permutation(int(keep.sum()))
    run_order = rng.permutation(n_queries * DEPTH)
    qrels = pd.DataFrame(
        {
            "query_id": _ids("q", q_of_label[label_order], n_queries),
            "doc_id": _ids("doc", label_docs[keep][label_order], CORPUS),
            "relevance": grades[keep][label_order].astype(np.int64),
        }
    )
    run = pd.DataFrame(
        {
            "query_id": _ids("q", np.repeat(np.arange(n_queries), DEPTH)[run_order], n_queries),
            "doc_id": _ids("doc", docs.ravel()[run_order], CORPUS),
            "score": scores.ravel()[run_order],
        }
    )
    return qrels, run


def write_parquet(n_queries: int, directory: Path, seed: int = 0) -> tuple[Path, Path]:
    qrels, run = make_data(n_queries, seed)
    qrels_path = directory / f"qrels_{n_queries}.parquet"
    run_path = directory / f"run_{n_queries}.parquet"
    qrels.to_parquet(qrels_path, index=False)
    run.to_parquet(run_path, index=False)
    return qrels_path, run_path


def write_trec(n_queries: int, directory: Path, seed: int = 0) -> tuple[Path, Path]:
    """TREC qrels (``qid 0 docno grade``) and run (``qid Q0 docno rank score tag``) files.

    The run lines stay shuffled; their rank is the position by score within the query (ties in
    row order), which evaluators ignore in favour of the score. Scores are written with repr,
    exact for multiples of 1/64.
    """
    qrels, run = make_data(n_queries, seed)
    rank = run.groupby("query_id", sort=False)["score"].rank(method="first", ascending=False)
    qrels_path = directory / f"qrels_{n_queries}.txt"
    run_path = directory / f"run_{n_queries}.txt"
    pd.DataFrame(
        {
            "q": qrels["query_id"],
            "iter": "0",
            "d": qrels["doc_id"],
            "g": qrels["relevance"],
        }
    ).to_csv(qrels_path, sep=" ", header=False, index=False)
    pd.DataFrame(
        {
            "q": run["query_id"],
            "q0": "Q0",
            "d": run["doc_id"],
            "rank": rank.astype(np.int64),
            "s": run["score"],
            "tag": "bench",
        }
    ).to_csv(run_path, sep=" ", header=False, index=False)
    return qrels_path, run_path
