"""Reading and writing the field's file formats: TREC qrels/runs, CSV/TSV, JSON lines, BEIR.

Frames use these columns (ids are always strings, never ints):

- qrels: ``query_id`` str, ``doc_id`` str, ``relevance`` int64 (negative: judged not relevant)
- run:   ``query_id`` str, ``doc_id`` str, ``score`` float64, ``rank`` Int64 when the file has
  ranks, ``tag`` str for TREC runs

Every bad input raises :class:`labeling.errors.InputError` naming the file, the 1-based physical
line (blank lines count; they are skipped, not rejected) and the problem. Ids holding whitespace
or control characters are refused, since no TREC file could hold them (``ids``). Whole-file readers
reject a repeated (query, doc) pair; streaming readers do not (a pair may span batches), so
their callers enforce uniqueness. See ``tabular`` for the accepted column aliases.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pandas as pd

from labeling.errors import InputError
from labeling.files.formats import tabular, trec
from labeling.files.formats.beir import BeirData, read_beir, write_beir
from labeling.files.formats.detect import FORMATS, detect_format, reads_as_trec
from labeling.files.formats.records import write_records
from labeling.files.formats.text import source_name
from labeling.files.formats.trec import write_trec_qrels, write_trec_run

__all__ = [
    "FORMATS",
    "BeirData",
    "detect_format",
    "iter_qrels_batches",
    "iter_record_batches",
    "iter_run_batches",
    "read_beir",
    "read_qrels",
    "read_records",
    "read_run",
    "write_beir",
    "write_records",
    "write_trec_qrels",
    "write_trec_run",
]

PathLike = str | os.PathLike[str]


def _format(path: PathLike, fmt: str | None, expected_trec: str) -> str:
    detected = fmt is None
    fmt = fmt or detect_format(path)
    if detected and fmt in ("csv", "tsv") and reads_as_trec(path, tabular.COLUMN_NAMES):
        fmt = expected_trec
    if fmt not in FORMATS:
        raise InputError(
            f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}",
            source=source_name(path),
        )
    if fmt.startswith("trec_") and fmt != expected_trec:
        what = "qrels" if expected_trec == "trec_qrels" else "run"
        raise InputError(
            f"expected a {what} file but this looks like {fmt.replace('_', ' ')}",
            source=source_name(path),
        )
    return fmt


# What each kind of pair file is called in messages, and how its rows become a frame.
_PAIRS = {
    "trec_qrels": ("judgement", tabular.qrels_from_rows),
    "trec_run": ("result", tabular.run_from_rows),
}


def _read_pairs(
    path: PathLike, fmt: str | None, kind: str, check_duplicates: bool
) -> pd.DataFrame:
    fmt = _format(path, fmt, kind)
    if fmt == kind:
        return trec.read_trec(path, fmt, check_duplicates=check_duplicates)
    what, from_rows = _PAIRS[kind]
    source = source_name(path)
    rows = tabular.read_rows(path, fmt)
    frame = from_rows(rows, source)
    if check_duplicates:
        tabular.check_unique(rows, frame, ["query_id", "doc_id"], source, what)
    return frame


def _iter_pairs(
    path: PathLike, fmt: str | None, kind: str, batch_rows: int
) -> Iterator[pd.DataFrame]:
    fmt = _format(path, fmt, kind)
    if fmt == kind:
        yield from trec.iter_trec(path, fmt, batch_rows)
        return
    from_rows = _PAIRS[kind][1]
    for rows in tabular.iter_rows(path, fmt, batch_rows):
        yield from_rows(rows, source_name(path))


def read_qrels(
    path: PathLike, format: str | None = None, *, check_duplicates: bool = True
) -> pd.DataFrame:
    """Judgements from TREC qrels, CSV/TSV or JSON lines; format detected from content if None.

    ``check_duplicates=False`` leaves a repeated (query, doc) pair to the caller (the metric
    engine refuses one too; read again with the check to name its line).
    """
    return _read_pairs(path, format, "trec_qrels", check_duplicates)


def read_run(
    path: PathLike, format: str | None = None, *, check_duplicates: bool = True
) -> pd.DataFrame:
    """A run from a TREC run file, CSV/TSV or JSON lines; format detected from content if None.

    ``check_duplicates`` as for :func:`read_qrels`.
    """
    return _read_pairs(path, format, "trec_run", check_duplicates)


def iter_run_batches(
    path: PathLike, format: str | None = None, batch_rows: int = 200_000
) -> Iterator[pd.DataFrame]:
    """Stream a run in frames of ``batch_rows`` rows. Duplicates are left to the caller."""
    return _iter_pairs(path, format, "trec_run", batch_rows)


def iter_qrels_batches(
    path: PathLike, format: str | None = None, batch_rows: int = 200_000
) -> Iterator[pd.DataFrame]:
    """Stream judgements in frames of ``batch_rows`` rows. Duplicates are left to the caller."""
    return _iter_pairs(path, format, "trec_qrels", batch_rows)


def _records_format(path: PathLike, fmt: str | None) -> str:
    fmt = fmt or detect_format(path)
    if fmt not in ("csv", "tsv", "jsonl"):
        raise InputError(
            f"expected CSV or JSON lines with named columns, found {fmt.replace('_', ' ')}",
            source=source_name(path),
        )
    return fmt


def read_records(path: PathLike, format: str | None = None) -> pd.DataFrame:
    """Chunks or queries: every column kept, ``_id`` read as ``id``, id columns as str.

    Requires an ``id`` column and rejects repeated ids.
    """
    return tabular.read_records(path, _records_format(path, format))


def iter_record_batches(
    path: PathLike, format: str | None = None, batch_rows: int = 50_000
) -> Iterator[pd.DataFrame]:
    """Stream records in frames of ``batch_rows`` rows; repeated ids are left to the caller.

    CSV column types are inferred per batch, so a column may be numeric in one batch and str in
    another; id columns are always str.
    """
    fmt = _records_format(path, format)
    for rows in tabular.iter_rows(path, fmt, batch_rows):
        yield tabular.records_from_rows(rows, source_name(path), csv_like=fmt != "jsonl")
