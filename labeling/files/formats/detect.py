"""Guess a file's format from its first data line, never from its name."""

from __future__ import annotations

import math
import os

from labeling.errors import InputError
from labeling.files.formats.text import BOM, check_block, read_start, source_name

FORMATS = ("trec_qrels", "trec_run", "csv", "tsv", "jsonl")


def _number(token: str) -> float | None:
    if not token.isascii() or "_" in token:
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _first_line(head: bytes) -> str | None:
    for line in head.decode("utf-8", errors="replace").split("\n"):
        if line.strip():
            return line.strip()
    return None


def reads_as_trec(path: str | os.PathLike[str], column_names: frozenset[str]) -> bool:
    """Whether a file detected as CSV/TSV is better read as TREC: its first non-blank line has
    no comma, at least two whitespace-separated fields, and none of them is a column name.

    Such a line is a damaged TREC line (a field missing, a word where a number belongs), not a
    header; reading it as TREC names the line and the field instead of a missing column.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return False
    line = _first_line(head.removeprefix(BOM))
    if line is None or "," in line:
        return False
    fields = [field.strip('"') for field in line.split()]
    return len(fields) >= 2 and not column_names.intersection(fields)


def detect_format(path: str | os.PathLike[str]) -> str:
    """One of ``trec_qrels``, ``trec_run``, ``csv``, ``tsv`` (tab-separated with a header, as
    BEIR qrels) or ``jsonl``, judged from the first non-blank line:

    ``{`` starts JSON lines; 4 whitespace-separated fields with an integer last are TREC qrels;
    6 fields with numeric 4th and 5th are a TREC run; a line with tabs but no commas is TSV;
    anything else is a CSV header.
    """
    source = source_name(path)
    head = read_start(path, 1 << 16)
    cut = head.rfind(b"\n")
    check_block(head if cut == -1 or len(head) < 1 << 16 else head[: cut + 1], source)
    text = head.decode("utf-8", errors="replace")
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("{"):
            return "jsonl"
        fields = stripped.replace("\t", " ").split()
        if len(fields) == 4:
            rel = _number(fields[3])
            if rel is not None and rel.is_integer():
                return "trec_qrels"
        if len(fields) == 6 and _number(fields[3]) is not None and _number(fields[4]) is not None:
            return "trec_run"
        if "\t" in stripped and "," not in stripped:
            return "tsv"
        return "csv"
    raise InputError("file is empty (only blank lines)", source=source)
