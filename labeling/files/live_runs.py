"""A live run: every query of a split asked of a retriever connection, stored as a run.

Conventions
- The *setup* is the connection (kind, name, URL, options: method, headers with their
  ``${VARIABLE}`` references, never their values, template, paths), the parameters, ``k`` and
  the split; its SHA-256 (``setup_hash``) goes into the run's ``index_build`` and metadata, so
  the History tells the versions of a tuning loop apart.
- Each query's answer (or error) is committed as it arrives (``live_run_queries``); running the
  same name with the same setup again asks only the queries that are not done, so an
  interrupted or partly failed run is completed without repeating finished queries.
- ``threads`` queries are in flight at once, and at most ``rate`` queries start per second (None:
  no limit); only the calling thread writes the workspace.
- The run is (re)stored after every pass from the done queries. A query that failed is never a
  silent zero: the run's metadata ``live_run.incomplete`` lists the failed queries with their
  errors, and the scorecard says so. Hits whose id is no chunk of the workspace are counted and
  listed (``unknown_hits``), not stored as results.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labeling.errors import InputError
from labeling.model_calls.postgres_search import PostgresRetriever
from labeling.model_calls.retrievers import HttpRetriever, PythonRetriever, RetrievalFailed
from labeling.workspace import (
    chunk_store,
    connections,
    live_runs,
    query_store,
    roles,
    runs,
)
from labeling.workspace.ids import check_run_name
from labeling.workspace.run_parts import write_run_parts
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

UNKNOWN_LISTED = 50  # unknown hit ids kept in the metadata (all are counted)


@dataclass
class LiveRunResult:
    """What a live run did: queries asked now and in all, the failed ones with their errors,
    the hits naming no chunk of the workspace."""

    run_name: str
    setup_hash: str
    total: int
    asked_now: int
    failed: dict[str, str] = field(default_factory=dict)
    unknown_hits: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    results: int = 0

    @property
    def incomplete(self) -> bool:
        return bool(self.failed)

    def summary(self) -> str:
        """One line for the command line and the page."""
        state = (f"incomplete: {len(self.failed)} queries failed" if self.failed
                 else "complete")
        return (f"run {self.run_name}: {self.total - len(self.failed)}/{self.total} queries "
                f"answered ({self.asked_now} asked now), {self.results:,} results, "
                f"{self.unknown_hits:,} hits naming no chunk of the workspace; {state}")


def parse_params(pairs: list[str], source: str = "--param") -> dict[str, Any]:
    """``NAME=VALUE`` pairs as a dict; a value that reads as a JSON number or boolean is one,
    any other is text. ``InputError`` naming a pair without ``=``."""
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InputError(f"a parameter is NAME=VALUE, not {pair!r}", source=source)
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        params[name.strip()] = parsed if isinstance(parsed, (int, float, bool)) else value
    return params


def setup_of(connection: connections.Connection, params: Mapping[str, Any], k: int,
             split: str | None) -> dict[str, Any]:
    """The setup a run is made with (module conventions; never a secret's value)."""
    return {"connection": connection.name, "kind": connection.kind,
            "base_url": connection.base_url, "options": connection.options,
            "params": dict(sorted(params.items())), "k": k, "split": split}


def setup_hash(setup: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(setup, sort_keys=True).encode()).hexdigest()


def retriever_for(connection: connections.Connection,
                  environ: Mapping[str, str] | None = None, **settings: Any):
    """The caller of ``connection``'s retriever (``settings``: ``HttpRetriever`` fields)."""
    environ = os.environ if environ is None else environ
    if connection.kind == connections.PYTHON:
        return PythonRetriever(connection.base_url)
    if connection.kind == connections.POSTGRES:
        if connection.key_env and connection.key_env not in environ:
            raise InputError(f"the environment variable {connection.key_env} (the password) is "
                             "not set here", source="retrieve")
        return PostgresRetriever(connection.base_url, connection.options,
                                 environ.get(connection.key_env) if connection.key_env else None)
    return HttpRetriever(connection.base_url, connection.options, environ, **settings)


def live_run(db: sqlite_utils.Database, connection: connections.Connection, run_name: str, *,
             params: Mapping[str, Any] | None = None, k: int = 100, split: str | None = None,
             threads: int = 4, rate: float | None = None,
             progress: Callable[[int, int, int], None] | None = None,
             retriever: Any = None) -> LiveRunResult:
    """Ask every query of ``split`` (all queries: None) and store the run ``run_name``
    (module conventions). ``progress(done, total, failed)`` is called after each answer."""
    check_run_name(run_name)
    if not connection.id and roles.current_actor(db) is not None:
        raise roles.AccessDenied("runs from the app go only through a connection an admin "
                                 "stored")
    if not 1 <= k <= 10_000:
        raise InputError("k is between 1 and 10,000", source="retrieve")
    params = dict(params or {})
    setup = setup_of(connection, params, k, split)
    digest = setup_hash(setup)
    queries = _queries(db, split)
    if len(queries) > connection.call_ceiling:
        raise InputError(f"the connection {connection.name!r} allows at most "
                         f"{connection.call_ceiling:,} queries a run, not {len(queries):,}",
                         source="retrieve")
    done = _check_progress(db, run_name, digest)
    todo = [(qid, text) for qid, text in queries if qid not in done]
    caller = retriever or retriever_for(connection)
    finished = len(queries) - len(todo)
    failures = 0
    pacer = Pacer(rate)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        futures = {pool.submit(_ask, caller, text, k, params, pacer): qid
                   for qid, text in todo}
        for future in as_completed(futures):
            hits, error = future.result()
            _record(db, run_name, digest, futures[future], hits, error)
            finished += 1
            failures += error is not None
            if progress:
                progress(finished, len(queries), failures)
    return _store_run(db, run_name, setup, digest, [q for q, _ in queries], len(todo))


class Pacer:
    """At most ``rate`` starts a second across threads (``wait`` blocks until the next slot);
    None: no limit."""

    def __init__(self, rate: float | None) -> None:
        if rate is not None and not rate > 0:
            raise InputError("the rate is a number of queries a second above 0",
                             source="retrieve")
        self.gap = 1 / rate if rate else 0.0
        self.next = time.monotonic()
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.gap:
            return
        with self.lock:
            slot = max(self.next, time.monotonic())
            self.next = slot + self.gap
        time.sleep(max(0.0, slot - time.monotonic()))


def _ask(caller: Any, text: str, k: int, params: Mapping[str, Any], pacer: Pacer):
    pacer.wait()
    try:
        return caller.search(text, k, params), None
    except RetrievalFailed as error:
        return [], str(error)


def _queries(db: sqlite_utils.Database, split: str | None) -> list[tuple[str, str]]:
    rows = query_store.split_query_texts(db.conn, split)
    if not rows:
        raise InputError(f"no queries{f' in the split {split!r}' if split else ''} to run",
                         source="retrieve")
    return rows


def _check_progress(db: sqlite_utils.Database, run_name: str, digest: str) -> set[str]:
    """The queries already done under this name and setup; refuses another setup."""
    other = live_runs.other_setup_answered(db.conn, run_name, digest)
    stored = runs.run_id(db.conn, run_name) is not None
    if other or (stored and not live_runs.has_answers(db.conn, run_name)):
        raise InputError(f"a run named {run_name!r} exists with another setup: give the new "
                         "version its own run name", source="retrieve")
    return live_runs.done_queries(db.conn, run_name)


def _record(db: sqlite_utils.Database, run_name: str, digest: str, query_id: str,
            hits: list, error: str | None) -> None:
    with write_transaction(db, action="live_run") as conn:
        live_runs.record_answer(conn, run_name, digest, query_id, hits=json.dumps(hits),
                                error=error, asked_at=utc_now())


def _store_run(db: sqlite_utils.Database, run_name: str, setup: dict, digest: str,
               query_ids: list[str], asked_now: int) -> LiveRunResult:
    """(Re)store the run from the done queries, its metadata naming the failed ones."""
    result = LiveRunResult(run_name, digest, len(query_ids), asked_now)
    known = chunk_store.chunk_id_set(db.conn)
    rows: list[tuple] = []
    for query_id, status, hits, error in live_runs.answers(db.conn, run_name):
        if status == "failed":
            result.failed[query_id] = error
            continue
        seen: set[str] = set()
        for doc, score in json.loads(hits):
            if doc not in known:
                result.unknown_hits += 1
                if len(result.unknown_ids) < UNKNOWN_LISTED and doc not in result.unknown_ids:
                    result.unknown_ids.append(doc)
            elif doc not in seen:
                seen.add(doc)
                rows.append((query_id, doc, len(seen), score))
    result.results = len(rows)
    meta = {"live_run": {**setup, "setup_hash": digest, "incomplete": result.incomplete,
                         "failed_queries": result.failed, "unknown_hits": result.unknown_hits,
                         "unknown_ids": result.unknown_ids}}
    with write_transaction(db, action="live_run") as conn:
        runs.delete_run(conn, run_name)
        run_id = runs.insert_run(conn, {
            "name": run_name,
            "index_build": f"live {setup['kind']} {setup['connection']} setup {digest[:12]}",
            "created_at": utc_now(), "notes": result.summary(), "metadata": json.dumps(meta)})
        runs.insert_ranked_results(conn, run_id, rows)
        write_run_parts(conn, run_id)
    return result


def error_shown(error: str, *, admin: bool) -> str:
    """A query's error as a person sees it: whole for an admin; for anyone else without what
    the server said in its reply (an internal service's error body may hold what only admins
    should read), e.g. "HTTP 400 (the server's reason: admins see it)"."""
    if admin:
        return error
    return re.sub(r"^(HTTP \d{3}): .*?( \(after \d+ attempts\))?$",
                  r"\1 (the server's reason: admins see it)\2", error, flags=re.S)


def run_incompleteness(db: sqlite_utils.Database, run_name: str) -> str | None:
    """"incomplete: n queries failed" for a live run with failed queries, else None."""
    live = json.loads(runs.run_metadata(db.conn, run_name) or "{}").get("live_run")
    if live and live.get("incomplete"):
        return f"incomplete: {len(live['failed_queries'])} queries failed"
    return None
