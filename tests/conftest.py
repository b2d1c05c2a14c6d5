"""Shared test setup: the workspace factory, a clean Streamlit cache per test and a fixed order of
the test groups.

Workspaces: every test that needs a workspace file gets it from one factory (``make_workspace``
in a test, ``build_workspace`` in a module- or session-scoped fixture), never by copying files or
inserting rows by hand. A workspace starts as a copy of a template built once per session (the
demo, or an empty workspace per grading scale) and is then filled by ``tests.workspaces.add_rows``
through the library's own functions: the importers for chunks, queries and runs, ``add_judgment``
for judgments, ``add_user`` for accounts. A test states what it needs as rows::

    db = make_workspace(                      # an open database, closed after the test
        chunks=[{"id": "c1", "text": "cats", "doc_id": "d1"}],  # other keys: metadata
        queries=[{"id": "q1", "text": "cat?", "split": "dev", "topic": "pets"}],  # attributes
        runs={"bm25": [("q1", "c1", 2.5)]},   # (query, chunk, score[, rank])
        judgments=[("q1", "c1", 3, "ann")],   # (query, chunk, grade, annotator[, options])
        accounts={"ada": "admin"},            # name -> role, or (role, password)
    )
    path = make_workspace.path("demo", accounts={"bob": "annotator"})  # a closed file

Order: core library tests first (milliseconds), then ``tests/app`` (AppTest, a fraction of a
second to seconds each; marked ``app``), then ``tests/e2e`` (a real browser) last, so a fast
failure shows up first. ``make test-fast`` runs the core tests only (``-m "not slow and not e2e
and not app"``); ``make test`` runs everything.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from labeling.files.demo import build_demo
from labeling.workspace import accounts, grading, store
from tests.workspaces import add_rows

TESTS = Path(__file__).resolve().parent
GROUPS = {"app": 1, "e2e": 2}
WORKSPACE_NAME = "scorecard.db"
Scale = str | Sequence[tuple[int, str, str]]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def group(item: pytest.Item) -> int:
        try:
            first = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:
            return 0
        return GROUPS.get(first, 0)

    for item in items:  # `-m "not app"` (make test-fast) leaves out every page test
        if group(item) == GROUPS["app"]:
            item.add_marker(pytest.mark.app)
    items.sort(key=group)  # stable: keeps the file order within a group


# ---------------------------------------------------------------------------------------------
# Workspaces


class Templates:
    """The files every workspace starts as a copy of: the demo, built once per session with an
    empty labeling queue (the demo as shipped, whose queue holds its runs' pool, is
    ``demo-with-queue``, built the first time one is asked for), and an empty workspace per
    grading scale, made by ``init_workspace`` the first time one is asked
    for. Every copy shares its template's signing key (a test that needs another key sets one).
    """

    def __init__(self, demo_file: Path, folder: Path) -> None:
        self.demo_file = demo_file
        self._folder = folder
        self._empty: dict[str, Path] = {}

    def get(self, kind: str, scale: Scale) -> Path:
        if kind in ("demo", "demo-with-queue"):
            if scale != "graded":
                raise ValueError("the demo has its own scale (graded)")
            if kind == "demo":
                return self.demo_file
            queued = self._folder / "demo-with-queue.db"
            if not queued.exists():
                build_demo(queued)
            return queued
        if kind != "empty":
            raise ValueError(f"kind is 'empty', 'demo' or 'demo-with-queue', not {kind!r}")
        key = json.dumps(scale)
        if key not in self._empty:
            path = self._folder / f"empty-{len(self._empty) + 1}.db"
            grading.init_workspace(path, scale=scale).close()
            self._empty[key] = path
        return self._empty[key]


class WorkspaceFactory:
    """``path(kind, at=..., scale=..., **rows)``: a new workspace file, closed; returns its path.

    ``kind`` is ``"empty"`` (a new workspace on ``scale``), ``"demo"`` (the demo's chunks,
    queries, three runs and alice's and bob's labels, nothing queued) or ``"demo-with-queue"``
    (the demo as the app builds it: the same, with its runs' pool in the labeling queue).
    ``at`` is where the file goes (by default a name ``new_path`` gives). The rows (``chunks``,
    ``queries``, ``runs``, ``judgments``, ``accounts``) are added on top by
    ``tests.workspaces.add_rows``, which shows their shapes.
    """

    def __init__(self, templates: Templates, new_path: Callable[[], Path]) -> None:
        self.templates = templates
        self._new_path = new_path

    def path(
        self, kind: str = "empty", *, at: Path | None = None, scale: Scale = "graded", **rows: Any
    ) -> Path:
        path = self._copy(kind, at, scale)
        if any(rows.values()):
            db = store.open_workspace(path, create=False)
            try:
                add_rows(db, **rows)
            finally:
                db.close()
        return path

    def _copy(self, kind: str, at: Path | None, scale: Scale) -> Path:
        path = Path(at) if at is not None else self._new_path()
        if path.exists():
            raise FileExistsError(f"{path}: a file is already there")
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.templates.get(kind, scale), path)
        return path


class TestWorkspaceFactory(WorkspaceFactory):
    """A test's factory: ``make_workspace(kind, **spec)`` is ``path(kind, **spec)`` opened; the
    databases it opened are closed after the test."""

    __test__ = False  # not a test class

    def __init__(self, templates: Templates, new_path: Callable[[], Path]) -> None:
        super().__init__(templates, new_path)
        self.opened: list[sqlite_utils.Database] = []

    def __call__(
        self, kind: str = "empty", *, at: Path | None = None, scale: Scale = "graded", **rows: Any
    ) -> sqlite_utils.Database:
        db = store.open_workspace(self._copy(kind, at, scale), create=False)
        self.opened.append(db)
        if any(rows.values()):
            add_rows(db, **rows)
        return db


@pytest.fixture(scope="session")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace, built once per session: the factory's template, never written."""
    path = tmp_path_factory.mktemp("demo") / WORKSPACE_NAME
    build_demo(path, with_queue=False)
    return path


@pytest.fixture(scope="session")
def workspace_templates(demo_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(demo_file, tmp_path_factory.mktemp("templates"))


@pytest.fixture(scope="session")
def build_workspace(
    workspace_templates: Templates, tmp_path_factory: pytest.TempPathFactory
) -> WorkspaceFactory:
    """The factory for module- and session-scoped fixtures: ``build_workspace.path(...)`` makes
    each workspace in a folder of its own."""
    return WorkspaceFactory(
        workspace_templates, lambda: tmp_path_factory.mktemp("workspace") / WORKSPACE_NAME
    )


@pytest.fixture
def make_workspace(
    workspace_templates: Templates, tmp_path: Path
) -> Iterator[TestWorkspaceFactory]:
    """The factory for a test: ``make_workspace(kind, **rows)`` an open database,
    ``make_workspace.path(kind, **rows)`` a closed file; in the test's ``tmp_path``
    (``scorecard.db``, then ``scorecard-2.db``, ...) unless ``at`` says where."""

    def new_path() -> Path:
        names = itertools.chain([WORKSPACE_NAME], (f"scorecard-{n}.db" for n in itertools.count(2)))
        return next(p for p in map(tmp_path.joinpath, names) if not p.exists())

    factory = TestWorkspaceFactory(workspace_templates, new_path)
    yield factory
    for db in factory.opened:
        db.close()


# ---------------------------------------------------------------------------------------------
# Other shared fixtures


@pytest.fixture
def fast_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap argon2 parameters: the real ones cost ~50 ms per hash by design."""
    from argon2 import PasswordHasher

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(accounts, "_HASHER", cheap)
    accounts._dummy_hash.cache_clear()


@pytest.fixture
def fresh_result_cache() -> Iterator[None]:
    """An empty result cache of the dashboard (``labeling.evaluation.inputs.result_cache``) before
    and after the test: a module whose tests build workspaces at the same path uses it."""
    from labeling.evaluation.inputs import result_cache

    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """``st.cache_data`` / ``st.cache_resource`` outlive an AppTest; start each test empty."""
    yield
    streamlit = sys.modules.get("streamlit")
    if streamlit is not None:
        streamlit.cache_data.clear()
        streamlit.cache_resource.clear()


@pytest.fixture
def chat_servers() -> Iterator[Callable[..., Any]]:
    """Start local chat-completions servers (``tests.chat_server.ChatServer(**options)``), as
    many as a test needs; each is closed when the test ends."""
    from tests.chat_server import ChatServer

    started: list[ChatServer] = []

    def start(**options: Any) -> ChatServer:
        started.append(ChatServer(**options))
        return started[-1]

    yield start
    for server in started:
        server.close()
