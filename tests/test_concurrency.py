"""Eight annotators save 1,000 judgments each, one transaction per judgment as the app does,
while another process keeps reading the dashboard's numbers and a backup is taken: every
judgment is there afterwards, none was rejected, and the reader and the backup saw whole
transactions only."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from labeling.workspace import contents, judgments, roles, store
from labeling.workspace.backup import backup

WRITERS = 8
JUDGMENTS = 1_000
WAIT_SECONDS = 240  # for a count the writers should reach; a dead or stuck writer fails here


def _write(args: tuple[str, int, list[tuple[str, str]], object, object]) -> str:
    db_path, worker, pairs, barrier, _ = args

    try:
        db = store.open_workspace(db_path)
        barrier.wait(timeout=120)  # start together, after the slow spawn imports
        with roles.acting_as(f"w{worker}"):  # the role is checked on every write
            for i in range(JUDGMENTS):
                q, c = pairs[(i + worker * 7) % len(pairs)]
                judgments.add_judgment(db, q, c, (i + worker) % 4, f"w{worker}", note=f"n{i}")
        db.close()
        return "ok"
    except Exception as error:  # report it, do not hang the pool
        return f"{type(error).__name__}: {error}"


def _read(args: tuple[str, int, list, object, object]) -> str:
    db_path, _, _, barrier, done = args
    from labeling.judging import consensus
    from labeling.metrics.engine import evaluate

    try:
        db = store.open_workspace(db_path)
        run_name = contents.run_names(db)[0]
        barrier.wait(timeout=120)
        loops, seen = 0, 0
        deadline = time.monotonic() + WAIT_SECONDS
        while not done.is_set() or loops == 0:
            if time.monotonic() > deadline:
                return f"the test did not say done in {WAIT_SECONDS} s"
            total = contents.counts(db)["judgments"]
            if total < seen:
                return f"judgments went from {seen} to {total}"
            seen = total
            qrels = consensus.consensus_qrels(db)
            result = evaluate(qrels, consensus.run_frame(db, run_name), ["nDCG@10", "P@5", "RR"])
            if result.mean.isna().any():
                return f"bad means {result.mean.to_dict()}"
            loops += 1
        db.close()
        return f"read {loops}"
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def _wait_for_judgments(db, count: int, pending) -> None:
    """Wait until the workspace holds ``count`` judgments or the pool has finished (its
    outcomes then say why); fail after ``WAIT_SECONDS`` with the count reached."""
    deadline = time.monotonic() + WAIT_SECONDS
    while contents.counts(db)["judgments"] < count and not pending.ready():
        if time.monotonic() > deadline:
            reached = contents.counts(db)["judgments"]
            pytest.fail(f"the writers reached {reached} of {count} judgments in {WAIT_SECONDS} s")
        time.sleep(0.02)


def _task(args):
    return _read(args) if args[1] < 0 else _write(args)


@pytest.fixture
def workspace(make_workspace, fast_hashes) -> Path:
    """The demo with an annotator account per writer and an admin (cheap hashes: speed)."""
    writers = {f"w{worker}": ("annotator", "password-of-w") for worker in range(WRITERS)}
    return make_workspace.path("demo", accounts={**writers, "boss": ("admin", "password-of-boss")})


@pytest.mark.slow
@pytest.mark.timeout(600)  # eight processes on a shared machine; the waits inside are bounded
def test_eight_writers_and_a_reader_lose_nothing(workspace, tmp_path):
    db_path = workspace
    db = store.open_workspace(db_path)
    before = contents.counts(db)["judgments"]
    pairs = [tuple(r) for r in db.conn.execute(
        "SELECT DISTINCT query_id, chunk_id FROM run_results ORDER BY 1, 2 LIMIT 300"
    )]
    context = multiprocessing.get_context("spawn")
    manager = context.Manager()
    barrier, done = manager.Barrier(WRITERS + 2), manager.Event()
    jobs = [(str(db_path), w, pairs, barrier, done) for w in range(WRITERS)]
    jobs.append((str(db_path), -1, [], barrier, done))
    with context.Pool(WRITERS + 1) as pool:
        pending = pool.map_async(_task, jobs)
        barrier.wait(timeout=120)
        started = time.monotonic()
        # a backup while they write: a consistent snapshot with whole transactions only
        _wait_for_judgments(db, before + WRITERS * JUDGMENTS // 4, pending)
        copy = backup(db_path, tmp_path / "mid.db")
        _wait_for_judgments(db, before + WRITERS * JUDGMENTS, pending)
        done.set()
        outcomes = pending.get(timeout=300)
        seconds = time.monotonic() - started
    manager.shutdown()
    assert outcomes[:WRITERS] == ["ok"] * WRITERS, outcomes
    assert outcomes[-1].startswith("read "), outcomes[-1]

    assert contents.counts(db)["judgments"] == before + WRITERS * JUDGMENTS
    per_worker = dict(db.conn.execute(
        "SELECT annotator, count(*) FROM judgments WHERE annotator GLOB 'w[0-9]' GROUP BY 1"
    ).fetchall())
    assert per_worker == {f"w{w}": JUDGMENTS for w in range(WRITERS)}
    notes = db.conn.execute(
        "SELECT count(DISTINCT annotator || note) FROM judgments WHERE annotator GLOB 'w[0-9]'"
    ).fetchone()[0]
    assert notes == WRITERS * JUDGMENTS  # each judgment once: none lost, none doubled
    assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    mid = store.open_workspace(copy.path, create=False)
    assert mid.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert before <= contents.counts(mid)["judgments"] <= before + WRITERS * JUDGMENTS
    assert contents.counts(mid)["judgments"] == copy.counts["judgments"]
    print(f"{WRITERS * JUDGMENTS} judgments in {seconds:.1f} s; reader: {outcomes[-1]}")
