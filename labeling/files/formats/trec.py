"""TREC qrels and run files, read the way trec_eval reads them.

qrels: ``query iter doc relevance`` (``iter`` ignored; relevance an integer, negative allowed).
run:   ``query Q0 doc rank score tag`` (``Q0`` ignored; rank an integer, kept but not used for
       ordering; score a finite number).

Fields are separated by any run of spaces or tabs (CR counts as a space, so CRLF files work).
Blank lines are skipped; line numbers in errors are physical file lines, blanks included.
Numbers are parsed as floats, so ``2.0`` and ``1e3`` are valid integers; ``1.5`` is not.
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from labeling.errors import InputError
from labeling.files.formats.text import (
    iter_checked_blocks,
    read_checked,
    row_line,
    source_name,
)
from labeling.metrics.pair_keys import first_duplicate
from labeling.workspace import ids

PathLike = str | os.PathLike[str]

_OFFSET_TYPES = {pa.string(): np.int32, pa.large_string(): np.int64}

# Integers round-trip exactly through float64 only below 2**53.
_MAX_INT = 2.0**53


@dataclass(frozen=True)
class _Layout:
    names: tuple[str, ...]
    label: str
    strings: tuple[str, ...]
    integers: tuple[str, ...]
    floats: tuple[str, ...]


QRELS = _Layout(
    names=("query_id", "iter", "doc_id", "relevance"),
    label="query iter doc relevance",
    strings=("query_id", "iter", "doc_id"),
    integers=("relevance",),
    floats=(),
)
RUN = _Layout(
    names=("query_id", "q0", "doc_id", "rank", "score", "tag"),
    label="query Q0 doc rank score tag",
    strings=("query_id", "q0", "doc_id", "tag"),
    integers=("rank",),
    floats=("score",),
)
_LAYOUTS = {"trec_qrels": QRELS, "trec_run": RUN}


def _arrow_parse(data: bytes, layout: _Layout) -> pa.Table | None:
    types = {name: pa.large_string() for name in layout.strings}
    types.update({name: pa.float64() for name in layout.integers + layout.floats})
    try:
        return pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=list(layout.names)),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _normalize(data: bytes) -> bytes:
    """Collapse whitespace runs to one space and strip line ends; keeps every line break."""
    data = data.translate(bytes.maketrans(b"\t\r", b"  "))
    while b"  " in data:
        data = data.replace(b"    ", b" ").replace(b"  ", b" ")
    data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n")
    if data.startswith(b" "):
        data = data[1:]
    if data.endswith(b" "):
        data = data[:-1]
    return data


def _has_empty_field(table: pa.Table, layout: _Layout) -> bool:
    # A doubled or leading space yields an empty field that pyarrow accepts as a string. Equal
    # neighbouring offsets mark one; reading them chunk by chunk allocates nothing large.
    for name in layout.strings:
        for chunk in table[name].chunks:
            if not len(chunk):
                continue
            offsets = np.frombuffer(chunk.buffers()[1], dtype=_OFFSET_TYPES[chunk.type])
            offsets = offsets[chunk.offset : chunk.offset + len(chunk) + 1]
            if (offsets[1:] == offsets[:-1]).any():
                return True
    return False


def _as_number(token: str) -> float | None:
    if not token.isascii() or "_" in token:
        return None
    try:
        return float(token)
    except ValueError:
        return None


def _scan_for_error(data: bytes, layout: _Layout, source: str, first_line: int) -> None:
    """Walk the lines in order and raise for the first bad one (the slow, exact path)."""
    text = data.decode("utf-8").translate({9: 32, 13: 32})
    width = len(layout.names)
    for offset, line in enumerate(text.split("\n")):
        fields = [f for f in line.split(" ") if f]
        if not fields:
            continue
        lineno = first_line + offset
        if len(fields) != width:
            # Fields are positional (as trec_eval reads them): too few means the last ones.
            missing = layout.label.split()[len(fields) :]
            gap = f"; missing: {' '.join(missing)}" if missing else ""
            raise InputError(
                f"expected {width} fields ({layout.label}), found {len(fields)}{gap}",
                source=source,
                line=lineno,
            )
        values = dict(zip(layout.names, fields, strict=True))
        for name in layout.integers + layout.floats:
            token = values[name]
            number = _as_number(token)
            if number is None:
                raise InputError(f"{name} is not a number: {token!r}", source=source, line=lineno)
            if not math.isfinite(number):
                raise InputError(
                    f"{name} must be finite, found {token!r}", source=source, line=lineno
                )
            if name in layout.integers and (number != int(number) or abs(number) >= _MAX_INT):
                raise InputError(
                    f"{name} must be an integer, found {token!r}", source=source, line=lineno
                )


def _numbers(table: pa.Table, layout: _Layout) -> dict[str, np.ndarray] | None:
    """The numeric columns as float64 arrays, or None if one holds a value it may not."""
    numbers = {}
    for name in layout.integers + layout.floats:
        values = table[name].to_numpy()
        if not np.isfinite(values).all():
            return None
        if name in layout.integers and (
            (np.floor(values) != values).any() or (np.abs(values) >= _MAX_INT).any()
        ):
            return None
        numbers[name] = values
    return numbers


def _to_frame(table: pa.Table, numbers: dict[str, np.ndarray], layout: _Layout) -> pd.DataFrame:
    # Large strings are what pandas' string dtype holds: the id columns convert without a copy.
    frame = pd.DataFrame(
        {
            "query_id": table["query_id"].to_pandas(),
            "doc_id": table["doc_id"].to_pandas(),
        }
    )
    if layout is QRELS:
        frame["relevance"] = numbers["relevance"].astype(np.int64)
    else:
        frame["score"] = numbers["score"]
        frame["rank"] = pd.array(numbers["rank"].astype(np.int64), dtype="Int64")
        frame["tag"] = table["tag"].to_pandas()
    return frame


def _parse(
    data: bytes, layout: _Layout, source: str, first_line: int
) -> tuple[pa.Table, dict[str, np.ndarray], bytes]:
    """Parse one block: the table, its numeric columns and the bytes parsed (maybe normalised)."""
    table = None
    # Tabs and CRs need normalising; everything else tries the single-space fast path first.
    if b"\t" not in data and b"\r" not in data:
        table = _arrow_parse(data, layout)
        if table is not None and _has_empty_field(table, layout):
            table = None
    if table is None:
        data = _normalize(data)
        table = _arrow_parse(data, layout)
    numbers = None if table is None else _numbers(table, layout)
    if table is None or numbers is None:
        _scan_for_error(data, layout, source, first_line)
        raise InputError("could not parse the file as TREC", source=source)
    _check_ids(table, data, source, first_line)
    return table, numbers, data


# After normalising, a line break is the only control character sound TREC data holds; a byte
# of another one, or any non-ASCII byte (Unicode spaces), calls for the exact id check.
_MAYBE_UNEXPORTABLE = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f-\xff]")


def _check_ids(table: pa.Table, data: bytes, source: str, first_line: int) -> None:
    """Refuse ids holding control characters or Unicode spaces (the split leaves them in)."""
    if not _MAYBE_UNEXPORTABLE.search(data):
        return
    for column in ("query_id", "doc_id"):
        ids.check_id_values(
            table[column], column, source, lambda row: row_line(data, row, first_line)
        )


def _check_duplicates(table: pa.Table, data: bytes, source: str, what: str) -> None:
    dup = first_duplicate(table["query_id"], table["doc_id"])
    if dup is None:
        return
    first, second = dup
    lines = row_line(data, first), row_line(data, second)
    query, doc = table["query_id"][second].as_py(), table["doc_id"][second].as_py()
    raise InputError(
        f"duplicate {what} for query {query!r}, doc {doc!r} (first on line {lines[0]})",
        source=source,
        line=lines[1],
    )


def read_trec(path: PathLike, kind: str, *, check_duplicates: bool = True) -> pd.DataFrame:
    """Whole TREC qrels (``kind='trec_qrels'``) or run (``'trec_run'``) file as a frame."""
    layout = _LAYOUTS[kind]
    source = source_name(path)
    data = read_checked(path)
    table, numbers, data = _parse(data, layout, source, 1)
    if table.num_rows == 0:
        raise InputError("file is empty (only blank lines)", source=source)
    if check_duplicates:
        _check_duplicates(table, data, source, "judgement" if layout is QRELS else "result")
    return _to_frame(table, numbers, layout)


def iter_trec(path: PathLike, kind: str, batch_rows: int) -> Iterator[pd.DataFrame]:
    """Stream a TREC file in frames of ``batch_rows`` rows (the last may be shorter).

    Duplicates are not checked: a pair may repeat across batches, so the caller enforces
    uniqueness (the SQLite importer does with a constraint).
    """
    if batch_rows < 1:
        raise ValueError("batch_rows must be positive")
    layout = _LAYOUTS[kind]
    source = source_name(path)
    block_bytes = min(64 << 20, max(1 << 20, batch_rows * 64))
    pending: list[pd.DataFrame] = []
    pending_rows = 0
    seen_rows = False
    for first_line, block in iter_checked_blocks(path, block_bytes):
        table, numbers, _ = _parse(block, layout, source, first_line)
        if table.num_rows == 0:
            continue
        seen_rows = True
        pending.append(_to_frame(table, numbers, layout))
        pending_rows += table.num_rows
        while pending_rows >= batch_rows:
            merged = pd.concat(pending, ignore_index=True) if len(pending) > 1 else pending[0]
            yield merged.iloc[:batch_rows].reset_index(drop=True)
            rest = merged.iloc[batch_rows:].reset_index(drop=True)
            pending, pending_rows = ([rest] if len(rest) else []), len(rest)
    if not seen_rows:
        raise InputError("file is empty (only blank lines)", source=source)
    if pending:
        yield pd.concat(pending, ignore_index=True) if len(pending) > 1 else pending[0]


# --- writers ---------------------------------------------------------------------------------


def _require(df: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{what} frame lacks column(s) {', '.join(missing)}")


def check_ids(values: pd.Series, column: str, target: str) -> list[str]:
    """Ids as strings; refuses empty ids and ids with whitespace (TREC cannot quote them)."""
    ids = [str(v) for v in values.tolist()]
    for i, value in enumerate(ids):
        if not value or any(ch.isspace() for ch in value):
            raise InputError(
                f"{column} {value!r} (row {i + 1}) is empty or contains whitespace; "
                "TREC files cannot hold it",
                source=target,
            )
    return ids


def _integers(values: pd.Series, column: str, target: str) -> list[int]:
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(numbers) | (np.floor(numbers) != numbers)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(
            f"{column} must be an integer, found {values.iloc[row]!r} (row {row + 1})",
            source=target,
        )
    return numbers.astype(np.int64).tolist()


def write_trec_qrels(df: pd.DataFrame, path: PathLike) -> None:
    """Write ``query 0 doc relevance`` lines in the frame's row order."""
    target = source_name(path)
    _require(df, ("query_id", "doc_id", "relevance"), "qrels")
    queries = check_ids(df["query_id"], "query_id", target)
    docs = check_ids(df["doc_id"], "doc_id", target)
    rels = _integers(df["relevance"], "relevance", target)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(f"{q} 0 {d} {r}\n" for q, d, r in zip(queries, docs, rels, strict=True))


def write_trec_run(df: pd.DataFrame, path: PathLike, tag: str = "scorecard") -> None:
    """Write ``query Q0 doc rank score tag`` lines.

    Queries keep their first-appearance order; within a query rows are ranked 1.. by score
    descending, ties broken by doc id descending in byte order (trec_eval's own order). Scores
    are written with ``repr`` so they read back bit for bit. The ``tag`` argument is used for
    every line.
    """
    target = source_name(path)
    _require(df, ("query_id", "doc_id", "score"), "run")
    if not tag or any(ch.isspace() for ch in tag):
        raise InputError(f"run tag {tag!r} is empty or contains whitespace", source=target)
    queries = check_ids(df["query_id"], "query_id", target)
    docs = check_ids(df["doc_id"], "doc_id", target)
    scores = pd.to_numeric(df["score"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(
            f"score must be a finite number, found {df['score'].iloc[row]!r} (row {row + 1})",
            source=target,
        )
    order_frame = pd.DataFrame(
        {
            "q": pd.factorize(pd.Series(queries, dtype=object))[0],
            "s": scores,
            "d": pd.Series(docs, dtype=object),
        }
    )
    # Python str comparison is code point order, which equals UTF-8 byte order.
    order = order_frame.sort_values(
        ["q", "s", "d"], ascending=[True, False, False], kind="stable"
    ).index.to_numpy()
    q_codes = order_frame["q"].to_numpy()[order]
    starts = np.r_[True, q_codes[1:] != q_codes[:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    ranks = (np.arange(len(order)) - group_start + 1).tolist()
    score_list = scores[order].tolist()
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(
            f"{queries[i]} Q0 {docs[i]} {r} {s!r} {tag}\n"
            for i, r, s in zip(order.tolist(), ranks, score_list, strict=True)
        )
