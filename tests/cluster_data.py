"""Adversarial data for the distributed engines, written as parts the way a cluster job reads
them: tied scores, rows in no order, ids that sort differently as strings and as numbers,
non-ASCII ids, one query spread over every part, unjudged results, labeled queries the run
never answered, answered queries nobody labeled, negative grades, a query whose labels are all
0. Seeded; small (a few thousand rows), so the suite stays fast.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from labeling.files.formats import write_trec_qrels
from labeling.metrics.engine import evaluate

MEASURES = ["P@5", "R@10", "Success@3", "RR", "RR@3", "AP", "AP@5", "nDCG@10",
            "nDCG(gain=exp)@5", "Rprec", "CG@5", "DCG@5", "Judged@5", "P(rel=2)@5"]
SPREAD = "q-everywhere"  # the query whose rows go to every part


def adversarial(seed: int = 0, queries: int = 60, depth: int = 30) -> tuple[pd.DataFrame,
                                                                          pd.DataFrame]:
    """(qrels, run) frames with string ids."""
    rng = np.random.default_rng(seed)
    names = [f"q{i}" for i in range(queries - 4)] + ["q10", "q9", "qé-ü", SPREAD]
    names = list(dict.fromkeys(names))
    run_rows, label_rows = [], []
    for n, query in enumerate(names):
        docs = rng.choice(400, size=depth, replace=False)
        scores = rng.integers(0, 6, size=depth) / 4  # few levels: many ties
        if n % 11 == 3:
            continue  # labeled below, never answered by the run
        for doc, score in zip(docs, scores, strict=True):
            run_rows.append((query, f"d{doc}", float(score)))
        if n % 13 == 5:
            continue  # answered, never labeled
        judged = rng.choice(docs, size=min(8, depth), replace=False)
        extra = rng.choice(np.arange(400, 500), size=3, replace=False)  # relevant, missed
        grades = rng.choice([-1, 0, 1, 2, 3], size=len(judged) + 3, p=[.05, .45, .25, .15, .1])
        if n % 17 == 2:
            grades[:] = 0
        for doc, grade in zip([*judged, *extra], grades, strict=True):
            label_rows.append((query, f"d{doc}", int(grade)))
    for n, query in enumerate(names):
        if n % 11 == 3:
            label_rows.append((query, "d1", 2))
    qrels = pd.DataFrame(label_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    run = run.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # no order at all
    return qrels, run


def split_parts(run: pd.DataFrame, parts: int, seed: int = 0) -> list[pd.DataFrame]:
    """``parts`` pieces of ``run``: rows dealt at random, and ``SPREAD``'s rows round-robin so
    that it has rows in every piece."""
    rng = np.random.default_rng(seed)
    spread = run["query_id"] == SPREAD
    where = rng.integers(0, parts, size=len(run))
    where[spread.to_numpy()] = np.arange(int(spread.sum())) % parts
    return [run.loc[where == i].reset_index(drop=True) for i in range(parts)]


def write_parts(run: pd.DataFrame, folder: Path, parts: int, kind: str) -> Path:
    """The run as a folder of ``parts`` Parquet or TREC files (plus a ``_SUCCESS`` marker)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, piece in enumerate(split_parts(run, parts)):
        if kind == "parquet":
            piece.to_parquet(folder / f"part-{i:03d}.parquet", index=False)
        else:  # lines in the piece's own (shuffled) order; ranks that mean nothing
            lines = [f"{q} Q0 {d} {r} {s!r} t\n" for r, (q, d, s) in enumerate(
                piece[["query_id", "doc_id", "score"]].itertuples(index=False), start=1)]
            (folder / f"part-{i:03d}.trec").write_text("".join(lines), encoding="utf-8")
    (folder / "_SUCCESS").write_text("")
    return folder


def write_qrels(qrels: pd.DataFrame, path: Path) -> Path:
    write_trec_qrels(qrels, path)
    return path


def assert_same_as_the_engine(result, qrels, run, **options):
    """A distributed ``result`` equals the single-machine engine on the same files: per-query
    values and means to 1e-12, the count of queries in the means, and the labeled queries the
    run returned nothing for (named whether they were scored 0 or skipped)."""
    expected = evaluate(qrels, run, MEASURES, **options)
    values = expected.per_query
    values.index = values.index.astype(str)
    values = values.sort_index()
    assert list(result.per_query.index) == list(values.index)
    pd.testing.assert_frame_equal(result.per_query, values, check_exact=False, rtol=0,
                                  atol=1e-12, check_names=False, check_index_type=False)
    pd.testing.assert_series_equal(result.mean, expected.mean, check_exact=False, rtol=0,
                                   atol=1e-12, check_names=False)
    assert result.n == len(values)
    assert list(result.unanswered) == sorted(str(q) for q in expected.unanswered)


def assert_command_json(out: dict, qrels: pd.DataFrame, run: pd.DataFrame,
                        measures: list[str]) -> pd.DataFrame:
    """``scorecard evaluate --format json`` output of a distributed engine equals the
    single-machine engine: the query counts, the queries the run returned nothing for, the
    means and (with ``--per-query``) each value; returns the engine's per-query values."""
    expected = evaluate(qrels, run, MEASURES)
    values = expected.per_query.set_axis(expected.per_query.index.astype(str)).sort_index()
    assert out["queries"] == out["evaluated"] == len(values)
    assert out["returned_nothing"] == len(expected.unanswered) > 0
    for measure in measures:
        assert abs(out["mean"][measure] - expected.mean[measure]) <= 1e-12
        for query, row in out.get("per_query", {}).items():
            assert abs(row[measure] - values.loc[query, measure]) <= 1e-12
    return values
