"""Turn qrels and a run into ranked, labeled rows: the shared first step of every measure.

Conventions (trec_eval's):

* A run is ordered by score descending; equal scores are ordered by doc id descending in byte
  order. A ``rank`` column is ignored when a ``score`` column exists; a run with only ranks is
  scored as ``-rank``.
* The evaluated queries are those with at least one label. Queries only in the run are ignored.
* A document without a label is not relevant and has no gain.

Ids are compared as strings; numeric id columns are converted with ``str``.
All work is vectorised over every query at once: ids are factorised once and only integers are
sorted; doc ids are compared as strings only for rows whose scores tie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from labeling._memory import keep_freed_memory
from labeling.errors import InputError

QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
LARGE_RUN_ROWS = 1_000_000  # from here on, allocator settings pay (see labeling._memory)


@dataclass
class RankedRows:
    """Run rows of the evaluated queries, sorted by query then rank.

    ``query`` indexes ``query_ids``; ``grade`` is NaN for unjudged rows. ``qrels_query`` and
    ``qrels_grade`` hold every label, for the relevant counts and the ideal lists.
    """

    query_ids: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    doc_row: np.ndarray  # position of each row in the caller's run frame
    qrels_query: np.ndarray
    qrels_grade: np.ndarray
    retrieved: np.ndarray  # per query: number of run rows

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def judged_only(self) -> RankedRows:
        """Drop unjudged rows and close the gaps in the ranks, as ``trec_eval -J`` does."""
        keep = ~np.isnan(self.grade)
        query = self.query[keep]
        retrieved = np.bincount(query, minlength=self.n_queries)
        return RankedRows(
            self.query_ids, query, _ranks_within(query, retrieved), self.grade[keep],
            self.doc_row[keep], self.qrels_query, self.qrels_grade, retrieved,
        )


def _as_str_values(series: pd.Series) -> pd.Series:
    if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(
        series.dtype
    ):
        return series
    return series.astype("str")


def _encode(series: pd.Series) -> tuple[np.ndarray, pa.Array]:
    """Dictionary-encode string ids with Arrow: (int codes, distinct values)."""
    values = pa.array(_as_str_values(series).array)
    encoded = pc.dictionary_encode(values)
    if not isinstance(encoded, pa.ChunkedArray):
        return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary
    chunks = encoded.chunks
    if chunks and _dictionaries_grow(chunks):
        # Arrow encodes a chunked column with one memo table that only grows, so every chunk's
        # codes are valid against the last chunk's dictionary: no copy of the strings needed.
        codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks])
        return codes.astype(np.int64), chunks[-1].dictionary
    combined = pc.dictionary_encode(values.combine_chunks())
    return combined.indices.to_numpy(zero_copy_only=False).astype(np.int64), combined.dictionary


def _dictionaries_grow(chunks: list[pa.DictionaryArray]) -> bool:
    """Whether each chunk's dictionary looks like a prefix of the last one's (cheap check)."""
    last = chunks[-1].dictionary
    for chunk in chunks:
        size = len(chunk.dictionary)
        if size > len(last) or (size and chunk.dictionary[size - 1] != last[size - 1]):
            return False
    return True


def _ranks_within(query: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """1-based rank of each row within its query, for rows sorted by query."""
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    return np.arange(1, len(query) + 1, dtype=np.int64) - starts[query]


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what} lacks column(s) {', '.join(missing)}", source=what)


def _scores(run: pd.DataFrame) -> np.ndarray:
    if "score" in run.columns:
        score = pd.to_numeric(run["score"], errors="coerce").to_numpy(np.float64, na_value=np.nan)
    elif "rank" in run.columns:
        score = -pd.to_numeric(run["rank"], errors="coerce").to_numpy(np.float64, na_value=np.nan)
    else:
        raise InputError("run needs a score or a rank column", source="run")
    bad = ~np.isfinite(score)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: score is missing or not a finite number", source="run")
    return score


def _descending_ranks(values: pa.Array) -> np.ndarray:
    """Dense rank of each string in descending byte order (0 = greatest)."""
    ranks = pc.rank(values, sort_keys="descending", tiebreaker="dense")
    return ranks.to_numpy(zero_copy_only=False).astype(np.int64) - 1


def _score_ranks(score: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense rank of each score, 0 = highest, and the number of distinct scores."""
    n = len(score)
    by_score = np.argsort(score)
    ordered = score[by_score]
    distinct = np.empty(n, dtype=np.int64)
    distinct[0] = 0
    np.cumsum(ordered[1:] != ordered[:-1], out=distinct[1:])
    levels = int(distinct[-1]) + 1
    ranks = np.empty(n, dtype=np.int64)
    ranks[by_score] = (levels - 1) - distinct
    return ranks, levels


def _score_key_desc(score: np.ndarray) -> np.ndarray | None:
    """An unsigned 32-bit key that sorts scores descending, or None if they need 64 bits.

    Scores that are exact in float32 (embedding similarities usually are) map to their IEEE
    bits made order-preserving, so one 64-bit key can hold (query, score).
    """
    narrow = score.astype(np.float32)
    if not np.array_equal(narrow, score):
        return None
    narrow += np.float32(0.0)  # -0.0 becomes +0.0: equal scores need equal keys
    bits = narrow.view(np.uint32)
    negative = bits >= np.uint32(0x80000000)
    ascending = np.where(negative, ~bits, bits | np.uint32(0x80000000))
    return ~ascending


def _order_by_query_and_score(query: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Permutation sorting rows by query, then score descending; ties left in any order."""
    n = len(query)
    same_query = query[1:] == query[:-1]
    if bool(np.all(query[1:] >= query[:-1])) and bool(
        np.all(~same_query | (score[1:] <= score[:-1]))
    ):
        # Most run files are already grouped by query and ordered by score.
        return np.arange(n, dtype=np.int64)
    score_key = _score_key_desc(score)
    if score_key is not None and int(query.max()) < 2**31:
        key = (query.astype(np.uint64) << np.uint64(32)) | score_key.astype(np.uint64)
        return np.argsort(key)
    score_rank, levels = _score_ranks(score)
    if (int(query.max()) + 1) * levels < 2**53:
        # float64 keys are exact below 2**53 and argsort fastest here.
        return np.argsort((query * levels + score_rank).astype(np.float64))
    return np.lexsort((score_rank, query))


def _order(
    query: np.ndarray, score: np.ndarray, doc: np.ndarray, doc_values: pa.Array
) -> np.ndarray:
    """Permutation sorting rows by query, score descending, then doc id descending.

    ``doc`` holds codes into ``doc_values``; ids are compared as strings only through the
    ranks of the distinct values, and only for rows whose query and score tie.
    """
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    order = _order_by_query_and_score(query, score)
    ordered_query, ordered_score = query[order], score[order]
    tie = (ordered_query[1:] == ordered_query[:-1]) & (ordered_score[1:] == ordered_score[:-1])
    if not tie.any():
        return order
    in_tie = np.zeros(len(order), dtype=bool)
    in_tie[1:] = tie
    in_tie[:-1] |= tie
    positions = np.flatnonzero(in_tie)
    # A tie group starts at a tied row that does not tie with the row before it.
    group = np.cumsum(~tie[positions[1:] - 1]) if len(positions) > 1 else np.zeros(0, np.int64)
    group = np.concatenate(([0], group))
    rows = order[positions]
    doc_rank = _descending_ranks(doc_values)[doc[rows]]
    width = len(doc_values)
    if (int(group[-1]) + 1) * width < 2**53:
        within = np.argsort((group * width + doc_rank).astype(np.float64))
    else:
        within = np.lexsort((doc_rank, group))
    order[positions] = rows[within]
    return order


def _duplicate_row(query: np.ndarray, doc: np.ndarray, width: int) -> int | None:
    """Index of the first row repeating an earlier (query, doc) pair, or None."""
    key = query * width + doc
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    duplicated = pd.Series(key).duplicated().to_numpy()
    return int(np.flatnonzero(duplicated)[0])


def rank_rows(qrels: pd.DataFrame, run: pd.DataFrame) -> RankedRows:
    """Join ``run`` to ``qrels`` and order it as trec_eval does; see the module docstring.

    ``qrels`` has columns query_id, doc_id, relevance (integer grades); ``run`` has query_id,
    doc_id and score (or rank). A (query, doc) pair repeated in either frame is an error.
    """
    _require(qrels, QRELS_COLUMNS, "qrels")
    _require(run, ("query_id", "doc_id"), "run")
    if len(run) >= LARGE_RUN_ROWS:
        keep_freed_memory()
    grades = pd.to_numeric(qrels["relevance"], errors="coerce").to_numpy(np.float64)
    bad = np.isnan(grades) | (grades != np.floor(grades))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: relevance must be a whole number", source="qrels")
    qrels_grade = grades.astype(np.int64)

    qrels_query, query_ids = pd.factorize(_as_str_values(qrels["query_id"]))
    qrels_doc, doc_vocab = pd.factorize(_as_str_values(qrels["doc_id"]))
    qrels_query = qrels_query.astype(np.int64)
    duplicate = _duplicate_row(qrels_query, qrels_doc, max(len(doc_vocab), 1))
    if duplicate is not None:
        raise InputError(f"row {duplicate} repeats a (query, doc) pair", source="qrels")

    score = _scores(run)
    run_query_code, run_queries = _encode(run["query_id"])
    run_doc, run_docs = _encode(run["doc_id"])
    duplicate = _duplicate_row(run_query_code, run_doc, max(len(run_docs), 1))
    if duplicate is not None:
        raise InputError(f"row {duplicate} repeats a (query, doc) pair", source="run")
    run_query = pd.Index(query_ids).get_indexer(run_queries.to_pandas())[run_query_code]

    evaluated = np.flatnonzero(run_query >= 0)
    if len(evaluated) < len(run_query):
        run_query, run_doc, score = run_query[evaluated], run_doc[evaluated], score[evaluated]

    order = _order(run_query, score, run_doc, run_docs)
    query = run_query[order]
    # Grades: look each (query, doc) up in a sparse query x doc matrix of the labels.
    vocab = pa.array(np.asarray(doc_vocab, dtype=object), type=run_docs.type)
    vocab_code = pc.index_in(run_docs, value_set=vocab)
    doc_in_vocab = vocab_code.to_numpy(zero_copy_only=False)
    judged_doc = doc_in_vocab[run_doc[order]]
    grade = np.full(len(order), np.nan)
    candidates = np.flatnonzero(~np.isnan(judged_doc))
    n_queries = len(query_ids)
    if len(candidates) and len(qrels_grade):
        offset = 1 - int(qrels_grade.min())  # stored values must be non-zero
        labels = sp.csr_matrix(
            (qrels_grade + offset, (qrels_query, qrels_doc)),
            shape=(n_queries, len(doc_vocab)),
        )
        found = np.asarray(
            labels[query[candidates], judged_doc[candidates].astype(np.int64)]
        ).ravel()
        hit = found != 0
        grade[candidates[hit]] = found[hit] - offset
    retrieved = np.bincount(query, minlength=n_queries)
    return RankedRows(
        query_ids=np.asarray(query_ids, dtype=object),
        query=query.astype(np.int64),
        rank=_ranks_within(query, retrieved),
        grade=grade,
        doc_row=evaluated[order],
        qrels_query=qrels_query,
        qrels_grade=qrels_grade,
        retrieved=retrieved,
    )
