"""The demo workspace with three different label sets under the three consensus rules.

On the demo, two annotators disagree by one grade on 27 pairs: ``default`` rounds their mean up,
so it equals ``lenient`` everywhere. ``split_the_rules`` adds a third annotator who sides with the
lower grade on every other such pair: there ``default`` (now a majority) takes the lower grade,
elsewhere the higher one, so no rule's labels equal another's and a tab that silently used the
default rule shows other numbers than the rule chosen.
"""

from __future__ import annotations

import sqlite_utils

from labeling.judging import consensus
from labeling.workspace import judgments

THIRD_ANNOTATOR = "carol"
RULES = ("strict", "lenient")  # the rules a test switches to (default is the one left behind)


def split_the_rules(db: sqlite_utils.Database) -> int:
    """Add the third annotator's votes; returns how many pairs got one."""
    current = consensus.current_judgments_frame(db)
    spread = current.groupby(["query_id", "chunk_id"])["grade"].agg(["min", "max"])
    disputed = spread.loc[spread["min"] < spread["max"]].sort_index()
    chosen = disputed.iloc[::2]
    for (query_id, chunk_id), row in chosen.iterrows():
        judgments.add_judgment(db, str(query_id), str(chunk_id), int(row["min"]), THIRD_ANNOTATOR)
    return len(chosen)
