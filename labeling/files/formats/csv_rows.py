"""CSV and TSV files read into ``Rows`` (a frame of raw values and the physical line of
each row): the header, quoting checked against the whole file (a quote left open is an error
naming the line where it opened), pyarrow's reader for big files, and the lines of records
found again only when an error needs one. Conventions: ``labeling.files.formats.tabular``.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterator
from typing import TextIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from labeling.errors import InputError
from labeling.files.formats.text import iter_checked_blocks, read_checked

PathLike = str | os.PathLike[str]


class Rows:
    """A parsed block: a frame of raw values plus the physical line of each row."""

    def __init__(self, frame: pd.DataFrame, lines: np.ndarray, header_line: int | None):
        self.frame = frame
        self.lines = lines
        self.header_line = header_line



def _csv_header(text: str, delimiter: str, source: str) -> tuple[list[str], int]:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    previous_end = 0
    try:
        for row in reader:
            if row and any(cell.strip() for cell in row):
                header = [cell.strip() for cell in row]
                break
            previous_end = reader.line_num
        else:
            raise InputError("file is empty (only blank lines)", source=source)
    except csv.Error as exc:
        raise csv_error(text, delimiter, exc, previous_end + 1, source) from None
    line = reader.line_num
    seen: set[str] = set()
    for name in header:
        if not name:
            raise InputError("empty column name in the header", source=source, line=line)
        if name in seen:
            raise InputError(
                f"column {name!r} appears twice in the header", source=source, line=line
            )
        seen.add(name)
    return header, line


def _csv_record_lines(
    text: str | TextIO,
    delimiter: str,
    width: int,
    source: str,
    whole_text: Callable[[], str] | None = None,
) -> np.ndarray:
    """Start line of each data record; raises for the first malformed record.

    ``text`` is the file's text or an open text file (read as a stream); for the latter,
    ``whole_text`` gives the text an error message needs.
    """
    lines = io.StringIO(text) if isinstance(text, str) else text
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    starts: list[int] = []
    previous_end = 0
    header_seen = False
    try:
        for row in reader:
            start = previous_end + 1
            previous_end = reader.line_num
            if not row:
                continue
            if not header_seen:
                header_seen = True
                continue
            if len(row) != width:
                raise InputError(
                    f"expected {width} fields (from the header), found {len(row)}",
                    source=source,
                    line=start,
                )
            starts.append(start)
    except csv.Error as exc:
        full = text if isinstance(text, str) else whole_text()  # type: ignore[misc]
        raise csv_error(full, delimiter, exc, previous_end + 1, source) from None
    return np.asarray(starts, dtype=np.int64)


def _may_hide_open_quote(quotes: int, table: pa.Table | pa.RecordBatch) -> bool:
    """Whether pyarrow's lenient reading may have run a value on past its line.

    pyarrow reads a quote left open as a value running to the end of the file (or to the next
    quote). Sound quoting has an even number of quote characters, and a value spans lines only
    inside quotes: when neither sign shows, no check is needed.
    """
    if quotes % 2:
        return True
    return quotes > 0 and any(
        pc.any(pc.match_substring(column, "\n")).as_py() for column in table.columns
    )


def _check_quoting_of_file(path: PathLike, delimiter: str, width: int, source: str) -> None:
    """The csv module's strict pass over the file, streamed; raises for a malformed record."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        _csv_record_lines(
            handle, delimiter, width, source, lambda: read_checked(path).decode("utf-8")
        )


def csv_error(
    text: str, delimiter: str, exc: csv.Error, record_line: int, source: str
) -> InputError:
    """The csv module's complaint about the record starting on ``record_line``, as a sentence.

    A quote left open is the usual cause: it runs on to the end of the file or to some later
    quote, so the error names the line where that quote opened, not where the damage shows.
    """
    start = _offset_of_line(text, record_line)
    located = _quote_problem(text, start, delimiter)
    if located is None:
        return InputError(f"malformed CSV: {exc}", source=source, line=record_line)
    opened, closed = located
    open_line = text.count("\n", 0, opened) + 1
    if closed is None:
        return InputError(
            "a quote opened on this line is never closed, so every later line would become "
            "part of one value; close the quote or remove it",
            source=source,
            line=open_line,
        )
    close_line = text.count("\n", 0, closed) + 1
    if close_line == open_line:
        problem = (
            'text follows the closing quote of a quoted value (write a quote inside a value as "")'
        )
    else:
        problem = (
            f"a quote opened on this line is not closed before line {close_line}, where text "
            "follows the quote that closes it; close the quote on this line or remove it"
        )
    return InputError(problem, source=source, line=open_line)


def _offset_of_line(text: str, line: int) -> int:
    """Offset in ``text`` of the first character of 1-based ``line``."""
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found == -1:
            return len(text)
        offset = found + 1
    return offset


def _quote_problem(text: str, start: int, delimiter: str) -> tuple[int, int | None] | None:
    """The first bad quoted value of the record starting at offset ``start``.

    Returns ``(opening quote offset, offset of the closing quote)`` for a value with text after
    its closing quote, ``(opening quote offset, None)`` for a quote never closed, or None when
    the record's quoting is sound. Follows the csv module's strict rules: a quote opens a value
    only at the start of a field, ``""`` inside a quoted value is a literal quote.
    """
    at = start
    while True:
        if text.startswith('"', at):  # a quoted field
            opened, search = at, at + 1
            while True:
                close = text.find('"', search)
                if close == -1:
                    return opened, None
                if not text.startswith('"', close + 1):
                    break
                search = close + 2
            at = close + 1
            if at < len(text) and text[at] not in (delimiter, "\n", "\r"):
                return opened, close
        # Past an unquoted field (or a closing quote): the next delimiter or the record's end.
        delimiter_at = text.find(delimiter, at)
        end_at = text.find("\n", at)
        if end_at == -1:
            end_at = len(text)
        if delimiter_at == -1 or delimiter_at > end_at:
            return None
        at = delimiter_at + 1


def _arrow_csv_options(header: list[str], delimiter: str) -> dict:
    return {
        "read_options": pacsv.ReadOptions(column_names=header, skip_rows=0),
        "parse_options": pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
        "convert_options": pacsv.ConvertOptions(
            column_types={name: pa.string() for name in header},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    }


def read_csv_rows(data: bytes, delimiter: str, source: str) -> Rows:
    text = data.decode("utf-8")
    header, header_line = _csv_header(text, delimiter, source)
    options = _arrow_csv_options(header, delimiter)
    # Skip everything up to and including the header: pyarrow counts rows, not lines.
    body_offset = _byte_offset_after_line(data, header_line)
    try:
        table = pacsv.read_csv(io.BytesIO(data[body_offset:]), **options)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        _csv_record_lines(text, delimiter, len(header), source)
        raise InputError(f"could not parse the CSV: {exc}", source=source) from None
    lines = _LazyLines(text, delimiter, len(header), source)
    if _may_hide_open_quote(data.count(b'"'), table):
        lines.compute()
    frame = table.to_pandas()
    return Rows(frame, lines, header_line)  # type: ignore[arg-type]


class _LazyLines:
    """Record start lines, computed by the slow csv-module pass only when an error needs one."""

    def __init__(self, text: str, delimiter: str, width: int, source: str):
        self._args = (text, delimiter, width, source)
        self._lines: np.ndarray | None = None

    def __getitem__(self, row: int) -> int:
        return int(self.compute()[row])

    def compute(self) -> np.ndarray:
        """Run the strict pass now: raises for a malformed record, else keeps the lines."""
        if self._lines is None:
            self._lines = _csv_record_lines(*self._args)
        return self._lines


def _byte_offset_after_line(data: bytes, line: int) -> int:
    offset = 0
    for _ in range(line):
        nl = data.find(b"\n", offset)
        if nl == -1:
            return len(data)
        offset = nl + 1
    return offset




def iter_csv_rows(path: PathLike, delimiter: str, batch_rows: int, source: str) -> Iterator[Rows]:
    # A first pass checks the encoding block by block: pyarrow's UTF-8 errors carry no line.
    head = b""
    quotes = 0
    for _, block in iter_checked_blocks(path):
        if len(head) < 1 << 16:
            head += block[: 1 << 16]
        quotes += block.count(b'"')
    text_head = head.decode("utf-8", errors="replace")
    header, header_line = _csv_header(text_head, delimiter, source)
    options = _arrow_csv_options(header, delimiter)
    options["read_options"] = pacsv.ReadOptions(
        column_names=header, skip_rows=header_line, block_size=max(1 << 20, batch_rows * 128)
    )
    done = 0
    quoting_checked = False

    def slow_lines() -> _LazyLines:
        return _LazyOffsetLines(path, delimiter, len(header), source, done)

    try:
        reader = pacsv.open_csv(path, **options)
        pending: list[pd.DataFrame] = []
        count = 0
        for batch in reader:
            if not quoting_checked and _may_hide_open_quote(quotes, batch):
                _check_quoting_of_file(path, delimiter, len(header), source)
                quoting_checked = True
            pending.append(batch.to_pandas())
            count += batch.num_rows
            while count >= batch_rows:
                merged = pd.concat(pending, ignore_index=True)
                out = merged.iloc[:batch_rows].reset_index(drop=True)
                yield Rows(out, slow_lines(), header_line)  # type: ignore[arg-type]
                done += batch_rows
                rest = merged.iloc[batch_rows:].reset_index(drop=True)
                pending, count = [rest], len(rest)
        if count:
            yield Rows(pd.concat(pending, ignore_index=True), slow_lines(), header_line)  # type: ignore[arg-type]
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        data = read_checked(path)
        _csv_record_lines(data.decode("utf-8"), delimiter, len(header), source)
        raise InputError(f"could not parse the CSV: {exc}", source=source) from None


class _LazyOffsetLines(_LazyLines):
    def __init__(self, path: PathLike, delimiter: str, width: int, source: str, offset: int):
        self._path, self._offset = path, offset
        self._delimiter, self._width, self._source = delimiter, width, source
        self._lines = None

    def __getitem__(self, row: int) -> int:
        if self._lines is None:
            text = read_checked(self._path).decode("utf-8")
            self._lines = _csv_record_lines(text, self._delimiter, self._width, self._source)
        return int(self._lines[self._offset + row])
