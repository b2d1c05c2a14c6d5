"""Streamlit servers and one headless Chromium for the browser tests.

``app_server``: the server most browser tests share. It runs ``app.py`` on a free loopback port
against a copy of the demo workspace without accounts (from ``build_workspace``,
tests/conftest.py; the app building the demo when the file is missing is tests/app/test_app.py's
subject). ``serve_app`` starts another server on a workspace a test module prepares (the sign-in
tests use one with accounts, the injection test a hostile one); both go through ``_serve``.
A server's output goes to ``streamlit.log`` beside its workspace. Chromium is Debian's
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
from collections.abc import Iterator
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
_SERVER_WORKSPACE: dict[str, Path] = {}


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


@pytest.fixture(scope="session")
def app_server(build_workspace) -> Iterator[str]:
    """Base URL of a running app whose workspace is a copy of the demo without accounts."""
    _SERVER_WORKSPACE["path"] = build_workspace.path("demo")
    with _serve(_SERVER_WORKSPACE["path"]) as url:
        yield url


@pytest.fixture(scope="session")
def serve_app():
    """``with serve_app(workspace) as url:`` another app server, on a workspace of your own."""
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


@pytest.fixture(scope="session")
def app_workspace(app_server: str) -> Path:
    """Path of the running app's workspace file (open it with ``labeling.workspace.store``)."""
    return _SERVER_WORKSPACE["path"]
