"""Inputs that ended in a traceback end in one sentence and exit 2 (issue 25): ``plan`` and
``gate`` with ``nan``, ``evaluate`` on Dask or Spark with a bad run part (checked before any
job starts), ``transfer`` with a segment that does not exist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.test_cli_errors import fails, fingerprint

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def demo(make_workspace) -> Path:
    return make_workspace.path("demo")


@pytest.mark.parametrize("options", [
    ["--difference", "nan"], ["--difference", "inf"], ["--max-drop", "nan"],
    ["--max-drop", "0.05", "--true-drop", "nan"], ["--max-drop", "0.05", "--alpha", "nan"],
    ["--max-drop", "0.05", "--power", "nan"],
])
def test_plan_with_nan_says_so(demo, capsys, options):
    line = fails(["plan", demo, "--baseline", "bm25", "-m", "nDCG@10", *options], capsys)
    assert "nan" in line or "inf" in line


@pytest.mark.parametrize("options", [
    ["--max-drop", "nan"], ["--max-drop", "0.05", "--alpha", "nan"],
    ["--max-drop", "0.05", "--min-judged", "nan"],
])
def test_gate_with_nan_says_so(demo, capsys, options):
    assert "nan" in fails(["gate", demo, "--run", "fusion", "--baseline", "bm25",
                           "-m", "nDCG@10", *options], capsys)


@pytest.fixture
def bad_inputs(tmp_path) -> dict[str, Path]:
    qrels = tmp_path / "labels.qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    wrong = tmp_path / "run.parquet"
    pd.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [1.0, 0.5]}).to_parquet(
        wrong)
    trec = tmp_path / "run.trec"
    trec.write_text("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 high r\n")
    return {"qrels": qrels, "parquet": wrong, "trec": trec}


@pytest.mark.parametrize("engine", ["dask", "spark"])
def test_a_parquet_run_without_its_columns_is_refused_before_the_job(bad_inputs, capsys, engine):
    line = fails(["evaluate", bad_inputs["qrels"], bad_inputs["parquet"], "-m", "RR",
                  "--engine", engine], capsys, bad_inputs["parquet"])
    assert "needs columns query_id, doc_id and score or rank (it has qid, docid, score)" in line


def test_a_bad_trec_part_on_spark_is_refused_before_spark_starts(bad_inputs, capsys):
    fails(["evaluate", bad_inputs["qrels"], bad_inputs["trec"], "-m", "RR", "--engine", "spark"],
          capsys, f"{bad_inputs['trec']}, line 2", "score is not a number")


@pytest.mark.slow  # starts a Dask cluster in a new process
def test_a_bad_trec_part_on_dask_prints_one_line_and_no_worker_log(bad_inputs):
    """A real process, so the workers' own output is seen too: the task fails on a worker,
    whose "Compute Failed" log used to come first."""
    done = subprocess.run(
        [sys.executable, "-m", "labeling.commands.cli", "evaluate", str(bad_inputs["qrels"]),
         str(bad_inputs["trec"]), "-m", "RR", "--engine", "dask", "--workers", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    # (a loaded machine may add Dask's "event loop was unresponsive" notes: not tracebacks)
    assert "Compute Failed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"scorecard: {bad_inputs['trec']}, line 2: score is not a number: 'high'")


def test_transfer_with_an_unknown_segment_changes_nothing(demo, capsys):
    before = fingerprint(demo)
    line = fails(["transfer", demo, "--from", "sections", "--to", "sections",
                  "--segment", "nope"], capsys, "'nope'")
    assert "choose from source, split" in line
    assert fingerprint(demo) == before
