"""Scoring a run on Spark (``pyspark``): ``local[*,4]`` by default, any cluster through the
usual Spark configuration (``spark.master`` and the rest, given as ``--spark-conf K=V``).

How a query split across parts is brought together: labels and run rows travel in one
``unified`` table; ``repartition(n, "query_id")`` hash-partitions it by query, so every row of
a query lands in the same partition, and ``sortWithinPartitions("query_id")`` makes them
adjacent. ``mapInPandas`` then streams each partition through ``score_sorted``, which scores
the complete queries of each batch and carries a query that straddles two Arrow batches over
to the next, so a Python worker holds one batch and one query at a time. The means are
Spark's sums of the per-query values divided by their count.

Spark retries a failed task (a Python worker that died, an executor lost) up to
``spark.task.maxFailures`` times; in local mode that number is the ``F`` of ``local[N,F]``,
hence the default ``local[*,4]`` (plain ``local[*]`` never retries).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from labeling.cluster.outputs import ClusterEvaluation, TopRows, evaluation_of
from labeling.cluster.parts import RUN_COLUMNS, check_parquet_parts, is_parquet, read_run_part
from labeling.errors import ScorecardError
from labeling.metrics.partitioned import ANSWERED, QUERY, score_sorted, unified

ENGINE = "spark"
DEFAULT_MASTER = "local[*,4]"
DEFAULT_CONF = {
    "spark.master": DEFAULT_MASTER,
    "spark.app.name": "scorecard evaluate",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.pyspark.python": sys.executable,  # workers import the same installed scorecard
    "spark.pyspark.driver.python": sys.executable,
}


def session(conf: Mapping[str, str] | None = None):
    """A Spark session with ``DEFAULT_CONF`` overridden by ``conf``."""
    from pyspark.sql import SparkSession

    # PySpark 4 warns on every conversion that it does not know pandas 3; the tests check the
    # values it carries (tests/test_cluster_spark.py), so the warning is only noise here.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)

    settings = {**DEFAULT_CONF, **(conf or {})}
    # PySpark starts its Python workers with PYSPARK_PYTHON, whatever the configuration says.
    os.environ.setdefault("PYSPARK_PYTHON", settings["spark.pyspark.python"])
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", settings["spark.pyspark.driver.python"])
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    # Spark's warnings would bury the scores, and a failed task's log (a Java and a Python
    # traceback) would come before the one sentence ``evaluate_on_spark`` raises for it.
    spark.sparkContext.setLogLevel("FATAL")
    return spark


def _unified_schema():
    from pyspark.sql.types import (
        BooleanType,
        DoubleType,
        StringType,
        StructField,
        StructType,
    )

    return StructType([
        StructField("query_id", StringType()), StructField("doc_id", StringType()),
        StructField("score", DoubleType()), StructField("relevance", DoubleType()),
        StructField("label", BooleanType()),
    ])


def _values_schema(columns: list[str]):
    from pyspark.sql.types import BooleanType, DoubleType, StringType, StructField, StructType

    return StructType([StructField(QUERY, StringType())]
                      + [StructField(c, DoubleType()) for c in columns]
                      + [StructField(ANSWERED, BooleanType())])


def _read_paths(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """mapInPandas over a table of part paths: each part read by the scorecard's readers."""
    for batch in batches:
        for path in batch["path"]:
            yield read_run_part(path)


def _run_frame(spark, parts: Sequence[Path]):
    from pyspark.sql import functions as F

    frames = []
    text = [str(p) for p in parts if not is_parquet(p)]
    parquet = [str(p) for p in parts if is_parquet(p)]
    if text:
        paths = spark.createDataFrame(pd.DataFrame({"path": text})).repartition(len(text))
        frames.append(paths.mapInPandas(_read_paths, schema=_unified_schema()))
    if parquet:
        raw = spark.read.parquet(*parquet)
        score = (F.col("score").cast("double") if "score" in raw.columns
                 else -F.col("rank").cast("double"))
        frames.append(raw.select(
            F.col("query_id").cast("string").alias("query_id"),
            F.col("doc_id").cast("string").alias("doc_id"), score.alias("score"),
            F.lit(None).cast("double").alias("relevance"), F.lit(False).alias("label"),
        ))
    run = frames[0]
    for frame in frames[1:]:
        run = run.unionByName(frame)
    return run


def evaluate_on_spark(
    labels: pd.DataFrame,
    run_parts: Sequence[Path],
    measures: Sequence[str],
    *,
    spark=None,
    conf: Mapping[str, str] | None = None,
    partitions: int | None = None,
    judged_only: bool = False,
    missing: str = "zero",
    keep_top: TopRows | None = None,
) -> ClusterEvaluation:
    """Score the run in ``run_parts`` against ``labels`` on Spark; per-query values equal the
    single-machine engine's. ``spark`` is a session to use (else one is made from ``conf``
    and stopped at the end). ``keep_top`` writes each query's top rows from the tasks.

    Bad input is refused before Spark starts (``check_input``); a task that fails anyway ends
    in one ``ScorecardError`` sentence."""
    measures = list(measures)
    columns = [f"m{i}" for i in range(len(measures))]  # measure names are not column names
    check_input(run_parts)
    own = spark is None
    if own:
        from pyspark.sql import SparkSession

        own = SparkSession.getActiveSession() is None  # never stop a session the caller has
        spark = session(conf)
    try:
        return _score(spark, labels, run_parts, measures, columns, partitions=partitions,
                      judged_only=judged_only, missing=missing, keep_top=keep_top)
    except ScorecardError:
        raise
    except Exception as error:  # Py4J and PySpark errors carry both tracebacks in their text
        raise _one_sentence(error) from None
    finally:
        if own:
            spark.stop()


def check_input(run_parts: Sequence[Path]) -> None:
    """Refuse bad run parts before Spark starts: a Parquet part without the run's columns
    (its schema is read), a text part that does not parse (it is read once here, so its error
    names its line rather than ending a task with a Java and a Python traceback)."""
    check_parquet_parts(list(run_parts), RUN_COLUMNS)
    for part in run_parts:
        if not is_parquet(Path(part)):
            read_run_part(part)


def _one_sentence(error: Exception) -> Exception:
    """A failed Spark job as one sentence: the scorecard's own error when a task raised one
    (its sentence is the last line of the worker's traceback), else what Spark says first."""
    text = str(error)
    marker = "labeling.errors.InputError: "
    if marker in text:
        return ScorecardError(text.rsplit(marker, 1)[1].strip().splitlines()[0])
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    return ScorecardError(f"the Spark job failed: {first}")


def _score(
    spark, labels: pd.DataFrame, run_parts: Sequence[Path], measures: list[str],
    columns: list[str], *, partitions: int | None, judged_only: bool, missing: str,
    keep_top: TopRows | None,
) -> ClusterEvaluation:
    from pyspark.sql import functions as F

    run = _run_frame(spark, run_parts)
    label_rows = spark.createDataFrame(unified(qrels=labels), schema=_unified_schema())
    wanted = partitions or max(run.rdd.getNumPartitions(), 1)

    def score(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for values in score_sorted(batches, measures, judged_only=judged_only,
                                   keep_top=keep_top):
            yield values.set_axis([QUERY, *columns, ANSWERED], axis=1)

    values = (run.unionByName(label_rows).repartition(wanted, "query_id")
              .sortWithinPartitions("query_id")
              .mapInPandas(score, schema=_values_schema(columns)))
    values = values.cache()
    means_of_rows = values.filter(F.col(ANSWERED)) if missing == "skip" else values
    totals = means_of_rows.agg(*[F.sum(c).alias(c) for c in columns],
                               F.count(F.lit(1)).alias("queries")).toPandas().iloc[0]
    gathered = values.toPandas().set_axis([QUERY, *measures, ANSWERED], axis=1)
    values.unpersist()
    sums = pd.Series([float(totals[c] or 0.0) for c in columns], index=measures)
    return evaluation_of(gathered, sums, int(totals["queries"]), measures, ENGINE, wanted,
                         missing)
