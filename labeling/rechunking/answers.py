"""Where the answer went: the transfer of *relevant* judgments, decided by where the answer is.

A chunk label does not say where in the chunk the answer is; its evidence spans do
(``labeling.workspace.evidence``). For a query and a new chunk that shares any text with one of
the query's relevant judged texts (no sliver rule: a whole evidence span is never hidden), each
relevant text's judgments decide, one annotator each:

- **with evidence** (spans carried to the new chunk's document version; a span survives only
  whole and unchanged): the chunk holds a whole span -> ``exact``, the judgment's grade (the
  label carries the spans it holds); it overlaps none of the spans and every span survived ->
  ``not_relevant`` (grade 0: the evidence says where the answer is, and it is not here); it
  cuts a span, or some spans did not survive -> ``review``;
- **without evidence**: the chunk holds the whole judged text (unchanged) -> ``exact``; it holds
  the sentence that best matches the query by BM25 with a margin (``locate``) -> ``inferred``
  (the label is flagged ``inferred``); otherwise -> ``review`` (sent to the labeling queue);
- a judgment whose judged text (without evidence) or whose every evidence span (with) was
  edited or deleted in the new document version is **invalidated**: it writes no label, and
  the new chunks holding what is left of its text go to ``review``;
- a grade-0 judgment of a relevant text (another annotator's) is copied as it is wherever the
  pair gets labels.

A pair with an ``exact`` or ``inferred`` relevant decision gets the labels of one judged text
(the most relevant one deciding so; exact wins the kind), so the pair has the consensus that
text had; else a ``review`` decision queues it (no label); else its labels are 0
(``not_relevant``). Each label's annotator is the judgment's, one per annotator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from labeling.rechunking.alignment import shared_blocks, surviving_pieces
from labeling.rechunking.locate import MARGIN, locate_answers

Span = tuple[int, int]
DECISIONS = ("exact", "inferred", "review", "not_relevant")
# (document id, version) keys -> their texts (only the keys that exist).
TextLoader = Callable[[list[tuple[str, str]]], dict[tuple[str, str], str]]

HOW = {
    "evidence_held": "it holds a whole evidence span of the judged text",
    "evidence_elsewhere": "every evidence span survived and none is in it: not relevant",
    "evidence_cut": "it holds part of an evidence span, not all of it",
    "evidence_partly_gone": "some evidence spans were edited or deleted and it holds none of the"
                            " rest",
    "evidence_gone": "the evidence was edited or deleted in the new document version",
    "text_held": "it holds the whole judged text",
    "text_gone": "the judged text was edited or deleted in the new document version",
    "located": f"it holds the sentence that best matches the query by BM25 (at least {MARGIN}x"
               " the next sentence's score)",
    "not_located": "a piece of a split relevant text where the answer's place is not known",
    "zero": "the annotator judged the text not relevant",
}


@dataclass
class AnswerPlan:
    """What the relevant judgments decide.

    - ``labels``: query_id, chunk_id, annotator, grade, source_id, source_chunk,
      share_of_judged, share_of_chunk, split, inferred, how, evidence (spans held, a list).
    - ``suggestions``: query_id, chunk_id, grade (the highest relevant grade touching it).
    - ``suggestion_texts``: as ``plan.TransferPlan``'s, for the queued pairs.
    - ``decisions``: query_id, chunk_id, decision (``DECISIONS``), how (a ``HOW`` key).
    - ``invalidated``: judgment_id, query_id, chunk_id, how.
    - ``outcomes``: judgment_id -> outcome (``plan.OUTCOMES``) of every relevant judgment read.
    """

    labels: pd.DataFrame
    suggestions: pd.DataFrame
    suggestion_texts: pd.DataFrame
    decisions: pd.DataFrame
    invalidated: pd.DataFrame
    outcomes: dict[int, str] = field(default_factory=dict)


class Versions:
    """Spans of one document version carried to another: whole and unchanged, or None."""

    def __init__(self, texts: TextLoader):
        self._texts = texts
        self._blocks: dict[tuple[str, str, str], np.ndarray] = {}

    def move(self, doc_id: str, old: str, new: str, spans: list[Span]) -> list[Span | None]:
        if old == new or not spans:
            return list(spans)
        key = (doc_id, old, new)
        if key not in self._blocks:
            loaded = self._texts([(doc_id, old), (doc_id, new)])
            self._blocks[key] = (shared_blocks(loaded[(doc_id, old)], loaded[(doc_id, new)])
                                 if len(loaded) == 2 else np.zeros((0, 3), dtype=np.int64))
        starts = np.array([s for s, _ in spans], dtype=np.int64)
        ends = np.array([e for _, e in spans], dtype=np.int64)
        index, lo, hi = surviving_pieces(starts, ends, self._blocks[key])
        moved: list[Span | None] = [None] * len(spans)
        for i, a, b in zip(index.tolist(), lo.tolist(), hi.tolist(), strict=True):
            if b - a == spans[i][1] - spans[i][0]:  # one piece, the whole span
                moved[i] = (a, b)
        return moved


@dataclass(frozen=True)
class _Text:
    """A relevant judged text: its query, old chunk place, judgments and new chunk overlaps."""

    query_id: str
    chunk_id: str
    doc_id: str
    version: str
    start: int
    end: int
    judgments: pd.DataFrame
    overlaps: pd.DataFrame


def plan_answers(
    judged: pd.DataFrame, evidence: dict[int, list[Span]], old: pd.DataFrame,
    new: pd.DataFrame, overlaps: pd.DataFrame, *, texts: TextLoader,
    query_texts: dict[str, str], skip_pairs: set[tuple[str, str]], frozen: set[str],
) -> AnswerPlan:
    """Decide every (query, new chunk) pair that shares text with a relevant judged text of
    ``judged`` (old chunks only; columns as ``plan.plan_transfer`` reads). ``skip_pairs`` are
    pairs already labelled (kept), ``frozen`` the queries of locked splits (left alone)."""
    relevant = _relevant_texts(judged, old, overlaps, frozen)
    versions = Versions(texts)
    located = _locate(relevant, evidence, texts, query_texts)
    decided: list[dict] = []
    invalidated: list[dict] = []
    outcomes: dict[int, str] = {}
    for number, text in enumerate(relevant):
        for judgment in text.judgments.itertuples(index=False):
            rows, gone = _judgment_decisions(
                text, judgment, evidence.get(int(judgment.id), []), located[number], new,
                versions, skip_pairs)
            decided += rows
            if gone:
                invalidated.append({"judgment_id": int(judgment.id), "query_id": text.query_id,
                                    "chunk_id": text.chunk_id, "how": gone})
            outcomes[int(judgment.id)] = _outcome(rows, gone)
    return _combine(pd.DataFrame(decided), invalidated, outcomes)


def _relevant_texts(
    judged: pd.DataFrame, old: pd.DataFrame, overlaps: pd.DataFrame, frozen: set[str]
) -> list[_Text]:
    places = old.reset_index(drop=True)
    row_of = pd.Index(places["chunk_id"].to_numpy(object), dtype=object)
    by_old = {o: group for o, group in overlaps.groupby("old", sort=False)}
    empty = overlaps.iloc[:0]
    out = []
    for (query_id, chunk_id), group in judged.groupby(["query_id", "chunk_id"], sort=True):
        row = row_of.get_indexer([chunk_id])[0]
        if row < 0 or group["grade"].max() < 1 or query_id in frozen:
            continue
        place = places.iloc[row]
        out.append(_Text(str(query_id), str(chunk_id), str(place["doc_id"]),
                         str(place["doc_version"]), int(place["start"]), int(place["end"]),
                         group, by_old.get(row, empty)))
    return out


def _locate(
    relevant: list[_Text], evidence: dict[int, list[Span]], texts: TextLoader,
    query_texts: dict[str, str],
) -> list[Span | None]:
    """The located answer (old document offsets) of each relevant text some relevant judgment
    of which has no evidence; None elsewhere."""
    wanted = [i for i, t in enumerate(relevant) if any(
        g >= 1 and not evidence.get(int(j)) for j, g in zip(t.judgments["id"],
                                                            t.judgments["grade"], strict=True))]
    keys = sorted({(relevant[i].doc_id, relevant[i].version) for i in wanted})
    loaded = texts(keys) if keys else {}
    found: list[Span | None] = [None] * len(relevant)
    bodies = [loaded.get((relevant[i].doc_id, relevant[i].version), "")[
        relevant[i].start:relevant[i].end] for i in wanted]
    answers = locate_answers([query_texts.get(relevant[i].query_id, "") for i in wanted], bodies)
    for i, answer in zip(wanted, answers, strict=True):
        if answer is not None:
            base = relevant[i].start
            found[i] = (base + answer.start, base + answer.end)
    return found


def _judgment_decisions(
    text: _Text, judgment, spans: list[Span], located: Span | None, new: pd.DataFrame,
    versions: Versions, skip_pairs: set[tuple[str, str]],
) -> tuple[list[dict], str | None]:
    """One decision per new chunk sharing the text; and why the judgment is invalidated."""
    rows: list[dict] = []
    gone = None
    for overlap in text.overlaps.itertuples(index=False):
        chunk = new.iloc[int(overlap.new)]
        if (text.query_id, chunk["chunk_id"]) in skip_pairs:
            rows.append({"decision": "kept", "chunk_id": chunk["chunk_id"]})
            continue
        lo, hi, version = int(chunk["start"]), int(chunk["end"]), str(chunk["doc_version"])
        holds = partial(_inside, lo, hi)
        decision, how, held, inferred = _decide(
            text, int(judgment.grade), spans, located, lo, hi, version, versions, holds)
        if how in ("evidence_gone", "text_gone"):
            gone = how
        grade = int(judgment.grade) if decision in ("exact", "inferred", "zero") else 0
        rows.append({
            "query_id": text.query_id, "chunk_id": chunk["chunk_id"], "decision": decision,
            "how": how, "annotator": judgment.annotator, "grade": grade,
            "source_id": int(judgment.id), "source_chunk": text.chunk_id,
            "share_of_judged": float(overlap.share_of_judged),
            "share_of_chunk": float(overlap.share_of_chunk),
            "split": not holds(_whole(text, version, versions)), "inferred": inferred,
            "evidence": held, "top": int(text.judgments["grade"].max()),
            "judged": int(judgment.grade),
        })
    return rows, gone


def _inside(lo: int, hi: int, span: Span | None) -> bool:
    """Whether ``[lo, hi)`` holds all of ``span`` (None: a span that did not survive)."""
    return span is not None and lo <= span[0] and span[1] <= hi


def _whole(text: _Text, version: str, versions: Versions) -> Span | None:
    return versions.move(text.doc_id, text.version, version, [(text.start, text.end)])[0]


def _decide(text, grade, spans, located, lo, hi, version, versions, holds):
    """(decision, how, evidence held, inferred) of one judgment for one new chunk."""
    if grade < 1:
        return "zero", "zero", [], False
    if spans:
        moved = versions.move(text.doc_id, text.version, version, spans)
        surviving = [m for m in moved if m is not None]
        held = [m for m in surviving if holds(m)]
        if held:
            return "exact", "evidence_held", held, False
        if not surviving:
            return "review", "evidence_gone", [], False
        if any(m[0] < hi and lo < m[1] for m in surviving):
            return "review", "evidence_cut", [], False
        if len(surviving) == len(spans):
            return "not_relevant", "evidence_elsewhere", [], False
        return "review", "evidence_partly_gone", [], False
    whole = _whole(text, version, versions)
    if whole is None:
        return "review", "text_gone", [], False
    if holds(whole):
        return "exact", "text_held", [], False
    if located is not None and holds(
            versions.move(text.doc_id, text.version, version, [located])[0]):
        return "inferred", "located", [], True
    return "review", "not_located", [], False


def _outcome(rows: list[dict], gone: str | None) -> str:
    kinds = {r["decision"] for r in rows}
    if gone and not kinds & {"exact", "inferred"}:
        return "lost"
    if kinds & {"exact", "inferred", "not_relevant", "zero"}:
        return "carried"
    if "review" in kinds:
        return "suggested"
    if "kept" in kinds:
        return "kept"
    return "lost"  # its text is in no chunk of the new set


_LABEL_COLUMNS = ["query_id", "chunk_id", "annotator", "grade", "source_id", "source_chunk",
                  "share_of_judged", "share_of_chunk", "split", "inferred", "how", "evidence"]


def _combine(rows: pd.DataFrame, invalidated: list[dict], outcomes: dict[int, str]) -> AnswerPlan:
    """Pair decisions from the judgments' decisions (see the module docstring)."""
    invalid = pd.DataFrame(invalidated, columns=["judgment_id", "query_id", "chunk_id", "how"])
    if rows.empty or not (rows["decision"] != "kept").any():
        empty = pd.DataFrame(columns=["query_id", "chunk_id"])
        return AnswerPlan(pd.DataFrame(columns=_LABEL_COLUMNS),
                          pd.DataFrame(columns=["query_id", "chunk_id", "grade"]),
                          pd.DataFrame(columns=["query_id", "chunk_id", "old_chunk", "annotator",
                                                "grade", "share_of_judged", "share_of_chunk"]),
                          empty.assign(decision=[], how=[]), invalid, outcomes)
    rows = rows.loc[rows["decision"] != "kept"].reset_index(drop=True)
    labels, suggestions, texts, decisions = [], [], [], []
    for (query_id, chunk_id), pair in rows.groupby(["query_id", "chunk_id"], sort=True):
        kinds = set(pair["decision"])
        positive = pair.loc[pair["decision"].isin(["exact", "inferred"])]
        if len(positive):
            kind = "exact" if "exact" in kinds else "inferred"
            # One judged text gives the labels, as under the overlap rule: the most relevant
            # one, exact before inferred, then the one the chunk holds most of.
            first = positive.sort_values(["top", "decision", "share_of_judged"],
                                         ascending=[False, True, False]).iloc[0]
            how = first["how"]
            chosen = pair.loc[(pair["source_chunk"] == first["source_chunk"])
                              & pair["decision"].isin(["exact", "inferred", "zero"])]
        elif "review" in kinds:
            kind, how = "review", pair.loc[pair["decision"] == "review", "how"].iloc[0]
            suggestions.append({"query_id": query_id, "chunk_id": chunk_id,
                                "grade": int(pair["top"].max())})
            texts.append(pair)
            chosen = pair.iloc[:0]
        else:
            kind, how = "not_relevant", pair["how"].iloc[0]
            chosen = pair
        decisions.append({"query_id": query_id, "chunk_id": chunk_id, "decision": kind,
                          "how": how})
        # One label per annotator: the highest grade, exact before inferred.
        best = chosen.assign(rank=chosen["decision"].map({"exact": 0, "inferred": 1}).fillna(2))
        best = best.sort_values(["annotator", "grade", "rank"], ascending=[True, False, True])
        labels.append(best.drop_duplicates("annotator"))
    label_frame = (pd.concat(labels, ignore_index=True)[_LABEL_COLUMNS] if labels
                   else pd.DataFrame(columns=_LABEL_COLUMNS))
    text_frame = (pd.concat(texts, ignore_index=True) if texts else rows.iloc[:0])
    return AnswerPlan(
        label_frame, pd.DataFrame(suggestions, columns=["query_id", "chunk_id", "grade"]),
        pd.DataFrame({
            "query_id": text_frame["query_id"], "chunk_id": text_frame["chunk_id"],
            "old_chunk": text_frame["source_chunk"], "annotator": text_frame["annotator"],
            "grade": text_frame["judged"].astype(np.int64),
            "share_of_judged": text_frame["share_of_judged"],
            "share_of_chunk": text_frame["share_of_chunk"]}).reset_index(drop=True),
        pd.DataFrame(decisions), invalid, outcomes)
