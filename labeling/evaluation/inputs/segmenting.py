"""Queries and their segments: ``queries.source``, ``queries.split`` or a ``query_attributes``
name; a query lacking the attribute is in segment ``(missing)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.result_cache import _CACHE, _workspace, queries_state
from labeling.evaluation.inputs.score_controls import MISSING, NO_SEGMENT, OVERALL
from labeling.workspace import query_store

if TYPE_CHECKING:
    import sqlite_utils


def query_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """Queries indexed by id: text, source, split and one column per segment attribute.

    Cached until the queries or their attributes change (not on a judgment); treat the frame
    as read-only.
    """
    return _CACHE.get(("queries", _workspace(db), queries_state(db)), lambda: _query_table(db))


def _query_table(db: sqlite_utils.Database) -> pd.DataFrame:
    frame = query_store.queries_frame(db)
    frame = frame.set_index(frame["id"].astype("string")).drop(columns="id")
    attrs = query_store.attributes_frame(db)
    if not attrs.empty:
        wide = attrs.pivot(index="query_id", columns="name", values="value")
        wide.index = wide.index.astype("string")
        wide = wide.drop(columns=[c for c in wide.columns if c in frame.columns])
        frame = frame.join(wide)
    frame.index.name = "query_id"
    return frame


def segment_options(db: sqlite_utils.Database) -> list[str]:
    """Segment choices: none, ``source``, ``split``, then the attributes in name order."""
    names = query_store.attribute_names(db)
    return [NO_SEGMENT, "source", "split", *[n for n in names if n not in ("source", "split")]]


def _segments(queries: pd.DataFrame, segment: str, index: pd.Index) -> pd.Series:
    if segment == NO_SEGMENT:
        return pd.Series(OVERALL, index=index, dtype="string")
    if segment not in queries.columns:
        raise ScorecardError(f"no segment attribute {segment!r}")
    values = queries[segment].reindex(index).astype("string")
    return values.fillna(MISSING).rename(segment)


def segment_values(values: pd.DataFrame, queries: pd.DataFrame, segment: str) -> pd.DataFrame:
    """Per-query values in long form: query_id, segment, measure, value (distributions)."""
    frame = values.copy()
    frame["segment"] = _segments(queries, segment, values.index)
    long = frame.reset_index().melt(
        id_vars=["query_id", "segment"], var_name="measure", value_name="value"
    )
    return long


def segment_names(values: pd.DataFrame, queries: pd.DataFrame, segment: str) -> list[str]:
    """The values ``segment`` takes over the queries of ``values``, sorted (none for
    ``(none)``): the choices of a filter by segment value."""
    if segment == NO_SEGMENT:
        return []
    return sorted(_segments(queries, segment, values.index).unique())
