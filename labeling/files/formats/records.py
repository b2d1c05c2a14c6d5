"""Writing named-column files (chunks, queries, qrels, runs) as CSV or JSON lines."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from labeling.errors import InputError
from labeling.files.formats.values import plain_value


def write_records(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """CSV for ``.csv`` (``.tsv``: tab), JSON lines for ``.jsonl``/``.json``/``.ndjson``.

    CSV quoting (pandas) keeps commas, quotes and newlines inside values; JSON lines are UTF-8
    without escaping non-ASCII; missing values become empty cells / ``null``.
    """
    suffix = Path(path).suffix.lower()
    if suffix in (".csv", ".tsv"):
        df.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",", lineterminator="\n")
        return
    if suffix not in (".jsonl", ".json", ".ndjson"):
        raise InputError(
            f"cannot tell the format from suffix {suffix!r}; use .csv, .tsv or .jsonl",
            source=os.fspath(path),
        )
    columns = [str(c) for c in df.columns]
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for values in df.itertuples(index=False, name=None):
            row = {c: plain_value(v) for c, v in zip(columns, values, strict=True)}
            fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False))
            fh.write("\n")
