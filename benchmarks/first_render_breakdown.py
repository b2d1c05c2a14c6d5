"""Where a page's first render in a new session goes, in the browser, for two checkouts side by
side (A/B, interleaved, on one demo workspace each, both servers up at once).

Each first render (``bench_first_render.first_render``: from ``page.goto`` until the app is
connected, its script has finished and a title is drawn) is cut in three by the websocket's
frames as Chromium's network layer saw them:

- ``start-up``: until the websocket opens: Streamlit's frontend (about 2 MB of JavaScript, the
  fonts) loading and starting, and its health probes (a page address such as ``/dashboard``
  first probes ``/dashboard/_stcore/health``, gets a 404 and retries at the root 0.1 s later);
- ``script``: from the websocket's opening to its last frame before the render was done: the
  server running the page (app.py, page setup, queries, charts) and sending what it draws;
- ``drawing``: after the last frame: the browser drawing (lazily loaded element code: tables,
  charts).

``busy`` is the renderer's main-thread task time over the whole render (Chrome DevTools
Protocol ``Performance.getMetrics`` ``TaskDuration``): CPU the page costs the browser, less
sensitive to a busy machine than wall time.

``dashboard (cold)`` is the Dashboard's first render on a new demo workspace and a new server
(``--cold`` times per checkout), opened as soon as the server answers: imports still running in
its warm-up thread, empty caches.

Usage: ``PYTHONPATH=. nice -n 5 .venv/bin/python benchmarks/first_render_breakdown.py
--before /tmp/old-checkout --repeats 3 --cold 3`` (``--before``: a checkout of the older
commit, e.g. ``git worktree add /tmp/old-checkout <commit>``; the current checkout is "after").
Writes ``benchmarks/results/first_render_breakdown.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_first_render import (  # noqa: E402
    PAGES,
    RENDERED,
    commit,
    load_average,
    page_url,
    serve,
    side_by_side,
)

RESULT = ROOT / "benchmarks" / "results" / "first_render_breakdown.md"
PARTS = ("total", "start-up", "script", "drawing", "busy")
COLD = "dashboard (cold)"


def timed_render(browser, url: str) -> dict[str, float]:
    """One first render of ``url`` in a new browser context, cut in parts (module docstring)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        devtools = context.new_cdp_session(page)
        devtools.send("Performance.enable")
        frames: list[float] = []
        opened: list[float] = []
        started = time.perf_counter()

        def watch(socket) -> None:
            opened.append(time.perf_counter() - started)
            socket.on("framereceived", lambda _: frames.append(time.perf_counter() - started))

        page.on("websocket", watch)
        page.goto(url)
        page.wait_for_function(RENDERED, polling=20)
        total = time.perf_counter() - started
        metrics = devtools.send("Performance.getMetrics")["metrics"]
        busy = next(m["value"] for m in metrics if m["name"] == "TaskDuration")
    finally:
        context.close()
    last = max((f for f in frames if f <= total), default=opened[0])
    return {"total": total, "start-up": opened[0], "script": last - opened[0],
            "drawing": total - last, "busy": busy}


def measure(checkouts: dict[str, Path], repeats: int, pages: list[str], cold: int = 0) -> dict:
    """label -> page -> part -> times, every page opened on each checkout in turn (the order
    alternating), ``repeats`` times; then ``cold`` times the Dashboard's cold first render
    (``cold_render``, the checkouts in turn) as the page ``COLD``."""
    times: dict = {label: {p: {part: [] for part in PARTS} for p in pages} for label in checkouts}
    with side_by_side(checkouts) as (browser, urls):
        for url in urls.values():
            timed_render(browser, url)  # the server's first session: imports, caches
        labels = list(checkouts)
        for round_ in range(repeats):
            for page in pages:
                for label in labels if round_ % 2 == 0 else labels[::-1]:
                    parts = timed_render(browser, page_url(urls[label], page))
                    for part, value in parts.items():
                        times[label][page][part].append(value)
        for label in labels:
            times[label][COLD] = {part: [] for part in PARTS}
        for round_ in range(cold):
            for label in labels if round_ % 2 == 0 else labels[::-1]:
                parts = cold_render(browser, checkouts[label])
                for part, value in parts.items():
                    times[label][COLD][part].append(value)
    return times


def cold_render(browser, checkout: Path) -> dict[str, float]:
    """The Dashboard's first render on a new demo workspace (built by ``checkout``'s own code)
    and a new server of ``checkout``, opened as soon as the server answers."""
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder) / "scorecard.db"
        subprocess.run([sys.executable, "-c", "import sys; from labeling.files.demo import "
                        "build_demo; build_demo(sys.argv[1])", str(workspace)], cwd=checkout,
                       env={**os.environ, "PYTHONPATH": str(checkout)}, check=True)
        with serve(workspace, checkout) as (url, _):
            return timed_render(browser, page_url(url, "dashboard"))


def markdown(times: dict, note: str) -> str:
    labels = list(times)
    lines = ["# First renders in a new session, part by part (first_render_breakdown.py)", "",
             "Seconds, median of the runs; parts as in the script's docstring. " + note, "",
             "| page | " + " | ".join(f"{part} ({label})" for part in PARTS for label in labels)
             + " |", "|---|" + "---|" * (len(PARTS) * len(labels))]
    pages = list(times[labels[0]])
    for page in [p for p in pages if times[labels[0]][p]["total"]]:  # measured ones
        cells = [f"{statistics.median(times[label][page][part]):.2f}"
                 for part in PARTS for label in labels]
        lines.append(f"| {page} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the older commit")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--cold", type=int, default=3,
                        help="cold Dashboard renders per checkout (a new demo and server each)")
    parser.add_argument("--result", type=Path, default=RESULT)
    args = parser.parse_args()
    load_before = load_average()
    times = measure({"before": args.before.resolve(), "after": ROOT}, args.repeats, args.pages,
                    args.cold)
    load_after = load_average()
    note = (f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, after = {commit()}, "
            f"{args.repeats} runs each ({args.cold} cold), interleaved; nice {os.nice(0)}; "
            f"load average before {load_before}, after {load_after}.")
    args.result.write_text(markdown(times, note))
    print(markdown(times, note))


if __name__ == "__main__":
    main()
