"""Where this process can be reached from: the addresses its listening TCP sockets are bound to.

The no-accounts rule (a workspace without accounts is served to this machine only, see
``labeling.workspace.roles``) must hold however the app is served: ``streamlit run`` with a
``server.address``, or ``uvicorn app:app --host 0.0.0.0``, which never reads that setting.
So the rule reads the sockets the process actually listens on: on Linux, the process's open
file descriptors (``/proc/<pid>/fd``, ``socket:[inode]``) matched to the listening rows
(state ``0A``) of ``/proc/<pid>/net/tcp`` and ``tcp6``. Where they cannot be read (another
system) only the configured address is known.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from labeling.workspace.lockout import is_loopback

PROC = Path("/proc")
LISTEN = "0A"  # the TCP state column of /proc/net/tcp: listening


@dataclass(frozen=True)
class Listening:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host} port {self.port}"


def listening_sockets(proc: Path | None = None, pid: str = "self") -> list[Listening] | None:
    """The TCP sockets process ``pid`` listens on, or None when they cannot be read."""
    root = (proc or PROC) / pid
    try:
        names = os.listdir(root / "fd")
    except OSError:
        return None
    inodes = set()
    for name in names:
        try:
            target = os.readlink(root / "fd" / name)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:[") and target.endswith("]"):
            inodes.add(target[len("socket:["):-1])
    found = []
    for table, decode in (("tcp", _ipv4), ("tcp6", _ipv6)):
        try:
            rows = (root / "net" / table).read_text().splitlines()[1:]
        except OSError:  # no IPv6 here
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 10 or fields[3] != LISTEN or fields[9] not in inodes:
                continue
            address, port = fields[1].split(":")
            found.append(Listening(decode(address), int(port, 16)))
    return found


def network_addresses(configured: str | None, proc: Path | None = None) -> list[str]:
    """Where other machines could reach this process's server: each listening socket not bound
    to loopback, and the configured address (``server.address``) when it is not loopback
    (``""``: every interface). Empty: this machine only."""
    sockets = listening_sockets(proc) or []
    reachable = [str(s) for s in sockets if not is_loopback(s.host)]
    if not is_loopback(configured):
        reachable.append(configured or "every interface (no server.address set)")
    return reachable


def _ipv4(text: str) -> str:
    return str(ipaddress.IPv4Address(bytes.fromhex(text)[::-1]))  # stored little-endian


def _ipv6(text: str) -> str:
    raw = bytes.fromhex(text)  # four 32-bit words, each little-endian
    return str(ipaddress.IPv6Address(b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))))
