"""Byte-level checks shared by every reader: emptiness, BOM, UTF-8, NUL bytes, line numbers.

Conventions: files are UTF-8; a leading BOM is stripped; CRLF is accepted. Line numbers are
1-based physical lines of the file, blank lines included.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from labeling.errors import InputError

BOM = b"\xef\xbb\xbf"


def source_name(path: str | os.PathLike[str]) -> str:
    return os.fspath(path)


def unreadable(exc: OSError) -> str:
    """Why a file could not be opened, as the problem part of a message."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a folder, not a file"
    return f"cannot read the file: {exc.strerror or exc}"


def line_of_offset(data: bytes, offset: int, first_line: int = 1) -> int:
    """Physical line number of the byte at ``offset``."""
    return first_line + data.count(b"\n", 0, offset)


def check_block(data: bytes, source: str, first_line: int = 1) -> None:
    """Raise InputError at the line of the first invalid UTF-8 byte or NUL byte."""
    nul = data.find(b"\0")
    # isascii() is a single fast pass; only non-ASCII data pays for a full decode.
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if nul == -1 or exc.start < nul:
                raise InputError(
                    f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
                    source=source,
                    line=line_of_offset(data, exc.start, first_line),
                ) from None
    if nul != -1:
        raise InputError(
            "NUL byte in the file (is it binary or UTF-16?)",
            source=source,
            line=line_of_offset(data, nul, first_line),
        )


def read_start(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """The first ``limit`` bytes of the file (all of it by default), BOM stripped; a file that
    cannot be opened or is empty is an ``InputError``."""
    source = source_name(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit)
    except OSError as exc:
        raise InputError(unreadable(exc), source=source) from None
    data = data.removeprefix(BOM)
    if not data:
        raise InputError("file is empty", source=source)
    return data


def read_checked(path: str | os.PathLike[str]) -> bytes:
    """Whole file as bytes, BOM stripped, after the empty / UTF-8 / NUL checks."""
    data = read_start(path)
    check_block(data, source_name(path))
    return data


def iter_checked_blocks(
    path: str | os.PathLike[str], block_bytes: int = 16 << 20
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(first_line, block)`` pieces of the file, each ending at a line break.

    Cutting at line breaks keeps multi-byte characters whole, so each block is checked alone.
    """
    source = source_name(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(unreadable(exc), source=source) from None
    with fh:
        line = 1
        carry = b""
        first = True
        while True:
            chunk = fh.read(block_bytes)
            if first:
                if chunk.startswith(BOM):
                    chunk = chunk[len(BOM) :]
                if not chunk and not fh.read(1):
                    raise InputError("file is empty", source=source)
                first = False
            if not chunk:
                if carry:
                    check_block(carry, source, line)
                    yield line, carry
                return
            chunk = carry + chunk
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                carry = chunk
                continue
            block, carry = chunk[:cut], chunk[cut:]
            check_block(block, source, line)
            yield line, block
            line += block.count(b"\n")


def data_line_numbers(data: bytes, first_line: int = 1) -> np.ndarray:
    """Physical line numbers of the non-blank lines of ``data`` (whitespace-only counts blank).

    Used only on the error path, to turn a row index into the line a user can open.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if len(arr) and arr[-1] != 10:
        ends = np.append(ends, len(arr))
    starts = np.concatenate(([0], ends[:-1] + 1))
    is_space = (arr == 32) | (arr == 9) | (arr == 13)
    # A line is blank when its count of non-space bytes is zero.
    nonspace = np.concatenate(([0], np.cumsum(~is_space, dtype=np.int64)))
    counts = nonspace[ends] - nonspace[starts]
    return np.flatnonzero(counts > 0) + first_line


def row_line(data: bytes, row: int, first_line: int = 1) -> int:
    return int(data_line_numbers(data, first_line)[row])
