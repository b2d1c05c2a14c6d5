"""The worst queries and one query's ranked list with its grades and its missed relevant chunks.

Grades follow the blind rule (``labeling.judging.visibility``): a grade the viewer may not see
yet is ``HIDDEN``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.errors import InputError
from labeling.evaluation.label_sets import label_snapshot
from labeling.evaluation.ranked_runs import _document_of, chunk_documents, stored_run
from labeling.evaluation.score_controls import NO_SEGMENT, Controls
from labeling.evaluation.segmenting import _segments
from labeling.judging import queue
from labeling.judging.visibility import Sight
from labeling.workspace import grading

HIDDEN = "hidden"  # grade_name of a grade the viewer may not see yet (labeling.judging.visibility)
SNIPPET_CHARS = 240


# ---------------------------------------------------------------------------------------------
# Worst queries and drill-down


def worst_queries(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    measure: str,
    *,
    baseline: pd.DataFrame | None = None,
    segment: str = NO_SEGMENT,
    segment_value: str | None = None,
    limit: int = 50,
) -> pd.DataFrame:
    """Queries sorted by ``measure`` ascending, or by the drop versus ``baseline`` (largest
    first) when given. Columns: query_id, text, segment, value[, baseline, drop]."""
    frame = pd.DataFrame({"value": values[measure]})
    frame["segment"] = _segments(queries, segment, frame.index)
    frame["text"] = queries["text"].reindex(frame.index)
    if segment_value is not None:
        frame = frame.loc[frame["segment"] == segment_value]
    if baseline is not None:
        frame["baseline"] = baseline[measure].reindex(frame.index)
        frame["drop"] = frame["baseline"] - frame["value"]
        frame = frame.sort_values(["drop", "value"], ascending=[False, True], kind="stable")
    else:
        frame = frame.sort_values("value", kind="stable")
    frame = frame.head(limit).reset_index()
    columns = ["query_id", "text", "segment", "value"]
    return frame[columns + (["baseline", "drop"] if baseline is not None else [])]


def _snippet(text: object) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= SNIPPET_CHARS else value[: SNIPPET_CHARS - 1] + "…"


def _hidden_grades(
    graded: pd.Series, query_id: str, sight: Sight | None
) -> pd.Series:
    """Per labeled chunk id (the index of ``graded``): whether ``sight`` hides its grade."""
    if sight is None or sight.sees_all:
        return pd.Series(False, index=graded.index, dtype=bool)
    return pd.Series([not sight.sees_pair(query_id, c) for c in graded.index.astype(str)],
                     index=graded.index, dtype=bool)


def drill_down(
    db: sqlite_utils.Database, controls: Controls, query_id: str, *, depth: int | None = None,
    sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's ranked list of ``controls.run`` and the judged-relevant chunks it did not
    retrieve, on the consensus labels under ``controls.rule``.

    Ranked list columns: rank, chunk_id, doc_id, score, grade (NA when unjudged), grade_name
    (``unjudged`` when unjudged), relevant, snippet. Missed: chunk_id, doc_id, grade,
    grade_name, snippet, for chunks graded ``controls.relevance`` or above that are nowhere in
    the run's list (or below ``depth`` when given). Ranks follow trec_eval's order (score, then
    id desc). The chunk list whatever ``controls.unit``; ``drill_down_documents`` is the other.

    ``sight`` (default: everything) is who looks (``labeling.judging.visibility``): a grade they may
    not see is NA with grade_name ``hidden`` (relevant False) in the ranked list, and its chunk
    is left out of the missed list.
    """
    rel = controls.relevance
    labels = label_snapshot(db, controls.rule)
    mine = stored_run(db, controls.run).rows_for([query_id])[["doc_id", "score"]]
    mine = mine.sort_values(["score", "doc_id"], ascending=[False, False], ignore_index=True)
    mine.insert(0, "rank", np.arange(1, len(mine) + 1))
    if depth is not None:
        mine = mine.loc[mine["rank"] <= depth]
    grades = labels.qrels.loc[labels.qrels["query_id"] == query_id].set_index("doc_id")[
        "relevance"]
    hidden = _hidden_grades(grades, query_id, sight)
    hidden_ids = set(hidden.index[hidden].astype(str))
    grades = grades.loc[~hidden]
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    chunks = pd.read_sql_query(
        "SELECT id, doc_id, text FROM chunks WHERE id IN "
        "(SELECT value FROM json_each(?))",
        db.conn, params=[json.dumps([*mine["doc_id"].astype(str), *grades.index.astype(str)])],
    ).set_index("id")
    ranked = pd.DataFrame({
        "rank": mine["rank"].to_numpy(),
        "chunk_id": mine["doc_id"].astype(str).to_numpy(),
    })
    ranked["doc_id"] = ranked["chunk_id"].map(chunks["doc_id"])
    ranked["score"] = mine["score"].to_numpy()
    ranked["grade"] = ranked["chunk_id"].map(grades).astype("Int64")
    ranked["grade_name"] = ranked["grade"].map(scale).fillna("unjudged").astype(str)
    ranked.loc[ranked["chunk_id"].isin(hidden_ids), "grade_name"] = HIDDEN
    ranked["relevant"] = (ranked["grade"].fillna(-1) >= rel).astype(bool)
    ranked["snippet"] = ranked["chunk_id"].map(chunks["text"]).map(_snippet)
    retrieved = set(ranked["chunk_id"])
    relevant = grades.loc[grades >= rel]
    missed = pd.DataFrame({"chunk_id": [str(c) for c in relevant.index
                                        if str(c) not in retrieved]})
    missed["doc_id"] = missed["chunk_id"].map(chunks["doc_id"])
    missed["grade"] = missed["chunk_id"].map(relevant).astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["snippet"] = missed["chunk_id"].map(chunks["text"]).map(_snippet)
    return ranked, missed.sort_values(["grade", "chunk_id"], ascending=[False, True],
                                      ignore_index=True)


def drill_down_documents(
    db: sqlite_utils.Database,
    controls: Controls,
    query_id: str,
    *,
    depth: int | None = None,
    chunk_lists: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The drill-down at document level, as the ``document`` unit scores a query.

    A document is ranked where its best chunk is and graded with the highest label among its
    chunks (unjudged when none of them is labeled). Ranked columns: rank, doc_id,
    best_chunk_id, chunk_rank (that chunk's rank), chunks (how many of its chunks the run
    returned), grade, grade_name, relevant, snippet (of the best chunk). Missed: doc_id, grade,
    grade_name, chunk_id (its highest-labeled chunk), snippet, for documents graded
    ``controls.relevance`` or above that the run did not return (or only below ``depth`` when
    given). Run, consensus rule and relevance come from ``controls``.

    ``chunk_lists``: what ``drill_down(db, controls, query_id, sight=sight)`` returned,
    when the caller has it already (it is not read again). ``sight`` as in ``drill_down``: a
    document with a labeled chunk whose grade the viewer may not see is ``hidden`` (its grade
    would tell that chunk's), and is left out of the missed list.
    """
    if chunk_lists is None:
        chunk_lists = drill_down(db, controls, query_id, sight=sight)
    chunks, missed_chunks = chunk_lists
    rel = controls.relevance
    chunk_doc = chunk_documents(db)
    labels = label_snapshot(db, controls.rule)
    graded = labels.qrels.loc[labels.qrels["query_id"] == query_id, ["doc_id", "relevance"]]
    document = _document_of(graded["doc_id"], chunk_doc)
    hidden = _hidden_grades(graded.set_index("doc_id")["relevance"], query_id, sight)
    hidden_docs = set(document.loc[hidden.to_numpy()])
    doc_grade = graded["relevance"].groupby(document.to_numpy()).max()
    doc_grade = doc_grade.loc[~doc_grade.index.isin(hidden_docs)]
    chunks = chunks.assign(document=_document_of(chunks["chunk_id"], chunk_doc))
    best = chunks.drop_duplicates("document")  # rows come in rank order
    ranked = pd.DataFrame({
        "rank": np.arange(1, len(best) + 1),
        "doc_id": best["document"].to_numpy(),
        "best_chunk_id": best["chunk_id"].to_numpy(),
        "chunk_rank": best["rank"].to_numpy(),
        "chunks": best["document"].map(chunks["document"].value_counts()).to_numpy(),
    })
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    ranked["grade"] = ranked["doc_id"].map(doc_grade).astype("Int64")
    ranked["grade_name"] = ranked["grade"].map(scale).fillna("unjudged").astype(str)
    ranked.loc[ranked["doc_id"].isin(hidden_docs), "grade_name"] = HIDDEN
    ranked["relevant"] = (ranked["grade"].fillna(-1) >= rel).astype(bool)
    ranked["snippet"] = best["snippet"].to_numpy()
    if depth is not None:
        ranked = ranked.loc[ranked["rank"] <= depth]
    # A relevant chunk is either in the run's list or missed: both carry its snippet.
    texts = pd.concat([
        chunks.set_index("chunk_id")["snippet"], missed_chunks.set_index("chunk_id")["snippet"]
    ])
    texts = texts[~texts.index.duplicated()]
    relevant = graded.assign(document=document.to_numpy()).loc[graded["relevance"] >= rel]
    relevant = relevant.loc[~relevant["document"].isin(ranked["doc_id"])
                            & ~relevant["document"].isin(hidden_docs)]
    relevant = relevant.sort_values(["relevance", "doc_id"], ascending=[False, True])
    top = relevant.drop_duplicates("document")
    missed = pd.DataFrame({
        "doc_id": top["document"].to_numpy(),
        "grade": top["relevance"].to_numpy(),
        "chunk_id": top["doc_id"].astype(str).to_numpy(),
    })
    missed["grade"] = missed["grade"].astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["snippet"] = missed["chunk_id"].map(texts)
    missed = missed[["doc_id", "grade", "grade_name", "chunk_id", "snippet"]]
    return ranked, missed.sort_values(["grade", "doc_id"], ascending=[False, True],
                                      ignore_index=True)


def unjudged_chunks(ranked: pd.DataFrame) -> list[str]:
    """The chunk ids of a ``drill_down`` ranked list that have no grade (or one the viewer may
    not see yet): what the drill-down offers to judge."""
    return ranked.loc[ranked["grade"].isna(), "chunk_id"].tolist()


def judge(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, grade: int, annotator: str,
    *, note: str | None = None,
) -> int:
    """Record a judgment from the drill-down, through the labeling queue.

    The scores update by themselves: every cache is keyed on the label version.
    """
    if not annotator.strip():
        raise InputError("type your name in the sidebar before judging", source="judgment")
    return queue.save_judgment(db, query_id, chunk_id, grade, annotator.strip(), note=note or None)
