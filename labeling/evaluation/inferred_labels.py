"""Relevant labels whose grade a transfer inferred: it located the answer in a piece of a split
chunk by matching the query (``labeling.rechunking.answers``), so no one has seen the pair.

A relevant consensus pair counts as inferred when every current judgment of it that is not a
machine's is a transferred label flagged ``inferred`` (a person's judgment of the pair outranks
transferred labels, so it is no longer inferred then).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import sqlite_utils

_INFERRED_PAIRS_SQL = """
SELECT query_id, chunk_id FROM judgments
WHERE id IN (SELECT max(id) FROM judgments GROUP BY query_id, chunk_id, annotator)
  AND origin <> 'machine'
GROUP BY query_id, chunk_id
HAVING min(origin = 'transferred' AND coalesce(json_extract(flags, '$.inferred'), 0)) = 1
"""


@dataclass(frozen=True)
class InferredLabels:
    inferred: int
    relevant: int

    def sentence(self) -> str:
        """What the count means, in one plain sentence ('' when none is inferred)."""
        if not self.inferred:
            return ""
        return (f"{self.inferred} of the {self.relevant} relevant labels are inferred: a label "
                "transfer placed the answer in these chunks by matching the query to the old "
                "chunk's sentences, and no one has judged them yet.")


def inferred_labels(db: sqlite_utils.Database, qrels: pd.DataFrame) -> InferredLabels:
    """Of the relevant rows of consensus ``qrels`` (query_id, doc_id, relevance), how many are
    inferred."""
    relevant = qrels.loc[qrels["relevance"] >= 1, ["query_id", "doc_id"]]
    inferred = pd.DataFrame(db.conn.execute(_INFERRED_PAIRS_SQL).fetchall(),
                            columns=["query_id", "doc_id"])
    count = len(relevant.merge(inferred, on=["query_id", "doc_id"])) if len(inferred) else 0
    return InferredLabels(int(count), len(relevant))
