"""The README's CI example, run as written on the demo's files: a regression fails the job (issue
26, case 2: bm25's top ten reversed exited 3 and the example's shell turned that into a merge),
a pass passes, and only "not enough labels" is a warning."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from labeling.files.formats.trec import write_trec_qrels, write_trec_run
from labeling.judging import consensus
from labeling.workspace import store

pytestmark = pytest.mark.slow  # runs the CI example's shell step: git, bash and scorecard processes

ROOT = Path(__file__).resolve().parents[1]


def _run_block(block: str) -> str | None:
    """The ``run: |`` script of the step named "Gate on ..." in a workflow, or None."""
    lines = block.splitlines()
    start = next((i for i, line in enumerate(lines) if "- name: Gate on" in line), None)
    if start is None:
        return None
    at = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
    indent = len(lines[at]) - len(lines[at].lstrip())
    script = []
    for line in lines[at + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        script.append(line)
    return textwrap.dedent("\n".join(script)) + "\n"


def _gate_step() -> str:
    """The shell of the example's gate step (the README, or the docs it moved to)."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            script = _run_block(block)
            if script and "scorecard gate" in script:
                return script
    raise AssertionError("no CI example with a scorecard gate step")


@pytest.fixture(scope="module")
def repository(build_workspace, tmp_path_factory) -> Path:
    """A repository as the example expects: eval/qrels.txt (the demo's consensus labels),
    eval/queries.jsonl (with topics), eval/main.run (bm25); ``scorecard`` on the PATH."""
    folder = tmp_path_factory.mktemp("ci")
    (folder / "eval").mkdir()
    db = store.open_workspace(build_workspace.path("demo"), create=False)
    try:
        write_trec_qrels(consensus.consensus_qrels(db, "default"), folder / "eval" / "qrels.txt")
        bm25 = consensus.run_frame(db, "bm25")
    finally:
        db.close()
    write_trec_run(bm25, folder / "eval" / "main.run", tag="bm25")
    (folder / "eval" / "queries.jsonl").write_text(
        (ROOT / "data" / "queries.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    tool = folder / "bin" / "scorecard"
    tool.parent.mkdir()
    tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m labeling.commands.cli "$@"\n')
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    bm25.to_pickle(folder / "bm25.pkl")
    return folder


def _job(repository: Path, new_run: pd.DataFrame) -> subprocess.CompletedProcess:
    write_trec_run(new_run, repository / "new.run", tag="new")
    env = {**os.environ, "PATH": f"{repository / 'bin'}:{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", "-c", _gate_step()], cwd=repository, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_reversed_top_ten_fails_the_job(repository):
    bm25 = pd.read_pickle(repository / "bm25.pkl")
    top = bm25.loc[bm25["rank"] <= 10]
    reversed_top = top.assign(score=top["rank"].astype(float))[["query_id", "doc_id", "score"]]
    job = _job(repository, reversed_top)
    assert job.returncode == 1, job.stdout + job.stderr
    assert job.stdout.startswith("WORSE (exit 1)") and "::warning::" not in job.stdout


def test_the_same_run_passes_and_unjudged_new_results_only_warn(repository):
    bm25 = pd.read_pickle(repository / "bm25.pkl")[["query_id", "doc_id", "score"]]
    job = _job(repository, bm25)
    assert job.returncode == 0 and job.stdout.startswith("PASS (exit 0)"), job.stdout
    new = pd.DataFrame([(q, f"new-{q}-{i}", 100.0 - i) for q in bm25["query_id"].unique()
                        for i in range(5)], columns=["query_id", "doc_id", "score"])
    job = _job(repository, pd.concat([new, bm25], ignore_index=True))
    assert job.stdout.startswith("NOT ENOUGH LABELS (exit 3)"), job.stdout
    assert job.returncode == 0 and "::warning::Not enough labels" in job.stdout
