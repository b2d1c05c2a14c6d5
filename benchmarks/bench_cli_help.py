"""Benchmark how fast ``scorecard`` answers ``--help``, ``--version`` and each sub-command's
``--help`` (the parser imports no library a command does not need; the goal is < 0.3 s).

    python benchmarks/bench_cli_help.py [--repeat 10] [--out benchmarks/results/cli_help.md]

Each invocation is a fresh process from start to exit (``python -m labeling.commands.cli``, what
the ``scorecard`` console script runs, with this checkout on ``PYTHONPATH``), run ``--repeat``
times after one untimed run; printed and written to ``--out`` as a markdown table of the median
and the slowest wall time. The docs include that file; nobody types its figures.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from labeling.commands.cli import build_parser

GOAL_SECONDS = 0.3


def invocations() -> list[list[str]]:
    """``--help``, ``--version`` and ``COMMAND --help`` for every sub-command."""
    subparsers = build_parser()._subparsers._group_actions[0]  # noqa: SLF001
    return [["--help"], ["--version"], *([name, "--help"] for name in subparsers.choices)]


def time_once(command: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``command``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def row(shown: str, command: list[str], repeat: int) -> str:
    time_once(command)  # untimed: the file cache
    walls, cpus = zip(*(time_once(command) for _ in range(repeat)), strict=True)
    return (f"| `{shown}` | {statistics.median(walls):.3f} | {max(walls):.3f} "
            f"| {statistics.median(cpus):.3f} |")


def table(repeat: int) -> str:
    lines = [
        f"`scorecard` answering without running a command: wall time of a fresh process, "
        f"median and slowest of {repeat} runs (goal: median < {GOAL_SECONDS} s), and the "
        "median CPU time (user + system), which other load on the machine changes less. The "
        "first row is the bare interpreter, the floor of any command. Measured "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the start; written by `benchmarks/bench_cli_help.py`.",
        "",
        "| invocation | median wall (s) | slowest wall (s) | median CPU (s) |",
        "|---|---:|---:|---:|",
        row("python -c pass", [sys.executable, "-c", "pass"], repeat),
    ]
    for arguments in invocations():
        command = [sys.executable, "-m", "labeling.commands.cli", *arguments]
        lines.append(row(" ".join(["scorecard", *arguments]), command, repeat))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "cli_help.md")
    args = parser.parse_args()
    text = table(args.repeat)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
