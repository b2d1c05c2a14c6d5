"""The labels a run is scored against when the workspace holds several chunk sets.

Rule: a run that names its chunk set (``runs.chunk_set``) is scored against the labels of that
chunk set's chunks and of chunks that belong to no chunk set; the labels of chunks that belong
only to other chunk sets describe other units of retrieval and are left out (they would count
as relevant items the run could never return). A run that names no chunk set, and every run of
a workspace without chunk sets, is scored against all labels, as before.
"""

from __future__ import annotations

import pandas as pd
import sqlite_utils

from labeling.workspace import chunk_sets


def run_chunk_set(db: sqlite_utils.Database, run: str) -> str | None:
    """The chunk set ``run`` retrieves from (None: not stated); a cache key part."""
    return chunk_sets.run_chunk_set(db, run)


def labels_for_chunk_set(
    db: sqlite_utils.Database, chunk_set: str | None, qrels: pd.DataFrame
) -> pd.DataFrame:
    """``qrels`` (query_id, doc_id = chunk id, relevance) without the labels of chunks that belong
    only to chunk sets other than ``chunk_set``; all of them for ``None``."""
    if chunk_set is None or qrels.empty:
        return qrels
    foreign = chunk_sets.foreign_chunk_ids(db, chunk_set)
    if foreign.empty:
        return qrels
    return qrels.loc[~qrels["doc_id"].astype("string").isin(foreign)].reset_index(drop=True)


def labels_for_run(db: sqlite_utils.Database, run: str, qrels: pd.DataFrame) -> pd.DataFrame:
    """``labels_for_chunk_set`` of the chunk set ``run`` names."""
    return labels_for_chunk_set(db, run_chunk_set(db, run), qrels)
