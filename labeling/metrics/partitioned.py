"""Scoring a run one query-partitioned batch at a time, and combining the batches.

Every measure is a per-query value and a mean is a sum over queries divided by their number,
so a run split *by query* can be scored batch by batch anywhere and the means combined by
count: ``score_batch`` returns a batch's per-query values and the sums the combination needs,
``combine`` adds batches up. A batch must hold, for each of its queries, all of that query's
labels and all of its run rows; then each value equals the one ``labeling.metrics.engine``
gives on the whole run, bit for bit (same rows, same order, same arithmetic; ties broken by
doc id descending as trec_eval does).

Distributed engines move labels and run rows in one table (``unified``: a ``label`` column
tells them apart), so that one shuffle by query brings a query's labels and rows together;
``score_unified`` scores such a table and ``score_sorted`` does it for a stream of batches
sorted by query whose queries may straddle batch boundaries. Both score every labeled query
(those the run returned nothing for score 0) and say in an ``answered`` column whether the
run returned anything for it, so that the combination can leave the others out
(``missing="skip"``) and still name them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from labeling.errors import InputError
from labeling.metrics.engine import evaluate

QUERY = "query_id"
ANSWERED = "answered"  # score_unified's column: whether the run returned anything for the query
UNIFIED_COLUMNS = ("query_id", "doc_id", "score", "relevance", "label")
STREAM_ROWS = 250_000  # rows gathered before a batch of a sorted stream is scored


@dataclass
class BatchScores:
    """Per-query values of a batch (index query_id, one column per measure) and what combining
    batches needs: the sum of each measure's values and the number of queries."""

    per_query: pd.DataFrame
    sums: pd.Series
    n: int
    unanswered: pd.Index

    @property
    def means(self) -> pd.Series:
        return means_of(self.sums, self.n)


def means_of(sums: pd.Series, n: int) -> pd.Series:
    """Means from combined sums (0 for every measure when no query was evaluated, as
    ``Evaluation.mean``)."""
    return sums * 0.0 if n == 0 else sums / n


def score_batch(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    measures: Sequence[str],
    *,
    judged_only: bool = False,
    missing: str = "zero",
) -> BatchScores:
    """Score one query-partitioned batch (see the module docstring) with the engine's
    conventions: per-query values for the batch's labeled queries, their sums and count, and
    the labeled queries the run returned nothing for."""
    result = evaluate(qrels, run, list(measures), judged_only=judged_only, missing=missing)
    values = result.per_query
    values.index = pd.Index(values.index.astype(str), name=QUERY)
    unanswered = pd.Index(result.unanswered.astype(str), name=QUERY)
    return BatchScores(values, values.sum(), len(values), unanswered)


def combine(batches: Iterable[BatchScores], measures: Sequence[str]) -> tuple[pd.Series, int]:
    """(summed values per measure, number of queries) over ``batches``."""
    sums = pd.Series(0.0, index=list(measures))
    n = 0
    for batch in batches:
        sums = sums + batch.sums.reindex(sums.index, fill_value=0.0)
        n += batch.n
    return sums, n


def _ids(column: pd.Series) -> pd.api.extensions.ExtensionArray:
    """A column of ids as Arrow-backed strings, without a Python object per id (an integer
    id becomes its decimal digits, as the engine reads it)."""
    return column.astype("str").array


def unified(qrels: pd.DataFrame | None = None, run: pd.DataFrame | None = None) -> pd.DataFrame:
    """Labels and/or run rows as one table: query_id, doc_id (strings), score (float; NaN on
    label rows), relevance (float; NaN on run rows), label (bool). A run without a score
    column is scored ``-rank``, as the engine does."""
    parts = []
    if qrels is not None:
        parts.append(pd.DataFrame({
            "query_id": _ids(qrels["query_id"]),
            "doc_id": _ids(qrels["doc_id"]),
            "score": np.nan,
            "relevance": pd.to_numeric(qrels["relevance"], errors="coerce").to_numpy(
                np.float64),
            "label": True,
        }))
    if run is not None:
        if "score" in run.columns:
            score = pd.to_numeric(run["score"], errors="coerce")
        else:
            score = -pd.to_numeric(run["rank"], errors="coerce")
        parts.append(pd.DataFrame({
            "query_id": _ids(run["query_id"]),
            "doc_id": _ids(run["doc_id"]),
            "score": score.to_numpy(np.float64),
            "relevance": np.nan,
            "label": False,
        }))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {c: pd.Series(dtype=t) for c, t in zip(
            UNIFIED_COLUMNS, ("str", "str", "float64", "float64", "bool"), strict=True)})
    return frame.astype({"query_id": "str", "doc_id": "str"})


def split_unified(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) of a ``unified`` table, as the engine takes them."""
    label = frame["label"].to_numpy(dtype=bool)
    labels, rows = frame.loc[label], frame.loc[~label]
    relevance = labels["relevance"].to_numpy(np.float64)
    if len(relevance) and (np.isnan(relevance) | (relevance != np.floor(relevance))).any():
        raise InputError("relevance must be a whole number", source="qrels")
    qrels = pd.DataFrame({"query_id": labels["query_id"].to_numpy(),
                          "doc_id": labels["doc_id"].to_numpy(),
                          "relevance": relevance.astype(np.int64)})
    run = pd.DataFrame({"query_id": rows["query_id"].to_numpy(),
                        "doc_id": rows["doc_id"].to_numpy(),
                        "score": rows["score"].to_numpy(np.float64)})
    return qrels, run


def top_rows(run: pd.DataFrame, k: int) -> pd.DataFrame:
    """Each query's first ``k`` rows in trec_eval's order (score descending, doc id descending
    in byte order): query_id, doc_id, rank, score, ordered by query then rank."""
    if run.empty:
        return pd.DataFrame({"query_id": pd.Series(dtype="str"), "doc_id": pd.Series(dtype="str"),
                             "rank": pd.Series(dtype="int64"),
                             "score": pd.Series(dtype="float64")})
    table = pa.table({"query_id": run["query_id"].astype(str).to_numpy(),
                      "doc_id": run["doc_id"].astype(str).to_numpy(),
                      "score": run["score"].to_numpy(np.float64) + 0.0})  # -0.0 ties 0.0
    order = pc.sort_indices(table, sort_keys=[("query_id", "ascending"), ("score", "descending"),
                                              ("doc_id", "descending")])
    ordered = table.take(order).to_pandas()
    ordered["rank"] = ordered.groupby("query_id", sort=False).cumcount() + 1
    kept = ordered.loc[ordered["rank"] <= k, ["query_id", "doc_id", "rank", "score"]]
    return kept.reset_index(drop=True)


def score_unified(
    frame: pd.DataFrame, measures: Sequence[str], *, judged_only: bool = False,
    keep_top: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """Per-query values of a ``unified`` batch as a plain table: query_id, one float64 column
    per measure, then ``answered`` (what a distributed engine's partition returns). Every
    labeled query is scored, those the run returned nothing for at 0 (see the module
    docstring). ``keep_top``, when given, receives the batch's run rows (to keep each query's
    top rows somewhere)."""
    qrels, run = split_unified(frame)
    if keep_top is not None:
        keep_top(run)
    try:
        scores = score_batch(qrels, run, measures, judged_only=judged_only)
    except InputError as error:
        if error.source not in ("qrels", "run") or "repeats" not in error.problem:
            raise
        # A row number inside a partition means nothing to the user: name the pair.
        rows = qrels if error.source == "qrels" else run
        twice = rows.loc[rows.duplicated(["query_id", "doc_id"])].iloc[0]
        raise InputError(f"query {twice['query_id']!r} lists doc {twice['doc_id']!r} twice",
                         source=error.source) from None
    out = scores.per_query.reset_index()
    out[QUERY] = out[QUERY].astype(str)
    out[ANSWERED] = ~out[QUERY].isin(scores.unanswered)
    return out.astype({m: "float64" for m in measures})


def empty_values(measures: Sequence[str]) -> pd.DataFrame:
    """The shape ``score_unified`` returns, with no rows."""
    return pd.DataFrame({QUERY: pd.Series(dtype="str"),
                         **{m: pd.Series(dtype="float64") for m in measures},
                         ANSWERED: pd.Series(dtype="bool")})


def counted(values: pd.DataFrame, missing: str) -> pd.DataFrame:
    """The rows of ``score_unified`` output that go into the means under ``missing``: all of
    them (``zero``), or those the run returned something for (``skip``)."""
    return values if missing == "zero" else values.loc[values[ANSWERED].to_numpy(dtype=bool)]


def score_sorted(
    batches: Iterator[pd.DataFrame], measures: Sequence[str], *, judged_only: bool = False,
    stream_rows: int = STREAM_ROWS,
    keep_top: Callable[[pd.DataFrame], None] | None = None,
) -> Iterator[pd.DataFrame]:
    """``score_unified`` over a stream of ``unified`` batches sorted by query_id, where a
    query may straddle two batches: batches are gathered to about ``stream_rows`` rows, the
    queries that are complete are scored, the last (maybe incomplete) query is carried over.
    Memory stays bounded by ``stream_rows`` plus the largest query."""
    pending: list[pd.DataFrame] = []
    rows = 0
    for batch in batches:
        if not len(batch):
            continue
        pending.append(batch)
        rows += len(batch)
        if rows < stream_rows:
            continue
        frame = pd.concat(pending, ignore_index=True)
        last = frame[QUERY].iloc[-1]
        tail = (frame[QUERY] == last).to_numpy()
        done = frame.loc[~tail]
        pending, rows = [frame.loc[tail]], int(tail.sum())
        if len(done):
            yield score_unified(done, measures, judged_only=judged_only, keep_top=keep_top)
    if pending:
        frame = pd.concat(pending, ignore_index=True)
        if len(frame):
            yield score_unified(frame, measures, judged_only=judged_only, keep_top=keep_top)
