"""The demo grown the way real workspaces grow: three queries labeled after the demo's runs were
made, and a run imported for only five queries.

``ROWS`` is what ``make_workspace("demo", **ROWS)`` adds: the workspace then has 49 labeled
queries; ``partial`` (made last) answers 5 of them, so 44 "returned nothing"; the demo's runs
are older than the three new queries (stale). ``engine_means`` gives the metric engine's answer
straight from the consensus labels, to compare each screen and file with.
"""

from __future__ import annotations

import pandas as pd
import sqlite_utils

from labeling.judging import consensus
from labeling.metrics.engine import Evaluation, evaluate

PARTIAL = "partial"
ANSWERED = ("q01", "q03", "q07", "q22", "q35")  # the five queries the partial run answers
NEW_QUERIES = [
    {"id": "q47", "text": "Can I carry annual leave over into April?", "topic": "hr",
     "source": "real", "split": "dev"},
    {"id": "q48", "text": "who approves remote work from the Leeds lab", "topic": "hr",
     "source": "real", "split": "test"},
    {"id": "q49", "text": "What is the hotel cap per night?", "topic": "hr",
     "source": "synthetic", "split": "test"},
]
EVALUATED = 49
RETURNED_NOTHING = EVALUATED - len(ANSWERED)


def _partial_results() -> list[tuple[str, str, float]]:
    """The five answered queries' results: each relevant chunk of the demo's intended list
    first, then two others, scored in descending order."""
    picks = {
        "q01": ["leave-01", "leave-04", "remote-work-01"],
        "q03": ["leave-05", "leave-02", "expenses-01"],
        "q07": ["leave-03", "onboarding-01"],
        "q22": ["onboarding-03", "onboarding-01", "leave-01"],
        "q35": ["routewise-api-01"],
    }
    return [(query, chunk, float(10 - rank)) for query, chunks in picks.items()
            for rank, chunk in enumerate(chunks)]


ROWS = {
    "queries": NEW_QUERIES,
    "runs": {PARTIAL: {"results": _partial_results(), "notes": "five queries only"}},
    "judgments": [
        ("q47", "leave-01", 3, "alice"), ("q47", "leave-02", 1, "alice"),
        ("q48", "remote-work-01", 3, "alice"), ("q48", "remote-work-02", 0, "alice"),
        ("q49", "expenses-05", 2, "alice"),
    ],
}


def engine_evaluation(
    db: sqlite_utils.Database, run: str, measures: list[str], *, missing: str = "zero"
) -> Evaluation:
    """The metric engine on the default consensus labels and the stored run, as a user would
    call it (a threshold is written into the measure names: ``P(rel=2)@10``)."""
    qrels, frame = consensus.consensus_qrels(db, "default"), consensus.run_frame(db, run)
    return evaluate(qrels, frame, measures, missing=missing)


def engine_means(db: sqlite_utils.Database, run: str, measures: list[str], *,
                 missing: str = "zero") -> tuple[pd.Series, int]:
    """(means, n) of the engine's evaluation."""
    result = engine_evaluation(db, run, measures, missing=missing)
    return result.mean, len(result.per_query)
