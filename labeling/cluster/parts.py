"""The files of a run or of labels given as a file or a folder of parts, and how one is read.

A folder's parts are its files in name order, leaving out names starting with ``_`` or ``.``
(``_SUCCESS``, ``.crc`` files that Spark and Hadoop write). A part is Parquet when its name ends
in ``.parquet`` or ``.pq``, or, with a name that does not say (not ``.trec``, ``.csv``...), when
its first bytes are Parquet's magic number; any other part is read by
``labeling.files.formats`` (TREC, CSV/TSV or JSON lines, recognised by content), so a part
is parsed exactly as ``scorecard evaluate`` parses a whole file.

Parquet runs have columns query_id, doc_id and score (or rank); Parquet labels have query_id,
doc_id and relevance. Ids of any type are compared as strings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from labeling.errors import InputError
from labeling.files.formats import read_qrels, read_run
from labeling.metrics.partitioned import unified

PARQUET_SUFFIXES = (".parquet", ".pq")
TEXT_SUFFIXES = (".trec", ".run", ".qrels", ".txt", ".tsv", ".csv", ".jsonl", ".json")
PARQUET_MAGIC = b"PAR1"


def list_parts(path: str | os.PathLike[str], what: str) -> list[Path]:
    """The part files of ``path`` (a file is its own only part); ``what`` names it in errors."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"no such file or folder: {path}", source=what)
    parts = sorted(p for p in path.rglob("*")
                   if not p.is_dir() and not p.name.startswith(("_", ".")))
    if not parts:
        raise InputError(f"the folder {path} holds no part files", source=what)
    return parts


def is_parquet(path: Path) -> bool:
    """By the name's suffix, else by the first four bytes (a part is then opened twice)."""
    if path.suffix.lower() in PARQUET_SUFFIXES:
        return True
    if path.suffix.lower() in TEXT_SUFFIXES:
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == PARQUET_MAGIC
    except OSError:
        return False


RUN_COLUMNS = (("query_id", "doc_id"), ("score", "rank"))  # all of the first, one of the second
LABEL_COLUMNS = (("query_id", "doc_id", "relevance"), ())


def _parquet(path: Path, required: tuple[str, ...], either: tuple[str, ...] = ()) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read Parquet: {error}", source=str(path)) from None
    _check_columns(path, list(frame.columns), required, either)
    return frame


def _check_columns(
    path: Path, columns: list[str], required: tuple[str, ...], either: tuple[str, ...]
) -> None:
    missing = [c for c in required if c not in columns]
    if missing or (either and not any(c in columns for c in either)):
        wanted = ", ".join(required) + (f" and {' or '.join(either)}" if either else "")
        raise InputError(f"a Parquet part needs columns {wanted} (it has "
                         f"{', '.join(map(str, columns)) or 'none'})", source=str(path))


def check_parquet_parts(paths: list[Path], columns: tuple[tuple[str, ...], ...]) -> None:
    """Refuse, before any job starts, a Parquet part that cannot be read or lacks ``columns``
    (``RUN_COLUMNS`` or ``LABEL_COLUMNS``): reads each part's schema only, not its rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for path in paths:
        if not is_parquet(Path(path)):
            continue
        try:
            names = pq.read_schema(path).names
        except (OSError, ValueError, pa.ArrowException) as error:
            raise InputError(f"cannot read Parquet: {error}", source=str(path)) from None
        _check_columns(Path(path), names, *columns)


def read_run_part(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One run part as ``unified`` rows (query_id, doc_id, score, relevance NaN, label False)."""
    path = Path(path)
    if is_parquet(path):
        frame = _parquet(path, *RUN_COLUMNS)
    else:
        frame = read_run(path, check_duplicates=False)
    return unified(run=frame)


def read_label_part(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One labels part as query_id, doc_id (strings), relevance."""
    path = Path(path)
    if is_parquet(path):
        frame = _parquet(path, *LABEL_COLUMNS)
    else:
        frame = read_qrels(path)
    return pd.DataFrame({"query_id": frame["query_id"].astype(str),
                         "doc_id": frame["doc_id"].astype(str),
                         "relevance": frame["relevance"]})


def read_label_rows(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One labels part as ``unified`` rows (what a worker reads)."""
    return unified(qrels=read_label_part(path))


def read_labels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Labels (query_id, doc_id, relevance) from a file or a folder of parts."""
    return pd.concat([read_label_part(p) for p in list_parts(path, "labels")],
                     ignore_index=True)
