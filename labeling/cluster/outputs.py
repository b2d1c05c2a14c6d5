"""What a distributed evaluation returns and writes.

``ClusterEvaluation`` is an ``Evaluation`` whose means were combined from per-partition sums.
``write_values`` writes per-query values as Parquet with what they were computed from in the
file's metadata, the file ``scorecard import DB values`` reads back into a workspace.
``TopRows`` writes, from inside the engine's tasks, each query's first k rows as TREC run
parts into a folder (on a real cluster, a folder every worker can write): what the workspace
stores of a huge run so that its drill-down shows a query's ranked list.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from labeling.files.importers.values import VALUES_KEY  # where the file's "about" goes
from labeling.metrics.engine import Evaluation
from labeling.metrics.partitioned import ANSWERED, QUERY, counted, means_of, top_rows


@dataclass
class ClusterEvaluation(Evaluation):
    """Per-query values (index query_id, sorted) and means combined by count from the
    partitions' sums; ``engine`` and ``partitions`` say where they were computed."""

    sums: pd.Series = field(default_factory=pd.Series)
    n: int = 0
    engine: str = ""
    partitions: int = 0

    @property
    def mean(self) -> pd.Series:
        return means_of(self.sums, self.n)


def evaluation_of(values: pd.DataFrame, sums: pd.Series, n: int, measures: list[str],
                  engine: str, partitions: int, missing: str = "zero") -> ClusterEvaluation:
    """The result of a distributed evaluation from its gathered per-query values (a table with
    query_id and answered columns, as ``score_unified`` returns) and its combined sums (of the
    rows ``counted`` keeps under ``missing``)."""
    every = values.set_index(QUERY).sort_index()
    every.index = pd.Index(every.index.astype(str), name=QUERY)
    unanswered = every.index[~every[ANSWERED].to_numpy(dtype=bool)]
    per_query = counted(every, missing)[measures]
    return ClusterEvaluation(per_query=per_query, parts=pd.DataFrame(index=per_query.index),
                             unanswered=unanswered, sums=sums.reindex(measures), n=n,
                             engine=engine, partitions=partitions)


def write_values(result: Evaluation, path: str | os.PathLike[str], about: dict) -> None:
    """Per-query values as Parquet: query_id plus one float64 column per measure; ``about``
    (engine, labels, run, policy...) goes into the file's metadata as JSON."""
    table = pa.Table.from_pandas(result.per_query.reset_index(), preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[VALUES_KEY] = json.dumps(about, sort_keys=True).encode()
    pq.write_table(table.replace_schema_metadata(metadata), path)


@dataclass(frozen=True)
class TopRows:
    """Writes each query's top ``k`` rows of a batch as a TREC part in ``folder``.

    The part's name is a digest of the rows it holds, written atomically, so a task that runs
    twice (a retry after a worker died) writes the same file again, never a second copy.
    """

    folder: str
    k: int

    def __call__(self, run: pd.DataFrame) -> None:
        top = top_rows(run, self.k)
        if top.empty:
            return
        lines = "".join(f"{q} Q0 {d} {r} {s!r} scorecard\n" for q, d, r, s in
                        top.itertuples(index=False))
        name = hashlib.sha256(lines.encode()).hexdigest()[:24]
        target = Path(self.folder) / f"top-{name}.trec"
        partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
        partial.write_text(lines, encoding="utf-8")
        partial.replace(target)
