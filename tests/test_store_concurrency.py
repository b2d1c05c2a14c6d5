"""Eight processes importing label files into one workspace at once: no lost row, no lock error."""

from __future__ import annotations

import multiprocessing

import pytest

from labeling.workspace.contents import counts
from labeling.workspace.store import open_workspace

WORKERS = 8
ROWS = 300
_barrier = None


def _init(barrier) -> None:
    global _barrier
    _barrier = barrier


def _import(args: tuple[str, str, int]) -> str:
    db_path, qrels_path, worker = args
    from labeling.files.importers import import_qrels

    try:
        _barrier.wait(timeout=60)  # start writing together, after the slow spawn imports
        db = open_workspace(db_path)
        for attempt in range(3):  # several transactions per process to interleave writers
            import_qrels(db, qrels_path, annotator=f"worker{worker}-{attempt}")
        db.close()
        return "ok"
    except Exception as error:  # report, do not hang the pool
        return f"{type(error).__name__}: {error}"


@pytest.mark.slow  # spawns a pool of processes
def test_parallel_imports_lose_nothing(make_workspace, tmp_path):
    db_path = make_workspace.path()
    jobs = []
    for worker in range(WORKERS):
        path = tmp_path / f"labels{worker}.qrels"
        # overlapping unknown ids across workers: placeholder inserts race too
        path.write_text(
            "".join(f"q{i % 37} 0 c{(i * 7 + worker) % 101} {i % 4}\n" for i in range(ROWS))
        )
        jobs.append((str(db_path), str(path), worker))
    context = multiprocessing.get_context("spawn")
    with context.Pool(WORKERS, initializer=_init, initargs=(context.Barrier(WORKERS),)) as pool:
        outcomes = pool.map(_import, jobs)
    assert outcomes == ["ok"] * WORKERS
    db = open_workspace(db_path, create=False)
    assert counts(db)["judgments"] == WORKERS * 3 * ROWS
    assert counts(db)["queries"] == 37 and counts(db)["chunks"] == 101
    per_annotator = db.execute("SELECT count(DISTINCT annotator) FROM judgments").fetchone()[0]
    assert per_annotator == WORKERS * 3
