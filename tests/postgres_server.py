"""A real PostgreSQL server on loopback for tests (Debian's ``postgresql`` package, which
``.ci/run`` installs): a fresh cluster in a temporary folder, trust authentication, listening on
127.0.0.1 at a free port, stopped and removed at the end.

PostgreSQL refuses to run as root, so under root the cluster belongs to the ``postgres`` account
(its folder is made readable to it).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """``url`` is postgresql://scorecard@127.0.0.1:PORT/postgres."""

    def __init__(self) -> None:
        folder = binaries()
        if folder is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = folder
        self.root = Path(tempfile.mkdtemp(prefix="scorecard-pg-", dir="/tmp"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.root, "postgres", "postgres")
        self.port = _free_port()
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "scorecard",
                  "--no-sync", "-E", "UTF8", "--locale", "C")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "server.log"), "-w", "start")
        self.url = f"postgresql://scorecard@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([*self.as_user, str(self.bin / program), *args], check=True,
                       capture_output=True, timeout=120)

    def close(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
