"""One bounded HTTP request (POST, or GET for search services): to one origin, never
redirected, read up to a size limit, within a whole-call deadline.

Conventions
- The *origin* of a URL is its (scheme, host, port), the port defaulting to 80 or 443. A request
  goes only to the origin of the address it was made for; a 3xx reply is an error, never
  followed, so headers (an API key) never reach another origin.
- ``deadline`` is seconds for the whole call: connecting, sending, the headers and every byte of
  the body. A watchdog closes the socket when it passes, so a server dripping a byte at a time
  cannot stretch a call beyond it (a per-read timeout would restart at each byte).
- ``max_bytes`` bounds the body: it is read in pieces, and the call fails as soon as more than
  ``max_bytes`` have arrived (nothing beyond it is kept in memory). Error bodies are read up to
  ``ERROR_BODY_BYTES`` only.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass

ERROR_BODY_BYTES = 2_000
PIECE_BYTES = 64 * 1024
DEFAULT_PORTS = {"http": 80, "https": 443}


class CallFailed(Exception):
    """The call did not give a usable reply; ``kind`` says which way: ``address``,
    ``unreachable`` (no connection could be made), ``broken`` (the connection failed after
    it was made), ``deadline``, ``too_large`` or ``redirect``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Reply:
    """A reply's status, headers (lower-case names) and body (complete when 2xx; at most
    ``ERROR_BODY_BYTES`` otherwise)."""

    status: int
    headers: dict[str, str]
    body: bytes


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of ``url``; ``CallFailed('address')`` when it is not an http:// or
    https:// URL with a host."""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError as error:
        raise CallFailed("address", f"the server address {url!r} has a bad port") from error
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise CallFailed("address",
                         f"the server address {url!r} is not an http:// or https:// URL")
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def post(url: str, body: bytes, headers: dict[str, str], *, deadline: float,
         max_bytes: int) -> Reply:
    """POST ``body`` to ``url`` under the module's rules; ``CallFailed`` otherwise."""
    return request("POST", url, body, headers, deadline=deadline, max_bytes=max_bytes)


def request(method: str, url: str, body: bytes | None, headers: dict[str, str], *,
            deadline: float, max_bytes: int) -> Reply:
    """Send ``method`` (GET or POST) to ``url`` under the module's rules; ``CallFailed``
    otherwise."""
    scheme, host, port = origin(url)
    parts = urllib.parse.urlsplit(url.strip())
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    started = time.monotonic()
    kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    connection = kind(host, port, timeout=deadline)
    ends = started + deadline
    watchdog = threading.Timer(deadline, _close, [None])
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.connect()
    except OSError as error:
        watchdog.cancel()
        connection.close()
        if time.monotonic() - started >= deadline * 0.999 or isinstance(error, TimeoutError):
            raise CallFailed("deadline",
                             f"no reply from {url} within {deadline:g} s") from error
        raise CallFailed("unreachable", f"cannot reach {url}: {error}") from error
    try:
        watchdog.args = [connection.sock]  # the response may take the socket over
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        status = response.status
        if 300 <= status < 400:
            raise CallFailed("redirect", f"HTTP {status} from {url}: the server redirects "
                             "elsewhere, and redirects are not followed")
        limit = max_bytes if 200 <= status < 300 else ERROR_BODY_BYTES
        data = _read(response, limit, truncate=not 200 <= status < 300, ends=ends)
        if time.monotonic() >= ends:  # the watchdog cut the body short
            raise CallFailed("deadline", f"no reply from {url} within {deadline:g} s")
        if data is None:
            raise CallFailed("too_large", f"the reply from {url} is larger than {limit:,} bytes")
        return Reply(status, {k.lower(): v for k, v in response.getheaders()}, data)
    except CallFailed:
        raise
    except (OSError, http.client.HTTPException) as error:
        if time.monotonic() - started >= deadline * 0.999 or isinstance(error, TimeoutError):
            raise CallFailed("deadline",
                             f"no reply from {url} within {deadline:g} s") from error
        raise CallFailed("broken", f"the connection to {url} broke: {error}") from error
    finally:
        watchdog.cancel()
        connection.close()


def _read(response: http.client.HTTPResponse, limit: int, *, truncate: bool,
          ends: float) -> bytes | None:
    """The body, in pieces, up to ``limit`` bytes: cut there when ``truncate``, else None. Stops
    (with what came) once the clock passes ``ends``."""
    pieces, size = [], 0
    while time.monotonic() < ends:
        piece = response.read1(PIECE_BYTES)
        if not piece:
            break
        size += len(piece)
        if size > limit:
            if not truncate:
                return None
            pieces.append(piece[: len(piece) - (size - limit)])
            break
        pieces.append(piece)
    return b"".join(pieces)


def _close(sock: socket.socket | None) -> None:
    """Cut the connection when the deadline passes (reads blocked on it then fail)."""
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
