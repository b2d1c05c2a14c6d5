"""`scorecard evaluate` on files: output formats, floors and error messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from labeling.commands.cli import main

QRELS = "q1 0 A 1\nq1 0 B 1\nq1 0 C 1\nq2 0 D 2\nq2 0 E 0\n"
RUN = "".join(
    f"q1 Q0 {doc} {rank} {6 - rank} tag\n" for rank, doc in enumerate("xAyBz", start=1)
) + "q2 Q0 E 1 2.0 tag\nq2 Q0 D 2 1.0 tag\nq9 Q0 A 1 1.0 tag\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "labels.qrels", tmp_path / "system.run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def test_trec_format_prints_per_query_lines_then_means(files, capsys):
    assert main(["evaluate", *files, "-m", "P@5", "-m", "RR", "--per-query",
                 "--format", "trec"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        ["P@5", "q1", repr(0.4)], ["RR", "q1", repr(0.5)],
        ["P@5", "q2", repr(0.2)], ["RR", "q2", repr(0.5)],
        ["P@5", "all", repr((0.4 + 0.2) / 2)], ["RR", "all", repr(0.5)],
    ]


def test_json_and_csv_formats(files, capsys):
    main(["evaluate", *files, "-m", "nDCG@5", "-m", "R@5", "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries"] == 2
    assert payload["mean"]["R@5"] == pytest.approx((2 / 3 + 1) / 2)
    main(["evaluate", *files, "-m", "R@5", "--format", "csv", "--per-query"])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "query_id,R@5"
    assert rows[-1].startswith("all,")


def test_fail_under_exits_one_when_a_floor_is_missed(files, capsys):
    assert main(["evaluate", *files, "-m", "RR", "--fail-under", "RR=0.4"]) == 0
    assert main(["evaluate", *files, "-m", "RR", "--fail-under", "RR=0.6"]) == 1
    assert "below floor: RR = 0.5000 < 0.6" in capsys.readouterr().err


def test_unknown_measure_is_one_line_and_status_2(files, capsys):
    assert main(["evaluate", *files, "-m", "nDCG@ten"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("scorecard: ") and "cutoff" in err and "\n" not in err


def test_bad_file_names_file_and_line_without_traceback(tmp_path, files):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 A 1\nq1 0 B x\n")
    done = subprocess.run(
        [sys.executable, "-m", "labeling.commands.cli", "evaluate", str(bad), files[1],
         "-m", "P@5"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert str(bad) in done.stderr and "line 2" in done.stderr


def test_repeated_pair_in_run_file_names_its_line(tmp_path, files, capsys):
    run = tmp_path / "repeat.run"
    run.write_text("q1 Q0 A 1 3.0 t\n\nq1 Q0 B 2 2.0 t\nq1 Q0 A 3 1.0 t\n")
    assert main(["evaluate", files[0], str(run), "-m", "P@5"]) == 2
    err = capsys.readouterr().err
    assert "repeat.run, line 4" in err and "first on line 1" in err
