"""One transfer plan from two: the overlap rule's (``plan``) for pairs only not-relevant text
touches, and the answer rule's (``answers``) for every pair a relevant judged text touches."""

from __future__ import annotations

import numpy as np
import pandas as pd

from labeling.rechunking.answers import HOW, AnswerPlan
from labeling.rechunking.plan import TransferPlan

NOT_RELEVANT_TEXT = "its judged text was judged not relevant"


def _without(frame: pd.DataFrame, pairs: pd.MultiIndex) -> pd.DataFrame:
    if frame.empty:
        return frame
    keep = ~pd.MultiIndex.from_frame(frame[["query_id", "chunk_id"]]).isin(pairs)
    return frame.loc[keep].reset_index(drop=True)


def merge_plans(overlap: TransferPlan, answer: AnswerPlan) -> TransferPlan:
    """``overlap`` with every pair ``answer`` decided replaced by its decision, and the outcome
    of every relevant judgment as ``answer`` says."""
    decided = pd.MultiIndex.from_frame(answer.decisions[["query_id", "chunk_id"]].astype(object))
    old_labels = _without(overlap.labels, decided)
    old_labels = old_labels.assign(inferred=False, how=NOT_RELEVANT_TEXT,
                                   evidence=[[] for _ in range(len(old_labels))])
    new_labels = answer.labels.assign(how=answer.labels["how"].map(HOW))
    labels = pd.concat([old_labels[new_labels.columns], new_labels], ignore_index=True)
    old_pairs = old_labels.groupby(["query_id", "chunk_id"], as_index=False)["grade"].max()
    decisions = pd.concat([
        answer.decisions.assign(how=answer.decisions["how"].map(HOW)),
        pd.DataFrame({"query_id": old_pairs["query_id"], "chunk_id": old_pairs["chunk_id"],
                      "decision": ["exact" if g else "not_relevant" for g in old_pairs["grade"]],
                      "how": NOT_RELEVANT_TEXT}),
    ], ignore_index=True)
    outcomes = overlap.outcomes.copy()
    override = outcomes["judgment_id"].map(answer.outcomes)
    outcomes["outcome"] = pd.Series(np.where(override.notna(), override, outcomes["outcome"]),
                                    dtype=object)
    invalid = answer.invalidated.assign(how=answer.invalidated["how"].map(HOW))
    return TransferPlan(
        labels=labels,
        suggestions=pd.concat([_without(overlap.suggestions, decided), answer.suggestions],
                              ignore_index=True),
        suggestion_texts=_suggestion_texts(overlap, answer, decided),
        outcomes=outcomes, threshold=overlap.threshold, decisions=decisions,
        invalidated=invalid)


def _suggestion_texts(
    overlap: TransferPlan, answer: AnswerPlan, decided: pd.MultiIndex
) -> pd.DataFrame:
    """The old grades each queued pair shows: the overlap rule's (every judged text touching
    it, not-relevant ones too) where it queued the pair as well, else the answer rule's."""
    queued = pd.MultiIndex.from_frame(answer.suggestions[["query_id", "chunk_id"]].astype(object))
    fuller = overlap.suggestion_texts
    if not fuller.empty:
        fuller = fuller.loc[pd.MultiIndex.from_frame(fuller[["query_id", "chunk_id"]]).isin(
            queued)]
    covered = pd.MultiIndex.from_frame(fuller[["query_id", "chunk_id"]].astype(object))
    return pd.concat([_without(overlap.suggestion_texts, decided), fuller,
                      _without(answer.suggestion_texts, covered)], ignore_index=True)
