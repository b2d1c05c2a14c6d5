"""One app server and one headless Chromium for the browser tests, a workspace of its own for
each test.

``app_server``: the server the browser tests share. It runs ``app.py`` on a free loopback port
against a link (``$SCORECARD_WORKSPACE`` is a symbolic link); pages/_workspace.py resolves the link
on every call, so pointing the link at another file gives every browser session started after
that the other workspace, and the process stays warm. Each test points it at a workspace of its
own: ``app_workspace`` (a fresh copy of the demo, from ``make_workspace``, tests/conftest.py) or
``serve_workspace(path)`` (a workspace the test prepares). No test reads another test's writes,
so a test passes or fails alone and in any order. ``serve_app`` starts another server, for a test
that needs the server's own environment (the live-run flow); both go through ``_serve``. A
server's output goes to ``streamlit.log`` beside its workspace (or link). Chromium is Debian's
``/usr/bin/chromium`` (never ``playwright install``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CONNECTED = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"
STARTUP_SECONDS = 60


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def wait_until_healthy(server: subprocess.Popen, url: str, log_path: Path) -> None:
    """Wait until the server at ``url`` says ``ok``; fail with its log if it stops or is slow."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while not _healthy(url):
        if server.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the server did not start; log:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.2)


@contextlib.contextmanager
def _serve(workspace: Path) -> Iterator[str]:
    """Run ``app.py`` on ``workspace`` (built as the demo if missing) on a free loopback port;
    yields its base URL and stops it afterwards."""
    port = _free_port()
    env = {**os.environ, "SCORECARD_WORKSPACE": str(workspace)}
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
        "--server.address", "127.0.0.1", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]
    log_path = workspace.parent / "streamlit.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(server, url, log_path)
        yield url
    finally:
        stop_server(server)


def stop_server(server: subprocess.Popen) -> None:
    """Stop an app server: politely, then by force after 10 s."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


@dataclass(frozen=True)
class SharedServer:
    """The running app (``url``) and the link its workspace is (``link``)."""

    url: str
    link: Path

    def use(self, workspace: Path) -> str:
        """Point the server at ``workspace``: browser sessions started from now on open it (a
        new link renamed over the old one, so a session never finds no link). Returns the URL."""
        staged = self.link.with_name(f"{self.link.name}.next")
        staged.unlink(missing_ok=True)
        staged.symlink_to(Path(workspace).resolve())
        os.replace(staged, self.link)
        return self.url


@pytest.fixture(scope="session")
def shared_server(build_workspace, tmp_path_factory) -> Iterator[SharedServer]:
    """The one app server of the browser tests, started on a copy of the demo; tests point it
    at their own workspaces through ``app_workspace`` or ``serve_workspace``."""
    link = tmp_path_factory.mktemp("app") / "scorecard.db"
    link.symlink_to(build_workspace.path("demo"))
    with _serve(link) as url:
        yield SharedServer(url, link)


@pytest.fixture
def serve_workspace(shared_server: SharedServer) -> Callable[[Path], str]:
    """``serve_workspace(path)``: the shared server's URL, now serving the workspace at
    ``path`` (one the test prepared) to every browser session the test starts."""
    return shared_server.use


@pytest.fixture
def app_workspace(make_workspace, shared_server: SharedServer) -> Path:
    """Path of this test's own copy of the demo (no accounts), served by ``app_server``."""
    path = make_workspace.path("demo")
    shared_server.use(path)
    return path


@pytest.fixture
def app_server(shared_server: SharedServer, app_workspace: Path) -> str:
    """Base URL of the shared app, serving this test's own copy of the demo (``app_workspace``)."""
    return shared_server.url


@pytest.fixture(scope="session")
def serve_app():
    """``with serve_app(workspace) as url:`` another app server, for a test that needs one
    started with its own environment; other tests use ``app_server`` or ``serve_workspace``."""
    return _serve


@pytest.fixture(scope="session")
def browser():
    """A headless Debian Chromium driven by Playwright."""
    if not CHROMIUM.exists():
        message = "Chromium not found: install it with `apt-get install chromium` (Debian)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, app_server: str):
    """A fresh browser page on the app's home, loaded and idle."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(app_server)
    _wait_idle(page)
    yield page
    context.close()


@contextlib.contextmanager
def offline_page(browser) -> Iterator[tuple[object, list[str]]]:
    """A page in an offline context that lets only file:, data: and blob: URLs through; yields
    (page, the other URLs it asked for) and closes the context after."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    context.set_offline(True)
    requested: list[str] = []

    def only_the_file(route) -> None:
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            requested.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_file)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page, requested
    finally:
        context.close()


def _wait_idle(page) -> None:
    page.locator(CONNECTED).wait_for(state="attached")
    page.locator(IDLE).wait_for(state="attached")


@pytest.fixture
def wait_idle():
    """``wait_idle(page)``: wait until the app is connected and its script has finished."""
    return _wait_idle
