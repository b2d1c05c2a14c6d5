"""First renders in a real browser on the demo workspace: every page in a new session, and the
Dashboard's cold first render (a new server on a new workspace).

What is timed, each ``--repeats`` times (the table gives the median and the range):

- ``cold``: a fresh demo workspace is built (``build_demo``, timed apart: ``demo build``), a new
  ``streamlit run app.py`` server is started (``server start``: until its health check says
  ok), and the first browser session opens the Dashboard's address; the time runs from
  ``page.goto`` until the app is connected, its script has finished and the page's title is
  drawn. ``overview (builds demo)`` is the same on a workspace file that does not exist yet,
  opened at the Overview, which builds the demo first.
- ``warm``: on one server (already used once, so its imports and caches are loaded), each page
  in a new browser context (a new Streamlit session), in the order of the navigation.

Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright (never a browser download); the
window is 1280 x 1400. The machine's load average is recorded before and after: on a shared
machine, run it at low priority (``nice -n 5``) and read the figures with the load beside them.

Usage: ``PYTHONPATH=. nice -n 5 .venv/bin/python benchmarks/bench_first_render.py --repeats 5
--label after`` (appends to ``benchmarks/results/first_render.json`` and rewrites
``benchmarks/results/first_render.md``). ``--only warm --pages chunking`` times one page's
warm first render alone.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from labeling.files.demo import build_demo  # noqa: E402

# The browser tests' loopback helpers and Chromium flags: one place for both.
from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM_ARGS,
    _free_port,
    _healthy,
    stop_server,
)

RESULTS = ROOT / "benchmarks" / "results"
CHROMIUM = "/usr/bin/chromium"
# A render is done when the session is connected, its script is not running and a title is on
# the page (a page's first request may rerun once through app.py before it draws).
RENDERED = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return app && app.dataset.testConnectionState === 'CONNECTED'
    && app.dataset.testScriptState === 'notRunning'
    && document.querySelector("[data-testid='stMain'] h1") !== null;
}"""
PAGES = ["home", "label", "judge_by_query", "agreement", "review", "dashboard", "machine_judges",
         "queries", "data", "chunking", "guide", "simulator"]


@contextlib.contextmanager
def serve(workspace: Path, checkout: Path = ROOT) -> Iterator[tuple[str, float]]:
    """A new app server of ``checkout`` (this one by default) on ``workspace``; yields (base
    URL, seconds until healthy)."""
    port = _free_port()
    env = {**os.environ, "SCORECARD_WORKSPACE": str(workspace), "PYTHONPATH": str(checkout)}
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
        "--server.address", "127.0.0.1", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]
    started = time.perf_counter()
    with open(workspace.parent / "streamlit.log", "wb") as log:
        server = subprocess.Popen(command, cwd=checkout, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        while not _healthy(url):
            if server.poll() is not None or time.perf_counter() - started > 120:
                raise RuntimeError((workspace.parent / "streamlit.log").read_text()[-3000:])
            time.sleep(0.05)
        yield url, time.perf_counter() - started
    finally:
        stop_server(server)


@contextlib.contextmanager
def side_by_side(checkouts: dict[str, Path]) -> Iterator[tuple[object, dict[str, str]]]:
    """A headless Chromium and a server of each checkout (label -> folder), each on its own copy
    of one new demo workspace; yields (browser, label -> base URL) and stops them afterwards."""
    from playwright.sync_api import sync_playwright

    # The stack (servers, folders, the browser) unwinds before Playwright stops.
    with sync_playwright() as playwright, contextlib.ExitStack() as stack:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        demo = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "demo.db"
        build_demo(demo)
        urls = {}
        for label, checkout in checkouts.items():
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            shutil.copy(demo, folder / "scorecard.db")
            urls[label], _ = stack.enter_context(serve(folder / "scorecard.db", checkout))
        yield browser, urls


def first_render(browser, url: str) -> float:
    """Seconds from opening ``url`` in a new browser context until its first render is done."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_function(RENDERED, polling=20)
        return time.perf_counter() - started
    finally:
        context.close()


def page_url(base: str, stem: str) -> str:
    return base if stem == "home" else f"{base}/{stem}"


def cold_rounds(browser, repeat: int) -> dict[str, list[float]]:
    """Demo build, server start, the Dashboard's cold first render and the Overview's first
    render when it has to build the demo, ``repeat`` times each."""
    times: dict[str, list[float]] = {"demo build": [], "server start": [],
                                     "dashboard (cold)": [], "overview (builds demo)": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as folder:
            workspace = Path(folder) / "scorecard.db"
            started = time.perf_counter()
            build_demo(workspace)
            times["demo build"].append(time.perf_counter() - started)
            with serve(workspace) as (url, startup):
                times["server start"].append(startup)
                times["dashboard (cold)"].append(first_render(browser, page_url(url, "dashboard")))
        with tempfile.TemporaryDirectory() as folder:
            with serve(Path(folder) / "scorecard.db") as (url, _):
                times["overview (builds demo)"].append(first_render(browser, url))
    return times


def warm_rounds(browser, repeat: int, pages: list[str] = PAGES) -> dict[str, list[float]]:
    """Every page's (or ``pages``') first render in a new session on a server that has served
    once."""
    times: dict[str, list[float]] = {stem: [] for stem in pages}
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder) / "scorecard.db"
        build_demo(workspace)
        with serve(workspace) as (url, _):
            first_render(browser, url)  # the server's first session: imports, caches
            for _ in range(repeat):
                for stem in pages:
                    times[stem].append(first_render(browser, page_url(url, stem)))
    return times


def summary(times: dict[str, list[float]]) -> dict[str, dict]:
    return {name: {"median": statistics.median(values), "min": min(values), "max": max(values),
                   "values": values} for name, values in times.items()}


def _columns(records: list[dict]) -> dict[str, dict[str, list[float]]]:
    """label -> measurement -> every time measured under that label (runs with the same label,
    e.g. interleaved A/B runs of ``--repeat 1``, pool their times). A record without its times
    (written before they were kept) gives its min, median and max."""
    columns: dict[str, dict[str, list[float]]] = {}
    for record in records:
        column = columns.setdefault(record["label"], {})
        for name, figure in {**record["cold"], **record["warm"]}.items():
            kept = figure.get("values") or [figure["min"], figure["median"], figure["max"]]
            column.setdefault(name, []).extend(kept)
    return columns


def markdown(records: list[dict]) -> str:
    lines = ["# First renders (bench_first_render.py)", "",
             "Seconds; median of the runs (min-max, n). Written by the script; one column per "
             "label (runs with the same label pool their times), in first-run order.", ""]
    columns = _columns(records)
    names = list(dict.fromkeys(n for column in columns.values() for n in column))
    cold = {n for r in records for n in r["cold"]}
    lines.append("| | " + " | ".join(columns) + " |")
    lines.append("|---|" + "---|" * len(columns))
    for name in names:
        cells = []
        for column in columns.values():
            values = column.get(name)
            cells.append("" if not values else f"{statistics.median(values):.2f} "
                         f"({min(values):.2f}-{max(values):.2f}, {len(values)})")
        shown = name if name in cold else f"{name} (new session)"
        lines.append(f"| {shown} | " + " | ".join(cells) + " |")
    lines += ["", "| run | when (UTC) | commit | repeats | nice | load before | load after |",
              "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['label']} | {r['when']} | {r['commit']} | {r['repeat']} | "
                     f"{r['nice']} | {r['load_before']} | {r['load_after']} |")
    return "\n".join(lines) + "\n"


def load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, as text ("1.62, 2.02, 1.99")."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", "--repeats", dest="repeat", type=int, default=5,
                        help="runs of each measurement (the table gives their median)")
    parser.add_argument("--label", default="run", help="the column name in the results")
    parser.add_argument("--only", choices=["cold", "warm"], help="one of the two parts")
    parser.add_argument("--pages", nargs="+", choices=PAGES, default=PAGES,
                        help="the pages of the warm part (default: all)")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the folder of first_render.json/.md (to A/B two checkouts "
                        "interleaved, point both at one folder)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load_before = load_average()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        cold = {} if args.only == "warm" else summary(cold_rounds(browser, args.repeat))
        warm = {} if args.only == "cold" else summary(warm_rounds(browser, args.repeat, args.pages))
        browser.close()
    record = {"label": args.label, "when": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M"),
              "commit": commit(), "repeat": args.repeat, "nice": os.nice(0),
              "load_before": load_before,
              "load_after": load_average(),
              "cold": cold, "warm": warm}
    args.results.mkdir(exist_ok=True)
    store = args.results / "first_render.json"
    records = json.loads(store.read_text()) if store.exists() else []
    records.append(record)
    store.write_text(json.dumps(records, indent=1) + "\n")
    (args.results / "first_render.md").write_text(markdown(records))
    print(markdown(records))


if __name__ == "__main__":
    main()
