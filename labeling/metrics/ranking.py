"""Turn qrels and a run into ranked, labeled rows: the shared first step of every measure.

Conventions (trec_eval's):

* A run is ordered by score descending; equal scores are ordered by doc id descending in byte
  order. A ``rank`` column is ignored when a ``score`` column exists; a run with only ranks is
  scored as ``-rank``.
* The evaluated queries are those with at least one label. Queries only in the run are ignored.
* A document without a label is not relevant and has no gain.

Ids are compared as strings; numeric id columns are converted with ``str``.
All work is vectorised over every query at once. Run ids are never factorised: they are looked
up in the labels' (small) vocabularies, repeated pairs are found through 64-bit hashes
(``labeling.metrics.pair_keys``), only integers are sorted, and doc ids are compared as strings
only
for rows whose scores tie. ``rank_ordered`` takes a run already stored in that order
(``OrderedRun``) and only joins it to the labels.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from labeling.errors import InputError
from labeling.metrics.pair_keys import first_duplicate

QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
PARALLEL_ROWS = 200_000  # from here on, a second thread pays for itself


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
            self.query_ids,
            query,
            _ranks_within(query, retrieved),
            self.grade[keep],
            self.doc_row[keep],
            self.qrels_query,
            self.qrels_grade,
            retrieved,
        )


def _as_str_values(series: pd.Series) -> pd.Series:
    if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(
        series.dtype
    ):
        return series
    return series.astype("str")


def _codes_in(values: pa.Array | pa.ChunkedArray, vocabulary: pa.Array) -> np.ndarray:
    """Position of each value in ``vocabulary`` (int64), -1 where it is absent."""
    found = pc.index_in(values, value_set=vocabulary.cast(values.type))
    return pc.fill_null(found, -1).to_numpy().astype(np.int64)


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
    query: np.ndarray,
    score: np.ndarray,
    doc_ids: pa.Array | pa.ChunkedArray,
    doc_row: np.ndarray,
) -> np.ndarray:
    """Permutation sorting rows by query, score descending, then doc id descending.

    Row ``i``'s doc id is ``doc_ids[doc_row[i]]``. Ids are compared as strings only for the
    rows whose query and score tie.
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
    if isinstance(doc_ids, pa.ChunkedArray):
        doc_ids = doc_ids.combine_chunks()  # taking rows from chunks is several times slower
    tied = pa.table({"group": group, "doc": pc.take(doc_ids, pa.array(doc_row[rows]))})
    within = pc.sort_indices(tied, sort_keys=[("group", "ascending"), ("doc", "descending")])
    order[positions] = rows[within.to_numpy()]
    return order


def _strings(series: pd.Series) -> pa.Array | pa.ChunkedArray:
    return pa.array(_as_str_values(series).array)


def _encode(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """(int64 code of each value, distinct values in order of first appearance)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values)
    return encoded.indices.to_numpy().astype(np.int64), encoded.dictionary


def _refuse(duplicate: tuple[int, int] | None, what: str) -> None:
    """Raise for a ``first_duplicate`` finding in the ``what`` frame."""
    if duplicate is not None:
        raise InputError(f"row {duplicate[1]} repeats a (query, doc) pair", source=what)


def _done(function: Callable[..., object], *args: object) -> Future:
    """``function(*args)`` called now, as a finished future (the serial twin of ``submit``)."""
    future: Future = Future()
    future.set_result(function(*args))
    return future


def _lookup_grades(
    query: np.ndarray,
    doc: np.ndarray,
    qrels_query: np.ndarray,
    qrels_doc: np.ndarray,
    qrels_grade: np.ndarray,
    n_docs: int,
) -> np.ndarray:
    """Grade of each (query, doc) pair, NaN when unlabeled; ``doc`` is -1 for unlabeled docs."""
    grade = np.full(len(query), np.nan)
    candidates = np.flatnonzero(doc >= 0)
    if not len(candidates) or not len(qrels_grade):
        return grade
    label_key = qrels_query * n_docs + qrels_doc
    by_key = np.argsort(label_key)
    sorted_key = label_key[by_key]
    key = query[candidates] * n_docs + doc[candidates]
    at = np.minimum(np.searchsorted(sorted_key, key), len(sorted_key) - 1)
    hit = sorted_key[at] == key
    grade[candidates[hit]] = qrels_grade[by_key[at[hit]]]
    return grade


def _label_arrays(qrels: pd.DataFrame) -> tuple[np.ndarray, pa.Array, np.ndarray, pa.Array,
                                                   np.ndarray]:
    """(query code, query vocabulary, doc code, doc vocabulary, grade) of each label, after the
    checks every ranking makes: whole-number grades, no repeated (query, doc) pair."""
    grades = _checked_grades(qrels)
    qrels_query_ids, qrels_doc_ids = _strings(qrels["query_id"]), _strings(qrels["doc_id"])
    _refuse(first_duplicate(qrels_query_ids, qrels_doc_ids), "qrels")
    qrels_query, query_ids = _encode(qrels_query_ids)
    qrels_doc, doc_vocab = _encode(qrels_doc_ids)
    return qrels_query, query_ids, qrels_doc, doc_vocab, grades


def _rows(
    query_ids: pa.Array, query: np.ndarray, grade: np.ndarray, doc_row: np.ndarray,
    qrels_query: np.ndarray, qrels_grade: np.ndarray,
) -> RankedRows:
    """``RankedRows`` of rows already in ranking order within each query (``query``: each
    row's query code), their ranks counted from 1 per query."""
    retrieved = np.bincount(query, minlength=len(query_ids))
    return RankedRows(
        query_ids=query_ids.to_numpy(zero_copy_only=False).astype(object),
        query=query,
        rank=_ranks_within(query, retrieved),
        grade=grade,
        doc_row=doc_row,
        qrels_query=qrels_query,
        qrels_grade=qrels_grade,
        retrieved=retrieved,
    )


def _checked_grades(qrels: pd.DataFrame) -> np.ndarray:
    """The labels' grades as int64, after checking the columns and that every grade is a whole
    number (the first that is not is named by its row)."""
    _require(qrels, QRELS_COLUMNS, "qrels")
    grades = pd.to_numeric(qrels["relevance"], errors="coerce").to_numpy(np.float64)
    bad = np.isnan(grades) | (grades != np.floor(grades))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: relevance must be a whole number", source="qrels")
    return grades.astype(np.int64)


def rank_rows(qrels: pd.DataFrame, run: pd.DataFrame) -> RankedRows:
    """Join ``run`` to ``qrels`` and order it as trec_eval does; see the module docstring.

    ``qrels`` has columns query_id, doc_id, relevance (integer grades); ``run`` has query_id,
    doc_id and score (or rank). A (query, doc) pair repeated in either frame is an error.
    """
    _require(run, ("query_id", "doc_id"), "run")
    qrels_query, query_ids, qrels_doc, doc_vocab, qrels_grade = _label_arrays(qrels)

    score = _scores(run)
    run_query_ids, run_doc_ids = _strings(run["query_id"]), _strings(run["doc_id"])
    # The duplicate check and the doc lookup do not depend on the ordering: on a large run they
    # run on a second core while this thread orders the rows (numpy and Arrow release the GIL).
    with ThreadPoolExecutor(max_workers=1) as pool:
        submit = pool.submit if len(run) >= PARALLEL_ROWS else _done
        duplicate = submit(first_duplicate, run_query_ids, run_doc_ids)
        # Codes into the labels' query and doc vocabularies, -1 where a run id has no label.
        doc_codes = submit(_codes_in, run_doc_ids, doc_vocab)
        run_query = _codes_in(run_query_ids, query_ids)
        evaluated = np.flatnonzero(run_query >= 0)
        if len(evaluated) < len(run_query):
            run_query, score = run_query[evaluated], score[evaluated]
        order = _order(run_query, score, run_doc_ids, evaluated)
        _refuse(duplicate.result(), "run")
        run_doc = doc_codes.result()
    if len(evaluated) < len(run_doc):
        run_doc = run_doc[evaluated]
    query = run_query[order]
    grade = _lookup_grades(
        query, run_doc[order], qrels_query, qrels_doc, qrels_grade, max(len(doc_vocab), 1)
    )
    return _rows(query_ids, query, grade, evaluated[order], qrels_query, qrels_grade)


@dataclass
class OrderedRun:
    """A run already in ranking order: rows grouped by query, queries in byte order of their
    ids, and within a query as trec_eval ranks them (score descending, doc id descending).

    ``query_ids`` holds each query once (sorted); the rows of query ``i`` are
    ``starts[i]:starts[i + 1]``. ``doc_ids`` and ``score`` have one entry per row. A (query,
    doc) pair appears at most once (the producer guarantees it: the workspace's unique index).
    """

    query_ids: pa.Array
    starts: np.ndarray
    doc_ids: pa.Array
    score: np.ndarray
    _pairs: tuple | None = field(default=None, repr=False)

    def rows_of(self, positions: np.ndarray) -> np.ndarray:
        """Row numbers of the queries at ``positions`` (ascending), in run order."""
        begin, end = self.starts[positions], self.starts[positions + 1]
        counts = end - begin
        shift = np.repeat(begin - (np.cumsum(counts) - counts), counts)
        return np.arange(int(counts.sum()), dtype=np.int64) + shift

    def row_keys(self) -> tuple[np.ndarray, pa.Array]:
        """(an integer per row naming its (query, doc) pair: query position x distinct docs +
        the doc's code, the run's distinct doc ids), built once per run: later joins to
        labels look up integers, not strings."""
        if self._pairs is None:
            doc_ids = self.doc_ids
            if isinstance(doc_ids, pa.ChunkedArray):
                doc_ids = doc_ids.combine_chunks()
            encoded = pc.dictionary_encode(doc_ids)
            codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            counts = np.diff(self.starts)
            query_of_row = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
            self._pairs = (query_of_row * max(len(encoded.dictionary), 1) + codes,
                           encoded.dictionary)
        return self._pairs


def _sorted_vocabulary(codes: np.ndarray, vocabulary: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """The same codes against the vocabulary sorted in byte order."""
    order = pc.array_sort_indices(vocabulary).to_numpy()
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[codes], vocabulary.take(pa.array(order))


def _grades_by_pair(
    run: OrderedRun, qrels_query_ids: pa.Array, qrels_doc_ids: pa.Array, qrels_grade: np.ndarray
) -> np.ndarray:
    """Grade of every run row (NaN: unlabeled): each label's (query, doc) pair is turned into
    the run's integer pair key (``OrderedRun.row_keys``) and the rows' keys are looked up
    among the labels' in one hash lookup of integers."""
    keys, docs = run.row_keys()
    position = _codes_in(qrels_query_ids, run.query_ids)
    doc = _codes_in(qrels_doc_ids, docs)
    known = np.flatnonzero((position >= 0) & (doc >= 0))
    label_keys = position[known] * max(len(docs), 1) + doc[known]
    grade = np.full(len(keys), np.nan)
    if len(known):
        found = pc.index_in(pa.array(keys), value_set=pa.array(label_keys))
        found = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        hit = np.flatnonzero(found >= 0)
        grade[hit] = qrels_grade[known[found[hit]]]
    return grade


def rank_ordered(qrels: pd.DataFrame, run: OrderedRun) -> RankedRows:
    """``rank_rows`` for a run already in ranking order (``OrderedRun``): no sort and no
    duplicate check of the run, only the join to the labels (through the run's integer pair
    keys, built once per run). Queries come in byte order of their ids (``rank_rows`` keeps the
    labels' order of first appearance); each query's values are the same.
    """
    qrels_grade = _checked_grades(qrels)
    qrels_query_ids, qrels_doc_ids = _strings(qrels["query_id"]), _strings(qrels["doc_id"])
    _refuse(first_duplicate(qrels_query_ids, qrels_doc_ids), "qrels")
    qrels_query, query_ids = _sorted_vocabulary(*_encode(qrels_query_ids))
    run_codes = _codes_in(run.query_ids, query_ids)
    evaluated_queries = np.flatnonzero(run_codes >= 0)
    rows = run.rows_of(evaluated_queries)
    counts = run.starts[evaluated_queries + 1] - run.starts[evaluated_queries]
    query = np.repeat(run_codes[evaluated_queries], counts)
    if len(query) > 1 and not bool(np.all(query[1:] >= query[:-1])):
        raise InputError("run rows are not in query order", source="run")
    bad = ~np.isfinite(run.score[rows])
    if bad.any():
        row = int(rows[np.flatnonzero(bad)[0]])
        raise InputError(f"row {row}: score is missing or not a finite number", source="run")
    all_grades = _grades_by_pair(run, qrels_query_ids, qrels_doc_ids, qrels_grade)
    grade = all_grades if len(rows) == len(run.score) else all_grades[rows]
    return _rows(query_ids, query, grade, rows, qrels_query, qrels_grade)
