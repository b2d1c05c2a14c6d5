"""Batches of a file being imported, and the physical line of each of their rows.

The streaming readers do not report lines, so the error path counts records in the file: the
n-th non-blank line (TREC, JSON lines) or the start line of the n-th CSV/TSV record after the
header. That count runs only when an error needs a line.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd

from labeling.errors import InputError
from labeling.files import formats


class RowLines:
    """Physical line of each row of a batch, computed from the file only when asked."""

    def __init__(self, path: str | Path, fmt: str | None, first_row: int, rows: int):
        self.path, self.fmt, self.first_row, self.rows = Path(path), fmt, first_row, rows

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, row: int) -> int:
        return line_of_row(self.path, self.fmt, self.first_row + int(row))

    def first(self) -> int | None:
        """The line of the batch's first row (None for an empty batch)."""
        return self[0] if self.rows else None


def line_of_row(path: Path, fmt: str | None, index: int) -> int:
    """1-based physical line where data row ``index`` (0-based) of the file starts."""
    fmt = fmt or formats.detect_format(path)
    if fmt in ("csv", "tsv"):
        return _csv_line(path, "\t" if fmt == "tsv" else ",", index)
    with open(path, "rb") as handle:
        seen = 0
        for number, line in enumerate(handle, start=1):
            if line.strip():
                if seen == index:
                    return number
                seen += 1
    return index + 1


def _csv_line(path: Path, delimiter: str, index: int) -> int:
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        seen = -1  # the header is record -1
        while True:
            start = reader.line_num + 1
            try:
                record = next(reader)
            except (StopIteration, csv.Error):
                break
            if not any(cell.strip() for cell in record):
                continue
            if seen == index:
                return start
            seen += 1
    return index + 2


def batches(
    iterator: Iterable[pd.DataFrame], path: str | Path, fmt: str | None
) -> Iterator[tuple[pd.DataFrame, RowLines]]:
    """(batch, its lines); reader failures other than InputError become InputError."""
    source = str(path)
    first_row = 0
    it = iter(iterator)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except InputError:
            raise
        except (UnicodeDecodeError, ValueError, OSError) as error:
            raise InputError(f"cannot read file: {error}", source=source) from error
        yield batch.reset_index(drop=True), RowLines(path, fmt, first_row, len(batch))
        first_row += len(batch)
