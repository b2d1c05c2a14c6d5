"""CSV (comma, header row required), TSV (tab, header row) and JSON-lines files with named columns.

Column aliases (case-sensitive, first column found wins; two aliases of one column is an error):

- query id:  ``query_id``, ``qid``, ``query-id``
- doc id:    ``doc_id``, ``docid``, ``corpus-id``, ``chunk_id``
- relevance (qrels): ``relevance``, ``grade``, ``label``, ``score``
- run: ``score`` and/or ``rank``; a run with only ``rank`` gets ``score = -rank``
- records: ``_id`` is read as ``id``

Ids are always strings (a JSON ``7`` becomes ``"7"``). In records, CSV columns other than ids
become integers or floats when every value parses as one, as ``pandas.read_csv`` would; JSON
values keep their JSON types. Blank lines are skipped; line numbers are physical file lines.
A CSV value may span lines inside quotes; errors name the line the record starts on. A quote
left open (running to the end of the file, or closed by a later quote with text after it) is an
error naming the line where it opened: a file never silently becomes fewer, longer rows.
JSON booleans are not numbers (a grade of ``true`` is refused), and ids holding whitespace or
control characters are refused (``labeling.workspace.ids``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable, Iterator
from typing import TextIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from labeling.errors import InputError
from labeling.files.formats.text import iter_checked_blocks, read_checked, source_name
from labeling.workspace import ids
from labeling.workspace.evidence import SPAN_SHAPE, parse_spans

PathLike = str | os.PathLike[str]

QUERY_ALIASES = ("query_id", "qid", "query-id")
DOC_ALIASES = ("doc_id", "docid", "corpus-id", "chunk_id")
RELEVANCE_ALIASES = ("relevance", "grade", "label", "score")
_ID_COLUMNS = {"id", *QUERY_ALIASES, *DOC_ALIASES}
# Every column name a pair file's header may hold (a line with none of them is not a header).
COLUMN_NAMES = frozenset({*_ID_COLUMNS, *RELEVANCE_ALIASES, "rank", "_id"})
_MAX_INT = 2.0**53
TOO_DEEP = "JSON nested too deeply (arrays or objects inside each other hundreds of levels deep)"


class Rows:
    """A parsed block: a frame of raw values plus the physical line of each row."""

    def __init__(self, frame: pd.DataFrame, lines: np.ndarray, header_line: int | None):
        self.frame = frame
        self.lines = lines
        self.header_line = header_line


# --- CSV ---------------------------------------------------------------------------------------


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


def _read_csv_rows(data: bytes, delimiter: str, source: str) -> Rows:
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


# --- JSON lines ----------------------------------------------------------------------------


def _jsonl_rows(data: bytes, source: str, first_line: int = 1) -> Rows:
    records: list[dict] = []
    lines: list[int] = []
    for offset, raw in enumerate(data.decode("utf-8").split("\n")):
        if not raw.strip():
            continue
        lineno = first_line + offset
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON: {exc.msg} (column {exc.colno})", source=source, line=lineno
            ) from None
        except RecursionError:
            raise InputError(TOO_DEEP, source=source, line=lineno) from None
        if not isinstance(value, dict):
            raise InputError(
                f"expected a JSON object, found {type(value).__name__}", source=source, line=lineno
            )
        records.append(value)
        lines.append(lineno)
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    return Rows(frame, np.asarray(lines, dtype=np.int64), None)


# --- conversions -------------------------------------------------------------------------------


def _pick(rows: Rows, aliases: tuple[str, ...], source: str, required: bool = True) -> str | None:
    found = [name for name in aliases if name in rows.frame.columns]
    if len(found) > 1:
        raise InputError(
            f"columns {found[0]!r} and {found[1]!r} both name {aliases[0]}",
            source=source,
            line=rows.header_line,
        )
    if not found:
        if not required:
            return None
        line = rows.header_line
        if line is None and len(rows.lines):
            line = int(rows.lines[0])
        raise InputError(
            f"missing required column {aliases[0]!r} (accepted names: {', '.join(aliases)})",
            source=source,
            line=line,
        )
    return found[0]


def _id_column(rows: Rows, column: str, source: str, label: str) -> pd.Series:
    values = rows.frame[column]
    if not pd.api.types.is_string_dtype(values.dtype) or values.dtype == object:
        out = []
        for i, v in enumerate(values.tolist()):
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, int) and not isinstance(v, bool):
                out.append(str(v))
            elif isinstance(v, float) and math.isfinite(v):
                out.append(str(int(v)) if v.is_integer() else repr(v))
            else:
                problem = "missing" if v is None or (isinstance(v, float)) else f"not an id: {v!r}"
                raise InputError(f"{label} is {problem}", source=source, line=rows.lines[i])
        values = pd.Series(out, dtype="str")
    else:
        values = values.astype("str").reset_index(drop=True)
        missing = values.isna().to_numpy()
        if missing.any():
            row = int(np.argmax(missing))
            raise InputError(f"{label} is missing", source=source, line=rows.lines[row])
    empty = (values.str.len() == 0).to_numpy()
    if empty.any():
        row = int(np.argmax(empty))
        raise InputError(f"{label} is empty", source=source, line=rows.lines[row])
    ids.check_id_values(values, label, source, lambda row: rows.lines[row])
    return values


def _number_column(rows: Rows, column: str, source: str, label: str, integer: bool) -> np.ndarray:
    raw = rows.frame[column]
    # JSON true/false would silently become 1/0: a boolean is never a number here.
    booleans = _booleans(raw)
    if booleans.any():
        raw = raw.astype(object).where(~booleans, None)
    numbers = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(numbers)
    if integer:
        bad |= (np.floor(numbers) != numbers) | (np.abs(numbers) >= _MAX_INT)
    if bad.any():
        row = int(np.argmax(bad))
        kind = "an integer" if integer else "a finite number"
        if booleans[row]:
            found = f"the boolean {str(rows.frame[column].iloc[row]).lower()}"
        else:
            found = repr(raw.iloc[row])
        raise InputError(
            f"{label} must be {kind}, found {found}", source=source, line=rows.lines[row]
        )
    return numbers


def _booleans(values: pd.Series) -> np.ndarray:
    """Which cells hold a boolean (a JSON ``true``/``false``)."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return np.ones(len(values), dtype=bool)
    if values.dtype != object:
        return np.zeros(len(values), dtype=bool)
    return np.fromiter(
        (isinstance(v, (bool, np.bool_)) for v in values.tolist()), dtype=bool, count=len(values)
    )


def _row_line(rows: Rows, row: int) -> int:
    return int(rows.lines[row])


def check_unique(rows: Rows, frame: pd.DataFrame, keys: list[str], source: str, what: str) -> None:
    second = frame.duplicated(keys, keep="first").to_numpy()
    if not second.any():
        return
    row = int(np.argmax(second))
    mask = np.ones(len(frame), dtype=bool)
    for key in keys:
        mask &= (frame[key] == frame[key].iat[row]).to_numpy()
    first = int(np.argmax(mask))
    shown = ", ".join(f"{k} {frame[k].iat[row]!r}" for k in keys)
    raise InputError(
        f"duplicate {what} for {shown} (first on line {_row_line(rows, first)})",
        source=source,
        line=_row_line(rows, row),
    )


def qrels_from_rows(rows: Rows, source: str) -> pd.DataFrame:
    """query_id, doc_id, relevance and, when the file has the column, ``evidence``: each row's
    spans (``labeling.workspace.evidence.parse_spans``; a CSV cell holds the JSON list)."""
    q = _pick(rows, QUERY_ALIASES, source)
    d = _pick(rows, DOC_ALIASES, source)
    r = _pick(rows, RELEVANCE_ALIASES, source)
    frame = pd.DataFrame(
        {
            "query_id": _id_column(rows, q, source, "query_id"),
            "doc_id": _id_column(rows, d, source, "doc_id"),
            "relevance": _number_column(rows, r, source, "relevance", True).astype(np.int64),
        }
    )
    if "evidence" in rows.frame.columns:
        frame["evidence"] = _evidence_column(rows, source)
    return frame


def _evidence_column(rows: Rows, source: str) -> pd.Series:
    """Each row's evidence spans (an empty list for none)."""
    spans = []
    for i, value in enumerate(rows.frame["evidence"].tolist()):
        if isinstance(value, float) and math.isnan(value) or value == "":
            value = None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise InputError(SPAN_SHAPE, source=source, line=int(rows.lines[i])) from None
        spans.append(parse_spans(value, source=source, line=int(rows.lines[i])))
    return pd.Series(spans, dtype=object)


def run_from_rows(rows: Rows, source: str) -> pd.DataFrame:
    q = _pick(rows, QUERY_ALIASES, source)
    d = _pick(rows, DOC_ALIASES, source)
    s = _pick(rows, ("score",), source, required=False)
    r = _pick(rows, ("rank",), source, required=False)
    if s is None and r is None:
        _pick(rows, ("score", "rank"), source)
    frame = pd.DataFrame(
        {
            "query_id": _id_column(rows, q, source, "query_id"),
            "doc_id": _id_column(rows, d, source, "doc_id"),
        }
    )
    ranks = _number_column(rows, r, source, "rank", True) if r is not None else None
    frame["score"] = (
        _number_column(rows, s, source, "score", False) if s is not None else -ranks  # type: ignore[operator]
    )
    if ranks is not None:
        frame["rank"] = pd.array(ranks.astype(np.int64), dtype="Int64")
    return frame


def _infer_csv_column(values: pd.Series) -> pd.Series:
    if len(values) == 0 or (values.str.len() == 0).any():
        return values
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.isna().any():
        return values
    as_float = numbers.to_numpy(dtype=np.float64)
    if (np.floor(as_float) == as_float).all() and pd.api.types.is_integer_dtype(numbers.dtype):
        return numbers.astype(np.int64)
    return numbers.astype(np.float64)


def records_from_rows(rows: Rows, source: str, csv_like: bool) -> pd.DataFrame:
    frame = rows.frame.reset_index(drop=True)
    if "_id" in frame.columns:
        if "id" in frame.columns:
            raise InputError(
                "columns '_id' and 'id' both name the id", source=source, line=rows.header_line
            )
        frame = frame.rename(columns={"_id": "id"})
        rows = Rows(frame, rows.lines, rows.header_line)
    _pick(rows, ("id",), source)
    out = {}
    for column in frame.columns:
        if column in _ID_COLUMNS:
            out[column] = _id_column(rows, column, source, column)
        elif csv_like:
            out[column] = _infer_csv_column(frame[column])
        else:
            out[column] = frame[column]
    return pd.DataFrame(out)


# --- file-level entry points ---------------------------------------------------------------------


def read_rows(path: PathLike, fmt: str) -> Rows:
    source = source_name(path)
    data = read_checked(path)
    if fmt == "jsonl":
        rows = _jsonl_rows(data, source)
        if not len(rows.lines):
            raise InputError("file is empty (only blank lines)", source=source)
        return rows
    return _read_csv_rows(data, "\t" if fmt == "tsv" else ",", source)


def read_records(path: PathLike, fmt: str) -> pd.DataFrame:
    """Every record of a chunks or queries file (``csv``, ``tsv`` or ``jsonl``); a repeated id is
    an error naming its line."""
    source = source_name(path)
    rows = read_rows(path, fmt)
    frame = records_from_rows(rows, source, csv_like=fmt != "jsonl")
    check_unique(rows, frame, ["id"], source, "id")
    return frame


def iter_rows(path: PathLike, fmt: str, batch_rows: int) -> Iterator[Rows]:
    """Blocks of rows; a JSON-lines block is cut at line ends, a CSV one by pyarrow's reader."""
    if batch_rows < 1:
        raise ValueError("batch_rows must be positive")
    source = source_name(path)
    if fmt == "jsonl":
        block_bytes = min(64 << 20, max(1 << 20, batch_rows * 256))
        seen = False
        for first_line, block in iter_checked_blocks(path, block_bytes):
            rows = _jsonl_rows(block, source, first_line)
            for start in range(0, len(rows.lines), batch_rows):
                seen = True
                yield Rows(
                    rows.frame.iloc[start : start + batch_rows].reset_index(drop=True),
                    rows.lines[start : start + batch_rows],
                    None,
                )
        if not seen:
            raise InputError("file is empty (only blank lines)", source=source)
        return
    yield from _iter_csv_rows(path, "\t" if fmt == "tsv" else ",", batch_rows, source)


def _iter_csv_rows(path: PathLike, delimiter: str, batch_rows: int, source: str) -> Iterator[Rows]:
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
