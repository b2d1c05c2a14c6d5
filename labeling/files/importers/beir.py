"""A BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) imported in one transaction."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.importers.lines import RowLines
from labeling.files.importers.qrels import store_qrels
from labeling.files.importers.records import store_chunks, store_queries
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import search_index
from labeling.workspace.imports import forget_seen

if TYPE_CHECKING:
    import sqlite_utils


def import_beir(
    db: sqlite_utils.Database, folder: str | Path, annotator: str = "beir"
) -> ImportResult:
    """A BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) in one transaction.

    Corpus documents become chunks (chunk id = BEIR ``_id``), qrels become judgments by
    ``annotator``; all qrels files of the folder are read (the split of a query comes from its
    own ``metadata.split``, not from the qrels file name).
    """
    source = str(folder)
    try:
        data = formats.read_beir(folder)
    except InputError:
        raise
    except (UnicodeDecodeError, ValueError, OSError) as error:
        raise InputError(f"cannot read BEIR folder: {error}", source=source) from error
    root = Path(folder)
    result = ImportResult("beir")
    with import_transaction(db, source) as conn:
        try:
            for name, frame, store in (
                ("corpus.jsonl", data.corpus.reset_index(drop=True), store_chunks),
                ("queries.jsonl", data.queries.reset_index(drop=True), store_queries),
            ):
                lines = RowLines(root / name, "jsonl", 0, len(frame))
                store(conn, frame, lines, str(root / name), result)
                forget_seen(conn)
            search_index.settle_after_import(conn, len(data.corpus))
        finally:
            forget_seen(conn)
        qrels = data.qrels.reset_index(drop=True)
        splits = qrels["split"] if "split" in qrels.columns else pd.Series("test", qrels.index)
        warnings: list[str] = []
        for split in pd.unique(splits):
            part = qrels.loc[(splits == split).to_numpy()].reset_index(drop=True)
            path = root / "qrels" / f"{split}.tsv"
            stored = store_qrels(
                conn,
                [(part, RowLines(path, "tsv", 0, len(part)))],
                annotator=annotator,
                strict=False,
                source=str(path),
            )
            result.rows += stored.rows
            result.placeholders += stored.placeholders
            warnings += stored.warnings
    result.warnings = warnings
    return result

