"""``scorecard app``: start the web app (Streamlit) on a workspace, from wherever it is installed.

The app's files come with the package (``labeling.product_files``); its Streamlit settings
(``.streamlit/config.toml``, read from the working folder by Streamlit itself) are passed as
command-line options, so the installed app looks and behaves as ``streamlit run app.py`` does in
a checkout. The same rule as the app's: a workspace without accounts is served on a loopback
address only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from labeling.commands import add_command
from labeling.errors import ScorecardError

DEFAULT_WORKSPACE = Path("scorecard.db")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
WORKSPACE_ENV = "SCORECARD_WORKSPACE"  # read by pages/_workspace.py


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "app",
        help="start the web app on a workspace",
        description=(
            "Start the web app (labeling sessions, dashboard, review) on a workspace. A "
            "workspace file that does not exist is built as the demo first. Without accounts "
            "the app serves this machine only (a loopback --host); add an admin account "
            "(scorecard user add DB NAME --role admin) before serving a team."
        ),
        handler=run_app, db=False,
    )
    parser.add_argument(
        "--workspace", type=Path, default=DEFAULT_WORKSPACE, metavar="PATH",
        help=f"workspace file (SQLite; default {DEFAULT_WORKSPACE} in the current folder)",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}, this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open a browser tab (for servers and scripts)")


def config_options(config: Path) -> list[str]:
    """``--section.key=value`` for every setting of a Streamlit ``config.toml``."""
    with config.open("rb") as handle:
        settings = tomllib.load(handle)
    options = []
    for section, values in settings.items():
        for key, value in values.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            options.append(f"--{section}.{key}={text}")
    return options


def streamlit_command(workspace: Path, host: str, port: int) -> list[str]:
    """The command that serves the installed app (the settings given here come last and win)."""
    from labeling import product_files

    given = [
        f"--server.address={host}", f"--server.port={port}",
        # Always headless: Streamlit's own browser opening comes with a first-run e-mail prompt
        # on the terminal (it failed `make run` with no terminal); the tab is opened by
        # `open_browser_when_ready` instead.
        "--server.headless=true",
        "--server.fileWatcherType=none",  # the installed files do not change while it runs
    ]
    names = {option.partition("=")[0] for option in given}
    settings = [option for option in config_options(product_files.streamlit_config())
                if option.partition("=")[0] not in names]
    return [sys.executable, "-m", "streamlit", "run", str(product_files.app_script()),
            *settings, *given]


def _check_served_safely(workspace: Path, host: str) -> None:
    """Refuse before starting what the app would refuse on every page: a workspace without
    accounts on an address other machines can reach."""
    from labeling.workspace import lockout, roles
    from labeling.workspace.store import open_workspace

    if lockout.is_loopback(host):
        return
    if roles.accounts_enabled(open_workspace(workspace, create=False)):
        return
    raise ScorecardError(
        f"{workspace} has no accounts, so it is served on this machine only (a loopback "
        f"--host such as 127.0.0.1, not {host}); add an admin account first with scorecard "
        f"user add {workspace} NAME --role admin"
    )


# Polls the server's health for up to a minute, then opens the app in the default browser.
_OPENER = """
import sys, time, urllib.request, webbrowser
url = sys.argv[1]
for _ in range(600):
    try:
        if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
            webbrowser.open(url)
            break
    except OSError:
        pass
    time.sleep(0.1)
"""


def open_browser_when_ready(url: str) -> None:
    """Open ``url`` in a browser tab once the server answers, from a detached process (this
    one becomes the server)."""
    subprocess.Popen([sys.executable, "-c", _OPENER, url], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)


def run_app(args: argparse.Namespace) -> int:
    workspace = args.workspace.expanduser().resolve()
    if not 0 < args.port < 65536:
        raise ScorecardError(f"--port {args.port}: expected a port from 1 to 65535")
    if not workspace.parent.is_dir():
        raise ScorecardError(f"{workspace.parent}: no such folder")
    if not workspace.exists():
        from labeling.files.demo import build_demo

        print(f"Building the demo workspace at {workspace} ...", file=sys.stderr)
        build_demo(workspace)
    _check_served_safely(workspace, args.host)
    command = streamlit_command(workspace, args.host, args.port)
    if not args.no_browser:
        open_browser_when_ready(f"http://{args.host}:{args.port}")
    env = {**os.environ, WORKSPACE_ENV: str(workspace)}
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":  # the server takes this process's place (and its signals)
        os.execve(command[0], command, env)
    return subprocess.call(command, env=env)
