"""Which labels carry over to a new chunk set, which pairs go to the experts: the rule, pure.

The rule (threshold ``t``, by default ``DEFAULT_THRESHOLD``), for a query q and a new chunk n:

- The *judged texts* of q that touch n are the old chunks q has current graded judgments of
  whose span shares text with n (``labeling.rechunking.mapping``), leaving out *slivers*: an
  overlap below ``SLIVER`` of the judged text and below ``SLIVER`` of n (the edge an
  overlapping chunking repeats) tells nothing about n. A text *carries* into n when n holds at
  least t of it (``share_of_judged >= t``) or it makes up at least t of n
  (``share_of_chunk >= t``: n is a piece of a judged text that the new chunking split).
- A text's grade here is the highest any annotator gave it (so a doubt in one person's label
  is never lost). The pair is *carried* when the highest grade among the texts that carry into
  n is at least the highest grade among those that only touch it; or when no text touching n
  is relevant (every grade below 1) and the judged texts together make up at least t of n.
  Otherwise, when a relevant text (grade 1 or more) touches n, the pair is *suggested*: it goes
  to the labeling queue, and its old grades are shown to an expert only after they judged it.
  A pair that only not-relevant texts touch, without covering it, stays unjudged (*dropped*):
  most of its text was never judged.
- A carried pair inherits the judgments of one old text, its *source*: the carrying text with
  the highest consensus grade (default rule), then the highest grade, the largest share, the
  first chunk. Each annotator's current judgment of (q, source) is copied (grade, adjudicated,
  unsure) as a judgment of (q, n) of origin ``transferred``; so under every consensus rule the
  new pair gets the grade the old text had.
- A pair that already has a label not made by a machine or the generator (a person's, an
  import's, an earlier transfer's) gets nothing (*kept*), and nothing changes for queries of a
  locked split (*frozen*).
- A judged text is *split* when no new chunk holds t of it but pieces of it carry (each piece
  inherits; the label says it is a piece).

Outcome of each old judgment: ``carried`` when a new chunk its text touches got labels,
else ``suggested`` when one went to the queue, else ``kept`` (the pairs already had labels),
``frozen`` (its query's split is locked), ``dropped`` (not relevant, and only in slivers or in
chunks mostly made of unjudged text) or ``lost`` (no chunk of the new set holds any of its text:
removed from the documents, or its document is not in the new chunk set).

Everything is vectorised over (judged text, new chunk) rows with numpy and pandas; nothing runs
a Python loop per judgment or per pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from labeling.judging import consensus

DEFAULT_THRESHOLD = 0.8
SLIVER = 0.2
OUTCOMES = ("carried", "suggested", "kept", "frozen", "dropped", "lost")
_EPSILON = 1e-9  # shares are ratios of integers: 4/5 must count as 0.8


def _strings(values) -> pd.Series:
    """Ids and names as a column of Python strings (no conversion to another string type)."""
    return pd.Series(np.asarray(values, dtype=object), dtype=object)


@dataclass(frozen=True)
class TransferPlan:
    """What a transfer will write.

    - ``labels``: query_id, chunk_id (new), annotator, grade, adjudicated, unsure, source_id
      (the old judgment), source_chunk, share_of_judged, share_of_chunk, split.
    - ``suggestions``: query_id, chunk_id, grade (highest old grade touching it).
    - ``suggestion_texts``: query_id, chunk_id, old_chunk, annotator, grade, share_of_judged,
      share_of_chunk: the old grades a suggestion shows after it was judged.
    - ``outcomes``: judgment_id, outcome (one of ``OUTCOMES``), split.
    - ``decisions`` (when the relevant judgments were decided by where the answer is,
      ``labeling.rechunking.answers``): query_id, chunk_id, decision, how, per new pair;
      ``invalidated``: judgment_id, query_id, chunk_id, how. Labels then also have ``inferred``,
      ``how`` and ``evidence``.
    """

    labels: pd.DataFrame
    suggestions: pd.DataFrame
    suggestion_texts: pd.DataFrame
    outcomes: pd.DataFrame
    threshold: float
    decisions: pd.DataFrame | None = None
    invalidated: pd.DataFrame | None = None


def check_threshold(threshold: float) -> float:
    """``threshold`` as a float in (0, 1], or ``ValueError``."""
    value = float(threshold)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"the overlap threshold is a share above 0 and at most 1, not {threshold}")
    return value


def plan_transfer(
    judged: pd.DataFrame,
    old: pd.DataFrame,
    new: pd.DataFrame,
    overlaps: pd.DataFrame,
    *,
    blocked: pd.DataFrame,
    frozen_queries: pd.Index,
    threshold: float = DEFAULT_THRESHOLD,
) -> TransferPlan:
    """The transfer of ``judged`` (current graded judgments of old chunks: id, query_id,
    chunk_id, annotator, grade, adjudicated, unsure) onto the chunks of ``new``.

    Judgments of chunks outside ``old`` are left out. ``old`` and ``new`` are span frames
    (chunk_id first), ``overlaps`` their ``mapping.chunk_overlaps``; ``blocked`` the
    (query_id, chunk_id) pairs of new chunks that already have labels; ``frozen_queries`` the
    queries of locked splits.
    """
    threshold = check_threshold(threshold)
    old_code = pd.Index(old["chunk_id"].to_numpy(object), dtype=object).get_indexer(
        judged["chunk_id"].to_numpy(object))
    judged = judged.loc[old_code >= 0].reset_index(drop=True)  # judgments of other chunk sets
    old_code = old_code[old_code >= 0]
    texts, judgment_text, query_ids = _judged_texts(judged, old_code)
    rows = _rows(texts, overlaps, threshold)
    slivers = np.zeros(len(texts), dtype=bool)
    slivers[rows["t"].to_numpy()[rows["sliver"].to_numpy()]] = True
    rows = rows.loc[~rows["sliver"]].reset_index(drop=True)
    pairs = _pairs(rows, texts, threshold)
    pairs = _mark_blocked(pairs, new, query_ids, blocked, frozen_queries)
    outcome, split = _text_outcomes(texts, rows, pairs, frozen_queries, slivers)
    judged_outcome = pd.DataFrame({
        "judgment_id": judged["id"].to_numpy(np.int64),
        "outcome": _strings(np.asarray(OUTCOMES, dtype=object)[outcome[judgment_text]]),
        "split": split[judgment_text],
    })
    labels = _labels(judged, judgment_text, rows, pairs, split)
    suggestions, suggestion_texts = _suggestions(judged, judgment_text, texts, rows, pairs)
    return TransferPlan(labels, suggestions, suggestion_texts, judged_outcome, threshold)


def _judged_texts(
    judged: pd.DataFrame, old_code: np.ndarray
) -> tuple[pd.DataFrame, np.ndarray, pd.Index]:
    """One row per judged (query, old chunk): query_id, chunk_id, o (old chunk code), q (query
    code), top (the highest grade), agreed (the default consensus grade); per judgment, the row
    of its text; and the query ids by code. Grouping runs on integer codes, not on strings."""
    q_code, query_ids = pd.factorize(judged["query_id"])
    key = q_code.astype(np.int64) * (int(old_code.max(initial=0)) + 1) + old_code
    judgment_text, keys = pd.factorize(key)
    first = np.full(len(keys), -1, dtype=np.int64)
    first[judgment_text[::-1]] = np.arange(len(judged) - 1, -1, -1)  # first judgment per text
    grades = judged["grade"].to_numpy(np.int64)
    top = np.full(len(keys), np.iinfo(np.int64).min)
    np.maximum.at(top, judgment_text, grades)
    votes = pd.DataFrame({
        "id": judged["id"].to_numpy(), "query_id": judgment_text, "chunk_id": 0,
        "grade": grades, "annotator": _strings(judged["annotator"]),
        "adjudicated": judged["adjudicated"].to_numpy(bool), "generator": False})
    agreed = consensus.consensus(votes, "default")  # one pair per text (its number)
    agreed_grade = np.zeros(len(keys), dtype=np.int64)
    agreed_grade[agreed["query_id"].astype("int64").to_numpy()] = agreed["grade"].to_numpy()
    texts = pd.DataFrame({
        "query_id": _strings(np.asarray(query_ids, dtype=object)[q_code[first]]),
        "chunk_id": _strings(judged["chunk_id"].to_numpy(dtype=object)[first]),
        "o": old_code[first].astype(np.int64), "q": q_code[first].astype(np.int64),
        "top": top, "agreed": agreed_grade,
    })
    return texts, judgment_text.astype(np.int64), pd.Index(query_ids, dtype=object)


def _rows(texts: pd.DataFrame, overlaps: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """(judged text, new chunk) rows: t (text row), n (new chunk code), the shares, carries."""
    olds = overlaps["old"].to_numpy(np.int64)
    first = np.searchsorted(olds, texts["o"].to_numpy(), side="left")
    last = np.searchsorted(olds, texts["o"].to_numpy(), side="right")
    counts = last - first
    text_row = np.repeat(np.arange(len(texts), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    member = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts - first, counts)
    judged_share = overlaps["share_of_judged"].to_numpy()[member]
    chunk_share = overlaps["share_of_chunk"].to_numpy()[member]
    touching = np.maximum(judged_share, chunk_share) >= SLIVER - _EPSILON
    return pd.DataFrame({
        "t": text_row,
        "sliver": ~touching,
        "n": overlaps["new"].to_numpy(np.int64)[member],
        "share_of_judged": judged_share,
        "share_of_chunk": chunk_share,
        "holds": judged_share >= threshold - _EPSILON,
        "carries": (judged_share >= threshold - _EPSILON)
        | (chunk_share >= threshold - _EPSILON),
    })


def _pairs(rows: pd.DataFrame, texts: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """One row per (query, new chunk) touched (slivers left out of ``rows`` first): q, n,
    carried (bool), source (text row or -1), top (highest grade touching it); ``rows`` gains
    its pair's number (``pair``)."""
    q = texts["q"].to_numpy()[rows["t"].to_numpy()]
    top = texts["top"].to_numpy()[rows["t"].to_numpy()]
    agreed = texts["agreed"].to_numpy()[rows["t"].to_numpy()]
    carries = rows["carries"].to_numpy()
    n_new = int(rows["n"].max()) + 1 if len(rows) else 1
    pair, keys = pd.factorize(q.astype(np.int64) * n_new + rows["n"].to_numpy())
    rows["pair"] = pair
    n_pairs = len(keys)
    lowest = np.iinfo(np.int64).min
    best_carrying = np.full(n_pairs, lowest)
    np.maximum.at(best_carrying, pair[carries], top[carries])
    best_touching = np.full(n_pairs, lowest)
    np.maximum.at(best_touching, pair[~carries], top[~carries])
    highest = np.maximum(best_carrying, best_touching)
    covered = np.bincount(pair, weights=rows["share_of_chunk"].to_numpy(), minlength=n_pairs)
    has_carrying = best_carrying > lowest
    carried = (has_carrying & (best_carrying >= best_touching)) | (
        (highest < 1) & (covered >= threshold - _EPSILON))
    # The source: among the carrying texts (or, for a pair covered without one, all texts),
    # the highest consensus grade, then grade, then share, then the first chunk.
    eligible = carries | ~has_carrying[pair]
    share = np.maximum(rows["share_of_judged"].to_numpy(), rows["share_of_chunk"].to_numpy())
    order = np.lexsort((texts["o"].to_numpy()[rows["t"].to_numpy()], -share, -top, -agreed,
                        ~eligible, pair))
    first = order[np.r_[True, pair[order][1:] != pair[order][:-1]]] if len(order) else order
    source = np.full(n_pairs, -1, dtype=np.int64)
    source[pair[first]] = rows["t"].to_numpy()[first]
    return pd.DataFrame({
        "q": (keys // n_new).astype(np.int64), "n": (keys % n_new).astype(np.int64),
        "carried": carried, "source": source, "top": highest,
    })


def _mark_blocked(
    pairs: pd.DataFrame, new: pd.DataFrame, query_ids: pd.Index, blocked: pd.DataFrame,
    frozen_queries: pd.Index,
) -> pd.DataFrame:
    """``pairs`` with ``state``: carried, suggested, dropped, kept (already labelled) or
    frozen."""
    query = np.asarray(query_ids, dtype=object)[pairs["q"].to_numpy()]
    chunk = new["chunk_id"].to_numpy(object)[pairs["n"].to_numpy()]
    labelled = np.zeros(len(pairs), dtype=bool)
    if len(blocked):  # pairs as one string each: ids hold no control character
        known = pd.Index(blocked["query_id"].astype(str).to_numpy(object) + "\x1f"
                         + blocked["chunk_id"].astype(str).to_numpy(object), dtype=object)
        labelled = pd.Index(query + "\x1f" + chunk, dtype=object).isin(known)
    frozen = np.zeros(len(pairs), dtype=bool)
    if len(frozen_queries):
        frozen = pd.Index(query, dtype=object).isin(pd.Index(frozen_queries, dtype=object))
    state = np.where(pairs["carried"].to_numpy(), "carried",
                     np.where(pairs["top"].to_numpy() >= 1, "suggested", "dropped")).astype(object)
    state[labelled] = "kept"
    state[frozen] = "frozen"
    return pairs.assign(state=_strings(state), query_id=_strings(query),
                        chunk_id=_strings(chunk))


def _text_outcomes(
    texts: pd.DataFrame, rows: pd.DataFrame, pairs: pd.DataFrame, frozen_queries: pd.Index,
    slivers: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per judged text: the outcome code (index in ``OUTCOMES``) and whether it was split."""
    state = pairs["state"].map(OUTCOMES.index).to_numpy(np.int64)[rows["pair"].to_numpy()]
    outcome = np.full(len(texts), OUTCOMES.index("lost"), dtype=np.int64)
    outcome[slivers] = OUTCOMES.index("dropped")  # its text is there, in slivers only
    np.minimum.at(outcome, rows["t"].to_numpy(), state)
    if len(frozen_queries):
        outcome[pd.Index(texts["query_id"].to_numpy(object), dtype=object).isin(
            pd.Index(frozen_queries, dtype=object))] = OUTCOMES.index("frozen")
    # Split: no new chunk holds ``threshold`` of the text, yet pieces of it carry.
    held = np.zeros(len(texts), dtype=bool)
    held[rows["t"].to_numpy()[rows["holds"].to_numpy()]] = True
    pieces = np.zeros(len(texts), dtype=bool)
    pieces[rows["t"].to_numpy()[rows["carries"].to_numpy()]] = True
    return outcome, pieces & ~held


def _labels(
    judged: pd.DataFrame, judgment_text: np.ndarray, rows: pd.DataFrame, pairs: pd.DataFrame,
    split: np.ndarray,
) -> pd.DataFrame:
    """The judgments to write: each annotator's judgment of the source, per carried pair."""
    carried = pairs.loc[pairs["state"] == "carried"]
    source_text = carried["source"].to_numpy(np.int64)
    # The shares of (source text, new chunk): the row of that pair whose text is the source.
    pair_number = carried.index.to_numpy()
    is_source = rows["t"].to_numpy() == pairs["source"].to_numpy()[rows["pair"].to_numpy()]
    source_rows = rows.loc[is_source].set_index("pair")
    shares = source_rows.reindex(pair_number)
    # Judgments of each source text: judged rows grouped by their text.
    by_text = np.argsort(judgment_text, kind="stable")
    first = np.searchsorted(judgment_text[by_text], source_text, side="left")
    last = np.searchsorted(judgment_text[by_text], source_text, side="right")
    counts = last - first
    owner = np.repeat(np.arange(len(carried), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    member = by_text[np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts - first,
                                                                               counts)]
    picked = judged.iloc[member]
    return pd.DataFrame({
        "query_id": _strings(carried["query_id"].to_numpy()[owner]),
        "chunk_id": _strings(carried["chunk_id"].to_numpy()[owner]),
        "annotator": _strings(picked["annotator"]),
        "grade": picked["grade"].to_numpy(np.int64),
        "adjudicated": picked["adjudicated"].to_numpy(bool),
        "unsure": picked["unsure"].to_numpy(bool),
        "source_id": picked["id"].to_numpy(np.int64),
        "source_chunk": _strings(picked["chunk_id"]),
        "share_of_judged": shares["share_of_judged"].to_numpy()[owner],
        "share_of_chunk": shares["share_of_chunk"].to_numpy()[owner],
        "split": split[source_text][owner],
    })


def _suggestions(
    judged: pd.DataFrame, judgment_text: np.ndarray, texts: pd.DataFrame, rows: pd.DataFrame,
    pairs: pd.DataFrame,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The suggested pairs and, per pair, the old judgments of the texts touching it."""
    suggested = pairs.loc[pairs["state"] == "suggested"]
    pairs_out = pd.DataFrame({"query_id": _strings(suggested["query_id"]),
                              "chunk_id": _strings(suggested["chunk_id"]),
                              "grade": suggested["top"].to_numpy(np.int64)})
    touching = rows.loc[pd.Index(rows["pair"]).isin(suggested.index)]
    votes = judged.assign(t=judgment_text)[["t", "annotator", "grade"]]
    detail = touching.merge(votes, on="t", how="left")
    detail = pd.DataFrame({
        "query_id": _strings(pairs["query_id"].to_numpy()[detail["pair"].to_numpy()]),
        "chunk_id": _strings(pairs["chunk_id"].to_numpy()[detail["pair"].to_numpy()]),
        "old_chunk": _strings(texts["chunk_id"].to_numpy()[detail["t"].to_numpy()]),
        "annotator": _strings(detail["annotator"]),
        "grade": detail["grade"].to_numpy(np.int64),
        "share_of_judged": detail["share_of_judged"].to_numpy(),
        "share_of_chunk": detail["share_of_chunk"].to_numpy(),
    })
    return pairs_out, detail
