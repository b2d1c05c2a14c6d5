"""The Chunking page's first render in a new session, for two checkouts side by side (A/B,
interleaved, one server each on copies of one demo workspace): until its script has finished and
its title is drawn (``bench_first_render.first_render``'s end), and until its chunk-set table is
drawn: the time table's first row (``pages/_time_table.py``, drawn by the component's own
JavaScript after the script's last frame) or, in a checkout without it, ``st.dataframe``'s
canvas (the first on the page is the chunk-set table there).

Chromium is Debian's ``/usr/bin/chromium`` (1280 x 1400). The first session of each server
(imports, caches) is not counted. Run it at low priority and read the figures with the load
average beside them.

Usage: ``PYTHONPATH=. nice -n 5 .venv/bin/python benchmarks/bench_time_table.py --before
/tmp/old-checkout --repeats 8`` (``--before``: a checkout of the older commit, e.g. ``git
archive <commit> | tar -x -C /tmp/old-checkout``; the current checkout is "after"). Writes
``benchmarks/results/time_table_first_render.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_first_render import (  # noqa: E402
    RENDERED,
    commit,
    load_average,
    side_by_side,
)

RESULT = ROOT / "benchmarks" / "results" / "time_table_first_render.md"
TIME_TABLE_ROW = ".st-key-chunk_sets_table tbody tr"  # Playwright's CSS enters shadow roots
GRID = "[data-testid='stDataFrame'] canvas"


def table_selector(checkout: Path) -> str:
    return TIME_TABLE_ROW if (checkout / "pages" / "_time_table.py").exists() else GRID


def timed(browser, url: str, table: str) -> tuple[float, float]:
    """(seconds until the script is done and the title drawn, seconds until the table is)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        started = time.perf_counter()
        page.goto(f"{url}/chunking")
        page.wait_for_function(RENDERED, polling=20)
        rendered = time.perf_counter() - started
        page.locator(table).first.wait_for(state="attached")
        return rendered, time.perf_counter() - started
    finally:
        context.close()


def measure(checkouts: dict[str, Path], repeats: int) -> dict[str, dict[str, list[float]]]:
    """label -> {"script done": [...], "table drawn": [...]}, the checkouts in alternating order."""
    times = {label: {"script done": [], "table drawn": []} for label in checkouts}
    with side_by_side(checkouts) as (browser, urls):
        for label, checkout in checkouts.items():
            timed(browser, urls[label], table_selector(checkout))  # the server's first session
        labels = list(checkouts)
        for round_ in range(repeats):
            for label in labels if round_ % 2 == 0 else labels[::-1]:
                rendered, drawn = timed(browser, urls[label], table_selector(checkouts[label]))
                times[label]["script done"].append(rendered)
                times[label]["table drawn"].append(drawn)
    return times


def markdown(times: dict, note: str) -> str:
    lines = ["# Chunking page: first render and the chunk-set table (bench_time_table.py)", "",
             note, "", "Seconds from opening the page in a new session; median (min-max, n).",
             "", "| | " + " | ".join(times) + " |", "|---|" + "---|" * len(times)]
    for part in ("script done", "table drawn"):
        cells = [f"{statistics.median(t[part]):.2f} ({min(t[part]):.2f}-{max(t[part]):.2f}, "
                 f"{len(t[part])})" for t in times.values()]
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the older commit")
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--result", type=Path, default=RESULT)
    args = parser.parse_args()
    load_before = load_average()
    times = measure({"before": args.before, "after": ROOT}, args.repeats)
    note = (f"Taken {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, after = {commit()}, before = "
            f"{args.before}, nice {os.nice(0)}, load {load_before} before and "
            f"{load_average()} after.")
    args.result.write_text(markdown(times, note))
    print(markdown(times, note))


if __name__ == "__main__":
    main()
