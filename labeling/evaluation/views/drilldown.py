"""The worst queries and one query's ranked list with its grades and its missed relevant chunks.

Grades follow the blind rule (``labeling.judging.visibility``): a grade the viewer may not see
yet is ``HIDDEN``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import InputError
from labeling.evaluation.inputs.chunk_set_labels import labels_for_run
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.ranked_runs import _document_of, chunk_documents, stored_run
from labeling.evaluation.inputs.score_controls import NO_SEGMENT, Controls
from labeling.evaluation.inputs.segmenting import _segments
from labeling.judging import queue
from labeling.judging.visibility import Sight
from labeling.metrics.measures import parse_measure
from labeling.workspace import chunk_store, contents, grading

if TYPE_CHECKING:
    import sqlite_utils

# A query at this value of the sorting measure (every measure here is at most 1) lost nothing on
# it: it is never "retrieved badly", whatever its rank among the others.
PERFECT = 1.0
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
    exclude: Collection[str] = (),
) -> pd.DataFrame:
    """The queries retrieved badly on ``measure``: those below ``PERFECT`` on it (a query
    that scores 1, e.g. R@10 with nothing missed, is never listed), sorted by ``measure``
    ascending, or by the drop versus ``baseline`` (largest first) when given. Columns:
    query_id, text, segment, value[, baseline, drop].

    ``exclude``: queries left out, e.g. those the run returned nothing for
    (``scoring.unanswered_queries``), which ``not_retrieved`` lists apart: "retrieved badly" is
    then not mixed with "not retrieved at all"."""
    frame = pd.DataFrame({"value": values[measure]})
    frame = frame.loc[~(frame["value"] >= PERFECT - 1e-12).to_numpy(dtype=bool)]
    if len(exclude):
        frame = frame.loc[~frame.index.isin(list(exclude))]
    frame["segment"] = _segments(queries, segment, frame.index)
    frame["text"] = _query_texts(queries, frame.index)
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


def lost_nothing(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    measure: str,
    *,
    segment: str = NO_SEGMENT,
    segment_value: str | None = None,
    exclude: Collection[str] = (),
) -> list[str]:
    """The queries at ``PERFECT`` on ``measure`` (those ``worst_queries`` leaves out), in id
    order, of ``segment_value`` when given, without ``exclude``: still open to a drill-down."""
    at_best = values.index[(values[measure] >= PERFECT - 1e-12).to_numpy(dtype=bool)]
    at_best = at_best[~at_best.isin(list(exclude))]
    if segment_value is not None:
        at_best = at_best[(_segments(queries, segment, at_best) == segment_value).to_numpy(bool)]
    return sorted(map(str, at_best))


def not_retrieved(
    queries: pd.DataFrame,
    unanswered: Collection[str],
    *,
    segment: str = NO_SEGMENT,
    segment_value: str | None = None,
) -> pd.DataFrame:
    """The evaluated queries the run returned nothing for (``unanswered``), in id order:
    query_id, text, segment (only those of ``segment_value`` when given)."""
    index = pd.Index(sorted(map(str, unanswered)), dtype="string", name="query_id")
    frame = pd.DataFrame({"text": _query_texts(queries, index),
                          "segment": _segments(queries, segment, index)}, index=index)
    if segment_value is not None:
        frame = frame.loc[frame["segment"] == segment_value]
    return frame.reset_index()[["query_id", "text", "segment"]]


def _query_texts(queries: pd.DataFrame, index: pd.Index) -> pd.Series:
    """The text of each query of ``index`` ("text not imported (id ...)" for a placeholder)."""
    texts = queries["text"].reindex(index)
    return pd.Series([contents.shown_text(t, q) for q, t in zip(index, texts, strict=True)],
                     index=index, dtype="object")


def _snippet(text: object, item_id: object = "") -> str:
    value = " ".join(contents.shown_text(text, item_id).split())
    return value if len(value) <= SNIPPET_CHARS else value[: SNIPPET_CHARS - 1] + "…"


def miss_scope(controls: Controls, measure: str | None = None) -> tuple[Controls, int]:
    """The controls and the cutoff k under which a relevant chunk counts as missed when queries
    are sorted by ``measure``: its own ``rel=`` and cutoff when it has them, else the controls'
    threshold and k. The drill-down and the report both ask here."""
    if measure is None:
        return controls, controls.k
    parsed = parse_measure(measure)
    relevance = int(dict(parsed.params).get("rel", controls.relevance))
    return replace(controls, relevance=relevance), parsed.cutoff or controls.k


def missed_at_k(
    db: sqlite_utils.Database, controls: Controls, query_id: str, k: int, *,
    sight: Sight | None = None,
) -> pd.DataFrame:
    """The relevant chunks (graded ``controls.relevance`` or above) that ``controls.run`` did
    not rank in its top ``k`` for ``query_id``: the missed list of ``drill_down``, which the
    dashboard and the report both show."""
    return drill_down(db, controls, query_id, k=k, sight=sight)[1]


def _hidden_grades(
    graded: pd.Series, query_id: str, sight: Sight | None
) -> pd.Series:
    """Per labeled chunk id (the index of ``graded``): whether ``sight`` hides its grade."""
    if sight is None or not sight.blind_to_some:
        return pd.Series(False, index=graded.index, dtype=bool)
    return pd.Series([not sight.sees_pair(query_id, c) for c in graded.index.astype(str)],
                     index=graded.index, dtype=bool)


def drill_down(
    db: sqlite_utils.Database, controls: Controls, query_id: str, *, depth: int | None = None,
    k: int | None = None, sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's ranked list of ``controls.run`` and the judged-relevant chunks it missed,
    on the consensus labels under ``controls.rule``.

    Ranked list columns: rank, chunk_id, doc_id, score, grade (NA when unjudged), grade_name
    (``unjudged`` when unjudged), relevant, snippet (cut to ``depth`` when given). Missed:
    chunk_id, doc_id, grade, grade_name, rank (NA: not retrieved), where (``rank 13`` or
    ``not retrieved``), snippet, for chunks graded ``controls.relevance`` or above outside the
    top ``k`` (with ``k`` None: outside the listed ranks), sorted by grade (highest first),
    then rank (not retrieved last), then id. Ranks follow trec_eval's order (score, then id
    desc). The chunk list whatever ``controls.unit``; ``drill_down_documents`` is the other. A
    chunk without text (a placeholder) reads "text not imported (id ...)".

    ``sight`` (default: everything) is who looks (``labeling.judging.visibility``): a grade they may
    not see is NA with grade_name ``hidden`` (relevant False) in the ranked list, and its chunk
    is left out of the missed list.
    """
    rel = controls.relevance
    labels = labels_for(db, controls)
    mine = stored_run(db, controls.run).rows_for([query_id])[["doc_id", "score"]]
    mine = mine.sort_values(["score", "doc_id"], ascending=[False, False], ignore_index=True)
    mine.insert(0, "rank", np.arange(1, len(mine) + 1))
    every_rank = pd.Series(mine["rank"].to_numpy(), index=mine["doc_id"].astype(str).to_numpy())
    if depth is not None:
        mine = mine.loc[mine["rank"] <= depth]
    qrels = labels_for_run(db, controls.run, labels.rows_of([query_id]))
    grades = qrels.set_index("doc_id")["relevance"]
    hidden = _hidden_grades(grades, query_id, sight)
    hidden_ids = set(hidden.index[hidden].astype(str))
    grades = grades.loc[~hidden]
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    chunks = chunk_store.chunks_frame(
        db, [*mine["doc_id"].astype(str), *grades.index.astype(str)]).set_index("id")
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
    ranked["snippet"] = _snippets(ranked["chunk_id"], chunks["text"])
    found = set(ranked["chunk_id"]) if k is None else set(every_rank.index[every_rank <= k])
    relevant = grades.loc[grades >= rel]
    missed = pd.DataFrame({"chunk_id": [str(c) for c in relevant.index
                                        if str(c) not in found]}, dtype="object")
    missed["doc_id"] = missed["chunk_id"].map(chunks["doc_id"])
    missed["grade"] = missed["chunk_id"].map(relevant).astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["rank"] = missed["chunk_id"].map(every_rank).astype("Int64")
    missed["where"] = [_where(r) for r in missed["rank"]]
    missed["snippet"] = _snippets(missed["chunk_id"], chunks["text"])
    return ranked, _missed_order(missed, "chunk_id")


def _where(rank: object) -> str:
    """Where a missed item is: ``rank 13`` or ``not retrieved``."""
    return "not retrieved" if pd.isna(rank) else f"rank {int(rank)}"


def _missed_order(missed: pd.DataFrame, item: str) -> pd.DataFrame:
    """Missed items by grade (highest first), then rank (not retrieved last), then id."""
    order = missed.assign(_unranked=missed["rank"].isna(),
                          _rank=missed["rank"].fillna(0).astype("int64"))
    order = order.sort_values(["grade", "_unranked", "_rank", item],
                              ascending=[False, True, True, True], kind="stable")
    return order.drop(columns=["_unranked", "_rank"]).reset_index(drop=True)


def _snippets(ids: pd.Series, texts: pd.Series) -> list[str]:
    """The snippet of each chunk id of ``ids`` (its text in ``texts``, by id)."""
    return [_snippet(texts.get(c), c) for c in ids]


def drill_down_documents(
    db: sqlite_utils.Database,
    controls: Controls,
    query_id: str,
    *,
    depth: int | None = None,
    k: int | None = None,
    chunk_lists: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The drill-down at document level, as the ``document`` unit scores a query.

    A document is ranked where its best chunk is and graded with the highest label among its
    chunks (unjudged when none of them is labeled). Ranked columns: rank, doc_id,
    best_chunk_id, chunk_rank (that chunk's rank), chunks (how many of its chunks the run
    returned), grade, grade_name, relevant, snippet (of the best chunk). Missed: doc_id, grade,
    grade_name, chunk_id (its highest-labeled chunk), rank (the document's, NA when not
    retrieved), where, snippet, for documents graded ``controls.relevance`` or above outside
    the top ``k`` documents (``k`` None: outside the listed ones; the list is cut at ``depth``
    when given), sorted as ``drill_down``'s. Run, consensus rule and relevance come from
    ``controls``.

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
    labels = labels_for(db, controls)
    graded = labels_for_run(db, controls.run, labels.rows_of([query_id]))[
        ["doc_id", "relevance"]]
    document = _document_of(graded["doc_id"], chunk_doc)
    hidden = _hidden_grades(graded.set_index("doc_id")["relevance"], query_id, sight)
    hidden_docs = set(document.loc[hidden.to_numpy()])
    doc_grade = graded["relevance"].groupby(document.to_numpy()).max()
    doc_grade = doc_grade.loc[~doc_grade.index.isin(hidden_docs)]
    chunks = chunks.assign(document=_document_of(chunks["chunk_id"], chunk_doc))
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    ranked = _ranked_documents(chunks, doc_grade, hidden_docs, scale, rel)
    every_rank = pd.Series(ranked["rank"].to_numpy(), index=ranked["doc_id"].to_numpy())
    if depth is not None:
        ranked = ranked.loc[ranked["rank"] <= depth]
    found = set(ranked["doc_id"]) if k is None else set(every_rank.index[every_rank <= k])
    # A relevant chunk is either in the run's list or missed: both carry its snippet.
    texts = pd.concat([
        chunks.set_index("chunk_id")["snippet"], missed_chunks.set_index("chunk_id")["snippet"]
    ])
    texts = texts[~texts.index.duplicated()]
    relevant = graded.assign(document=document.to_numpy()).loc[graded["relevance"] >= rel]
    relevant = relevant.loc[~relevant["document"].isin(found)
                            & ~relevant["document"].isin(hidden_docs)]
    return ranked, _missed_documents(relevant, every_rank, texts, scale)


def _ranked_documents(chunks: pd.DataFrame, doc_grade: pd.Series, hidden_docs: set,
                      scale: dict[int, str], rel: int) -> pd.DataFrame:
    """The ranked documents of ``drill_down_documents`` from the chunk list ``chunks`` (in
    rank order, with each chunk's ``document``)."""
    best = chunks.drop_duplicates("document")  # rows come in rank order
    ranked = pd.DataFrame({
        "rank": np.arange(1, len(best) + 1),
        "doc_id": best["document"].to_numpy(),
        "best_chunk_id": best["chunk_id"].to_numpy(),
        "chunk_rank": best["rank"].to_numpy(),
        "chunks": best["document"].map(chunks["document"].value_counts()).to_numpy(),
    })
    ranked["grade"] = ranked["doc_id"].map(doc_grade).astype("Int64")
    ranked["grade_name"] = ranked["grade"].map(scale).fillna("unjudged").astype(str)
    ranked.loc[ranked["doc_id"].isin(hidden_docs), "grade_name"] = HIDDEN
    ranked["relevant"] = (ranked["grade"].fillna(-1) >= rel).astype(bool)
    ranked["snippet"] = best["snippet"].to_numpy()
    return ranked


def _missed_documents(relevant: pd.DataFrame, every_rank: pd.Series, texts: pd.Series,
                      scale: dict[int, str]) -> pd.DataFrame:
    """The missed documents of ``drill_down_documents``: of the relevant labels not found
    (doc_id: the chunk, document, relevance), each document once with its highest-labeled
    chunk, in ``_missed_order``."""
    relevant = relevant.sort_values(["relevance", "doc_id"], ascending=[False, True])
    top = relevant.drop_duplicates("document")
    missed = pd.DataFrame({
        "doc_id": top["document"].to_numpy(),
        "grade": top["relevance"].to_numpy(),
        "chunk_id": top["doc_id"].astype(str).to_numpy(),
    })
    missed["grade"] = missed["grade"].astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["rank"] = missed["doc_id"].map(every_rank).astype("Int64")
    missed["where"] = [_where(r) for r in missed["rank"]]
    missed["snippet"] = missed["chunk_id"].map(texts)
    missed = missed[["doc_id", "grade", "grade_name", "chunk_id", "rank", "where", "snippet"]]
    return _missed_order(missed, "doc_id")


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


def judge_choices(db: sqlite_utils.Database, ranked: pd.DataFrame) -> dict[str, str]:
    """The chunks of a ``drill_down`` ranked list offered to judge (``unjudged_chunks``), in rank
    order, each with what the picker shows: rank, title and the start of its snippet."""
    chunk_ids = unjudged_chunks(ranked)
    titles = chunk_store.chunk_titles(db, chunk_ids)
    rows = ranked.loc[ranked["chunk_id"].isin(chunk_ids)].sort_values("rank")
    return {
        row.chunk_id: " · ".join(part for part in (
            f"#{row.rank}", titles.get(row.chunk_id) or row.chunk_id, _snippet(row.snippet)[:90]
        ) if part)
        for row in rows.itertuples()
    }
