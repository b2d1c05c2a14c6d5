"""Evaluating runs too large for one machine on a distributed engine (Dask or Spark).

Labels are human-sized: they are read on the client. A run of any size is read by the engine
from files or folders of parts (Parquet, or TREC/CSV/JSONL read with the scorecard's own
readers), brought together by query with one shuffle, and scored partition by partition with
``labeling.metrics.partitioned``; the means are combined from per-partition sums by count.

Modules: ``parts`` (which files, how a part is read), ``dask_engine``, ``spark_engine``,
``outputs`` (the result, per-query values and top rows written for the workspace).
"""
