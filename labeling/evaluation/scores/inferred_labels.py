"""Relevant labels whose grade a transfer inferred: it located the answer in a piece of a split
chunk by matching the query (``labeling.rechunking.answers``), so no one has seen the pair.

A relevant consensus pair counts as inferred when every current judgment of it that is not a
machine's is a transferred label flagged ``inferred`` (a person's judgment of the pair outranks
transferred labels, so it is no longer inferred then).

On the dashboard the count is taken over the labels the chosen run is scored on, the same ones
``label_depth`` counts (grade at or above the controls' relevance, the run's chunk set, the
controls' split and label source), and the sentence names them the same way: the two sentences
speak of one set of relevant labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores.label_depth import labels_described
from labeling.evaluation.scores.scoring import in_split
from labeling.workspace import judgments as stored_judgments

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class InferredLabels:
    inferred: int
    relevant: int
    # Which relevant labels were counted, in ``label_depth.labels_described``'s words ('' when
    # not said).
    what: str = ""

    def sentence(self) -> str:
        """What the count means, in one plain sentence ('' when none is inferred)."""
        if not self.inferred:
            return ""
        what = f" ({self.what})" if self.what else ""
        return (f"{self.inferred} of the {self.relevant} relevant labels{what} are inferred: a "
                "label transfer placed the answer in these chunks by matching the query to the "
                "old chunk's sentences, and no one has judged them yet.")


def inferred_labels(
    db: sqlite_utils.Database, qrels: pd.DataFrame, relevance: int = 1, what: str = ""
) -> InferredLabels:
    """Of the relevant rows (relevance >= ``relevance``) of consensus ``qrels`` (query_id,
    doc_id, relevance), how many are inferred; ``what`` says which labels these are."""
    relevant = qrels.loc[qrels["relevance"] >= relevance, ["query_id", "doc_id"]]
    inferred = pd.DataFrame(stored_judgments.inferred_pairs(db),
                            columns=["query_id", "doc_id"])
    count = len(relevant.merge(inferred, on=["query_id", "doc_id"])) if len(inferred) else 0
    return InferredLabels(int(count), len(relevant), what)


def inferred_for_run(db: sqlite_utils.Database, controls: Controls) -> InferredLabels:
    """``inferred_labels`` of the relevant labels ``controls.run`` is scored on: the consensus
    labels of the controls' rule, source and judge, of the run's chunk set, in the controls'
    split, at or above the controls' relevance (the labels ``label_depth`` counts)."""
    chunk_set = run_chunk_set(db, controls.run)
    qrels = labels_for_chunk_set(db, chunk_set, labels_for(db, controls).qrels)
    qrels = in_split(db, qrels.set_index("query_id", drop=False), controls.split)
    return inferred_labels(db, qrels.reset_index(drop=True), controls.relevance,
                           labels_described(controls.relevance, chunk_set,
                                            controls.label_source))
