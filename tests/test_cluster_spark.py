"""The Spark path (local[2,4]: two task threads, four attempts per task; one session for the
module) equals the single-machine engine per query and in the means, on adversarial parts; a
Python worker killed in the middle of a task is retried and the result is still exact; the
command line with --spark-conf."""

from __future__ import annotations

import json

import pytest
from cluster_data import (
    MEASURES,
    adversarial,
    assert_command_json,
    assert_same_as_the_engine,
    write_parts,
    write_qrels,
)
from fifo_fault import with_one_part_killed

from labeling.cluster.parts import list_parts, read_labels
from labeling.cluster.spark_engine import evaluate_on_spark, session
from labeling.commands.cli import main

# PySpark 4 warns that it does not know pandas 3 (and uses a keyword pandas 3 deprecated) on
# every conversion; these tests check the values that cross, so the warnings are noise here.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings(  # slow: starts a Spark cluster
    "ignore:PySpark does not yet fully support pandas", "ignore:The copy keyword is deprecated")]

CONF = {"spark.master": "local[2,4]", "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "2"}


@pytest.fixture(scope="module")
def spark():
    spark = session(CONF)
    yield spark
    spark.stop()


@pytest.mark.parametrize("kind", ["parquet", "trec"])
def test_parts_scored_on_spark_equal_the_engine(spark, tmp_path, kind):
    qrels, run = adversarial(seed=7)
    folder = write_parts(run, tmp_path / kind, parts=5, kind=kind)
    labels = read_labels(write_qrels(qrels, tmp_path / "qrels.txt"))
    result = evaluate_on_spark(labels, list_parts(folder, "run"), MEASURES, spark=spark,
                               partitions=3)
    assert_same_as_the_engine(result, qrels, run)
    assert result.engine == "spark" and result.partitions == 3


def test_policies_and_small_batches_on_spark(spark, tmp_path):
    qrels, run = adversarial(seed=8)
    folder = write_parts(run, tmp_path / "p", parts=4, kind="parquet")
    parts = list_parts(folder, "run")
    # Arrow batches of 7 rows: queries straddle batches inside each partition.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
    try:
        for options in ({"judged_only": True}, {"missing": "skip"}):
            result = evaluate_on_spark(qrels, parts, MEASURES, spark=spark, **options)
            assert_same_as_the_engine(result, qrels, run, **options)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")


def test_a_worker_killed_mid_task_is_retried_and_the_result_is_exact(spark, tmp_path):
    qrels, run = adversarial(seed=9)
    folder = write_parts(run, tmp_path / "t", parts=4, kind="trec")
    result = with_one_part_killed(folder / "part-002.trec", lambda: evaluate_on_spark(
        qrels, list_parts(folder, "run"), MEASURES, spark=spark))
    assert_same_as_the_engine(result, qrels, run)


def test_command_line_with_spark_conf(spark, tmp_path, capsys):
    qrels, run = adversarial(seed=10)
    folder = write_parts(run, tmp_path / "run", parts=3, kind="trec")
    labels = write_qrels(qrels, tmp_path / "qrels.txt")
    status = main(["evaluate", "--engine", "spark", "--spark-conf", "spark.master=local[2,4]",
                   "--spark-conf", "spark.sql.shuffle.partitions=3", str(labels), str(folder),
                   "-m", "AP", "-m", "P@5", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert_command_json(out, qrels, run, ["AP", "P@5"])
    assert not spark.sparkContext._jsc.sc().isStopped()  # the module's session is left alone
