"""The labels a run is scored against when the workspace holds several chunk sets.

Rule: a run that names its chunk set (``runs.chunk_set``) is scored against the labels of that
chunk set's chunks and of chunks that belong to no chunk set; the labels of chunks that belong
only to other chunk sets describe other units of retrieval and are left out (they would count
as relevant items the run could never return). A run that names no chunk set, and every run of
a workspace without chunk sets, is scored against all labels, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from labeling.workspace import chunk_sets

if TYPE_CHECKING:
    import sqlite_utils


def run_chunk_set(db: sqlite_utils.Database, run: str) -> str | None:
    """The chunk set ``run`` retrieves from (None: not stated); a cache key part."""
    return chunk_sets.run_chunk_set(db, run)


def labels_for_chunk_set(
    db: sqlite_utils.Database, chunk_set: str | None, qrels: pd.DataFrame
) -> pd.DataFrame:
    """``qrels`` (query_id, doc_id = chunk id, relevance) without the labels of chunks that belong
    only to chunk sets other than ``chunk_set``; all of them for ``None``."""
    return chunk_sets.keep_chunk_set_labels(db, chunk_set, qrels)


def unstated_chunk_set(db: sqlite_utils.Database, run: str) -> str | None:
    """The warning for a run that names no chunk set in a workspace of several: it is scored
    against every chunk set's labels, relevant chunks it could never return among them. None
    when the run names one or the workspace holds at most one chunk set."""
    if run_chunk_set(db, run) is not None:
        return None
    names = chunk_sets.chunk_set_names(db)
    if len(names) < 2:
        return None
    return (f"Run {run} names no chunk set, so it is scored against the labels of every chunk "
            f"set ({', '.join(names)}): relevant chunks of a chunking it does not retrieve from "
            "count as missed. Name its chunk set (Chunking page, run fields) to score it on "
            "that chunk set's labels.")


def labels_for_run(db: sqlite_utils.Database, run: str, qrels: pd.DataFrame) -> pd.DataFrame:
    """``labels_for_chunk_set`` of the chunk set ``run`` names."""
    return labels_for_chunk_set(db, run_chunk_set(db, run), qrels)
