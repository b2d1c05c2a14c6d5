"""The no-accounts rule reads where the process really listens, not only server.address.

A real listening socket on 127.0.0.1 is found and counts as this machine only. Servers in
tests listen on loopback only, so the non-loopback case (``uvicorn app:app --host 0.0.0.0``)
is a process table in the kernel's format: the same reader on a copy of ``/proc``.
"""

from __future__ import annotations

import os
import socket
import sys

import pytest

from labeling.workspace import reachable

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid " \
         " timeout inode\n"


def fake_proc(tmp_path, tcp_rows: list[str], tcp6_rows: list[str], inodes: list[int]):
    """A ``/proc`` with one process (``self``) holding sockets ``inodes``."""
    root = tmp_path / "proc" / "self"
    (root / "fd").mkdir(parents=True)
    (root / "net").mkdir()
    for number, inode in enumerate(inodes):
        os.symlink(f"socket:[{inode}]", root / "fd" / str(number + 3))
    (root / "net" / "tcp").write_text(HEADER + "".join(tcp_rows))
    (root / "net" / "tcp6").write_text(HEADER + "".join(tcp6_rows))
    return tmp_path / "proc"


def row(number: int, local: str, state: str, inode: int) -> str:
    return (f"   {number}: {local} 00000000:0000 {state} 00000000:00000000 00:00000000 "
            f"00000000  1000        0 {inode} 1 0000000000000000 100 0 0 10 0\n")


def test_a_real_loopback_listener_is_found_and_is_this_machine_only():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        sockets = reachable.listening_sockets()
        assert reachable.Listening("127.0.0.1", port) in sockets
        assert reachable.network_addresses("127.0.0.1") == []
    assert reachable.Listening("127.0.0.1", port) not in reachable.listening_sockets()


def test_a_listener_on_every_interface_is_reachable_whatever_the_setting(tmp_path):
    proc = fake_proc(
        tmp_path,
        [row(0, "00000000:2135", "0A", 501),  # 0.0.0.0:8501, ours
         row(1, "0100007F:1F90", "0A", 502),  # 127.0.0.1:8080, ours
         row(2, "0401A8C0:0050", "0A", 999),  # 192.168.1.4:80, another process's
         row(3, "0100007F:D431", "01", 503)],  # an open connection, not listening
        [row(0, "00000000000000000000000000000000:2136", "0A", 504)],  # [::]:8502
        [501, 502, 503, 504])
    assert reachable.listening_sockets(proc) == [
        reachable.Listening("0.0.0.0", 8501), reachable.Listening("127.0.0.1", 8080),
        reachable.Listening("::", 8502)]
    # server.address says loopback, as uvicorn leaves it: the sockets decide
    assert reachable.network_addresses("127.0.0.1", proc) == ["0.0.0.0 port 8501",
                                                              ":: port 8502"]


def test_loopback_listeners_and_ipv6_loopback_are_this_machine_only(tmp_path):
    proc = fake_proc(
        tmp_path, [row(0, "0100007F:2135", "0A", 7)],
        [row(0, "00000000000000000000000001000000:2135", "0A", 8)], [7, 8])
    assert [str(s) for s in reachable.listening_sockets(proc)] == ["127.0.0.1 port 8501",
                                                                   "::1 port 8501"]
    assert reachable.network_addresses("127.0.0.1", proc) == []
    assert reachable.network_addresses("0.0.0.0", proc) == ["0.0.0.0"]  # the setting counts
