"""Shared test setup: a clean Streamlit cache per test and a fixed order of the test groups.

Order: core library tests first (milliseconds), then ``tests/app`` (AppTest, a fraction of a
second each), then ``tests/e2e`` (a real browser) last, so a fast failure shows up first.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from labeling.files.demo import build_demo

TESTS = Path(__file__).resolve().parent
GROUPS = {"app": 1, "e2e": 2}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def group(item: pytest.Item) -> int:
        try:
            first = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:
            return 0
        return GROUPS.get(first, 0)

    items.sort(key=group)  # stable: keeps the file order within a group


@pytest.fixture(scope="session")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace, built once per session: a template, copy it before writing."""
    path = tmp_path_factory.mktemp("demo") / "scorecard.db"
    build_demo(path)
    return path


@pytest.fixture
def fast_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap argon2 parameters: the real ones cost ~50 ms per hash by design."""
    from argon2 import PasswordHasher

    from labeling.workspace import accounts

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(accounts, "_HASHER", cheap)
    accounts._dummy_hash.cache_clear()


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """``st.cache_data`` / ``st.cache_resource`` outlive an AppTest; start each test empty."""
    yield
    streamlit = sys.modules.get("streamlit")
    if streamlit is not None:
        streamlit.cache_data.clear()
        streamlit.cache_resource.clear()
