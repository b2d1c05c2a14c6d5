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

import json
import math
from collections.abc import Iterator

import numpy as np
import pandas as pd

from labeling.errors import InputError
from labeling.files.formats.csv_rows import PathLike, Rows, iter_csv_rows, read_csv_rows
from labeling.files.formats.text import iter_checked_blocks, read_checked, source_name
from labeling.workspace import ids
from labeling.workspace.evidence import SPAN_SHAPE, parse_spans

QUERY_ALIASES = ("query_id", "qid", "query-id")
DOC_ALIASES = ("doc_id", "docid", "corpus-id", "chunk_id")
RELEVANCE_ALIASES = ("relevance", "grade", "label", "score")
_ID_COLUMNS = {"id", *QUERY_ALIASES, *DOC_ALIASES}
# Every column name a pair file's header may hold (a line with none of them is not a header).
COLUMN_NAMES = frozenset({*_ID_COLUMNS, *RELEVANCE_ALIASES, "rank", "_id"})
_MAX_INT = 2.0**53
TOO_DEEP = "JSON nested too deeply (arrays or objects inside each other hundreds of levels deep)"



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
    return read_csv_rows(data, "\t" if fmt == "tsv" else ",", source)


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
    yield from iter_csv_rows(path, "\t" if fmt == "tsv" else ",", batch_rows, source)
