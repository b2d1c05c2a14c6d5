"""Scoring a run on Dask: ``dask.dataframe`` over the run's parts, a ``dask.distributed``
cluster (a local one by default, or the scheduler at an address).

How a query split across parts is brought together: labels and run rows travel in one
``unified`` table; ``DataFrame.shuffle("query_id")`` hash-partitions it by query, so every
row of a query, label or result, lands in the same output partition; each partition is then
scored whole (``score_unified``) and the means combined from per-partition sums.

A worker that dies mid-job is replaced by its nanny and the scheduler runs its tasks again
(``distributed.scheduler.allowed-failures``); tasks are pure functions of the parts, so the
result is the same.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from labeling.cluster.outputs import ClusterEvaluation, TopRows, evaluation_of
from labeling.cluster.parts import (
    LABEL_COLUMNS,
    RUN_COLUMNS,
    check_parquet_parts,
    is_parquet,
    read_label_rows,
    read_run_part,
)
from labeling.errors import InputError
from labeling.metrics.partitioned import (
    UNIFIED_COLUMNS,
    counted,
    empty_values,
    score_unified,
    unified,
)

ENGINE = "dask"


def _meta() -> pd.DataFrame:
    return unified().loc[:, list(UNIFIED_COLUMNS)]


def _sums(values: pd.DataFrame, measures: list[str], missing: str) -> pd.DataFrame:
    """One row: the partition's sum of each measure and its number of queries, over the
    queries the means count under ``missing``."""
    values = counted(values, missing)
    row = {m: [float(values[m].sum())] for m in measures}
    row["queries"] = [len(values)]
    return pd.DataFrame(row)


LABEL_PART_ROWS = 1_000_000


def _labels_frame(labels: pd.DataFrame | Sequence[Path]):
    """The labels as a Dask frame: read by the workers from their part files, or, given as a
    frame, put in the task graph in pieces. Either way a task that is lost with its worker can
    run again (data scattered to a worker would die with it)."""
    import dask.dataframe as dd

    if not isinstance(labels, pd.DataFrame):
        pieces = []
        parquet = [str(p) for p in labels if is_parquet(Path(p))]
        text = [str(p) for p in labels if not is_parquet(Path(p))]
        if parquet:  # a partition per row group: a large labels file is not one partition
            frame = dd.read_parquet(parquet, split_row_groups=True)
            pieces.append(frame.map_partitions(_label_rows, meta=_meta()))
        if text:
            pieces.append(dd.from_map(read_label_rows, text, meta=_meta(),
                                      enforce_metadata=False))
        return dd.concat(pieces) if len(pieces) > 1 else pieces[0]
    rows = unified(qrels=labels)
    return dd.from_pandas(rows, npartitions=max(1, -(-len(rows) // LABEL_PART_ROWS)))


def _label_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``unified`` label rows of a Parquet labels partition (columns checked as a part's)."""
    missing = [c for c in ("query_id", "doc_id", "relevance") if c not in frame.columns]
    if missing:
        raise InputError(f"a Parquet labels part lacks column(s) {', '.join(missing)}",
                         source="labels")
    return unified(qrels=frame)


def local_client(workers: int | None = None):
    """A ``dask.distributed`` client of a local cluster: ``workers`` processes (one per core
    by default) of one thread each (the engine's arrays release the GIL, pandas does not)."""
    from distributed import Client, LocalCluster

    # Each shuffle logs its start and end as warnings: noise on the command line.
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    # A failed task is reported once, as the error the client raises (one sentence for an
    # InputError), not first as each worker's "Compute Failed" error log with its traceback.
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None,
                           silence_logs=logging.CRITICAL)
    return Client(cluster)


def evaluate_on_dask(
    labels: pd.DataFrame | Sequence[Path],
    run_parts: Sequence[Path],
    measures: Sequence[str],
    *,
    client=None,
    scheduler: str | None = None,
    workers: int | None = None,
    partitions: int | None = None,
    judged_only: bool = False,
    missing: str = "zero",
    keep_top: TopRows | None = None,
) -> ClusterEvaluation:
    """Score the run in ``run_parts`` against ``labels`` (a frame, or label part files the
    workers read) on Dask; per-query values equal the single-machine engine's. ``client`` (a
    ``distributed.Client``) or ``scheduler`` (its address) choose the cluster; otherwise a
    local one is started and closed. ``keep_top`` writes each query's top rows from the
    tasks."""
    import dask.dataframe as dd
    from distributed import Client

    measures = list(measures)
    check_parquet_parts(list(run_parts), RUN_COLUMNS)  # before any worker computes
    if not isinstance(labels, pd.DataFrame):
        check_parquet_parts(list(labels), LABEL_COLUMNS)
    own = client is None
    if own:
        client = Client(scheduler) if scheduler else local_client(workers)
    try:
        parquet = [p for p in run_parts if is_parquet(p)]
        text = [p for p in run_parts if not is_parquet(p)]
        pieces = []
        if text:
            pieces.append(dd.from_map(read_run_part, [str(p) for p in text], meta=_meta(),
                                      enforce_metadata=False))
        if parquet:
            frame = dd.read_parquet([str(p) for p in parquet])
            pieces.append(frame.map_partitions(lambda part: unified(run=part), meta=_meta()))
        run = dd.concat(pieces) if len(pieces) > 1 else pieces[0]
        wanted = partitions or max(run.npartitions, 1)
        both = dd.concat([run, _labels_frame(labels)])
        shuffled = both.shuffle("query_id", npartitions=wanted)
        values = shuffled.map_partitions(score_unified, measures, judged_only=judged_only,
                                         keep_top=keep_top, meta=empty_values(measures))
        sums = values.map_partitions(_sums, measures, missing,
                                     meta=_sums(empty_values(measures), measures, missing))
        gathered, partial = client.compute([values, sums], sync=True)
        totals = partial.sum()
        return evaluation_of(gathered, totals[measures], int(totals["queries"]), measures,
                             ENGINE, wanted, missing)
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
