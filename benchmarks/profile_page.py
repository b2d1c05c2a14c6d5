"""Where a page's first render spends its time: cProfile of the page script, in Streamlit's
script thread (AppTest), in a new process (cold: imports included) and then in a second new
session of the same process (warm).

Usage: ``SCORECARD_WORKSPACE=/tmp/demo.db PYTHONPATH=. .venv/bin/python
benchmarks/profile_page.py dashboard [--lines 40]`` (the workspace is built as the demo when
missing). Prints the total script time and the slowest calls of the project and of Plotly.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

import streamlit.runtime.scriptrunner.script_runner as script_runner
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SHOWN = ("labeling/", "pages/", "plotly", "builtins.__import__")
_run_script = script_runner.exec_func_with_error_handling
PROFILES: list[tuple[float, cProfile.Profile]] = []


def _profiled(func, ctx):
    """Streamlit's script execution, under cProfile (the script runs in its own thread)."""
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    try:
        return _run_script(func, ctx)
    finally:
        profile.disable()
        PROFILES.append((time.perf_counter() - started, profile))


def render(page: str) -> list[tuple[float, cProfile.Profile]]:
    """A new session's runs of ``page`` (after the app's first run)."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["annotator"] = "profile"
    at.run()
    if page == "home":
        return PROFILES[-1:]
    before = len(PROFILES)
    at.switch_page(f"pages/{page}.py").run()
    return PROFILES[before:]


def report(name: str, runs: list[tuple[float, cProfile.Profile]], lines: int) -> None:
    print(f"== {name}: {sum(t for t, _ in runs):.2f} s in {len(runs)} script run(s)")
    stats = pstats.Stats(runs[0][1])
    for _, profile in runs[1:]:
        stats.add(profile)
    text = io.StringIO()
    stats.stream = text
    stats.sort_stats("cumulative").print_stats(400)
    rows = [r for r in text.getvalue().splitlines() if any(s in r for s in SHOWN)]
    print("\n".join(rows[:lines]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="a file stem of pages/, e.g. dashboard")
    parser.add_argument("--lines", type=int, default=40)
    args = parser.parse_args()
    script_runner.exec_func_with_error_handling = _profiled
    report(f"cold {args.page}", render(args.page), args.lines)
    report(f"warm {args.page}", render(args.page), args.lines)


if __name__ == "__main__":
    main()
