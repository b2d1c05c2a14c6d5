"""Saves never wait behind an import: four annotators save while a large run imports.

The run is staged in short transactions (``labeling.workspace.staged_runs``), so each save
waits at most one of them. Counts and order only, no timings (those are in
``benchmarks/bench_import_saves.py``): every save succeeds, each annotator's saves complete
while the import is still running, and the run appears whole only once it is published.
"""

from __future__ import annotations

import threading
import time

import pytest

from labeling.files.importers import import_run
from labeling.workspace import contents
from labeling.workspace.judgments import add_judgment
from labeling.workspace.store import open_workspace

ROWS = 150_000
ANNOTATORS = 4
SAVES_DURING_IMPORT = 5  # per annotator; one long import transaction allows at most one
WAIT_SECONDS = 120  # for the import to finish; a slower one fails the test, it never hangs it


def _write_run(path, rows: int) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for q in range(rows // 100):
            handle.writelines(f"bq{q} Q0 bc{(q * 37 + r) % 20_000} {r} {100 - r * 0.5} big\n"
                              for r in range(1, 101))


@pytest.mark.slow  # a 150k-row import raced by four writers: tens of seconds on a busy machine
def test_saves_complete_while_a_run_imports(make_workspace, tmp_path):
    path = make_workspace.path("demo")
    run_file = tmp_path / "big.trec"
    _write_run(run_file, ROWS)
    reader = open_workspace(path)
    pairs = reader.conn.execute(
        "SELECT DISTINCT query_id, chunk_id FROM run_results LIMIT 50").fetchall()
    started, finished = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}
    seen_during: list[tuple[int, int]] = []  # (runs visible, results visible) mid-import

    def importer() -> None:
        db = open_workspace(path)
        try:
            started.set()
            outcome["rows"] = import_run(db, run_file, "big").rows
        except Exception as error:  # reported below, never hangs the test
            outcome["error"] = error
        finally:
            finished.set()
            db.close()

    def saver(name: str, during: list[int], failures: list[str]) -> None:
        db = open_workspace(path)
        try:
            started.wait(30)
            n, deadline = 0, time.monotonic() + WAIT_SECONDS
            while not finished.is_set() or n < SAVES_DURING_IMPORT:
                if time.monotonic() > deadline:
                    failures.append(f"{name}: the import did not finish in {WAIT_SECONDS} s")
                    return
                query_id, chunk_id = pairs[n % len(pairs)]
                try:
                    add_judgment(db, query_id, chunk_id, n % 4, name)
                except Exception as error:
                    failures.append(f"{type(error).__name__}: {error}")
                if not finished.is_set():
                    during.append(n)
                    counted = contents.counts(db)
                    seen_during.append((counted["runs"], counted["run_results"]))
                n += 1
        finally:
            db.close()

    before = contents.counts(reader)
    during = {f"ann{i}": [] for i in range(ANNOTATORS)}
    failures: list[str] = []
    threads = [threading.Thread(target=importer)] + [
        threading.Thread(target=saver, args=(name, during[name], failures)) for name in during]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_SECONDS + 30)
    assert not any(thread.is_alive() for thread in threads), "a thread outlived the deadline"

    assert "error" not in outcome, outcome.get("error")
    assert outcome["rows"] == ROWS
    assert failures == []
    assert {name: len(d) >= SAVES_DURING_IMPORT for name, d in during.items()} == dict.fromkeys(
        during, True)
    after = contents.counts(reader)
    # mid-import the run was invisible, then whole: never half of it (the last reads may
    # come after the publishing, before the import thread said it had finished)
    assert (before["runs"], before["run_results"]) in set(seen_during)
    assert set(seen_during) <= {(before["runs"], before["run_results"]),
                                (after["runs"], after["run_results"])}
    assert after["runs"] == before["runs"] + 1
    assert after["run_results"] == before["run_results"] + ROWS
    saved = reader.conn.execute(
        "SELECT count(*) FROM judgments WHERE annotator LIKE 'ann%'").fetchone()[0]
    assert saved == after["judgments"] - before["judgments"]


def test_a_failed_import_leaves_nothing_behind(make_workspace, tmp_path):
    db = make_workspace("demo")
    run_file = tmp_path / "bad.trec"
    lines = [f"fq{i // 10} Q0 fc{i} 1 {i}.5 bad\n" for i in range(30_000)]
    run_file.write_text("".join(lines) + lines[-1])  # the last line repeats a pair
    raw = "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_results)," \
          " (SELECT count(*) FROM queries), (SELECT count(*) FROM chunks)"
    before = db.conn.execute(raw).fetchone()
    try:
        import_run(db, run_file, "bad", batch_rows=10_000)
    except Exception as error:
        assert "line 30001" in str(error)
    else:
        raise AssertionError("the repeated pair was accepted")
    assert db.conn.execute(raw).fetchone() == before
    assert db.conn.execute("PRAGMA foreign_key_check").fetchall() == []
