"""What is known of a corpus search hit for a query: the labels it already has (those the viewer
may see, ``labeling.judging.visibility``) and the runs that retrieved it, at which rank.

Ranks are trec_eval's: a run's results for the query by score descending, ties by chunk id
descending, numbered from 1. Runs are named only where a page may show them (never on a blind
judging page); labels follow the viewer's sight everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labeling.judging.visibility import Sight
from labeling.workspace import contents, judgments

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class HitContext:
    """``labels``: (annotator, grade, origin) of the current judgments the viewer may see,
    their own left out; ``runs``: (run name, rank) of every run that retrieved the chunk for
    the query, by run age."""

    labels: list[tuple[str, int | None, str]] = field(default_factory=list)
    runs: list[tuple[str, int]] = field(default_factory=list)

    def notes(self, *, show_runs: bool) -> list[str]:
        """Short phrases for the hit's caption ("labels: alice 3, bob 2", "retrieved by bm25
        at rank 4", "retrieved by no run")."""
        notes = []
        if self.labels:
            notes.append("labels: " + ", ".join(map(_label, self.labels)))
        if show_runs:
            notes.append("retrieved by " + (", ".join(f"{run} at rank {rank}"
                                                      for run, rank in self.runs)
                                            if self.runs else "no run"))
        return notes


def _label(label: tuple[str, int | None, str]) -> str:
    """One label as "alice 3", "x.qrels 2 (import)" or "bob cannot judge"."""
    who, grade, origin = label
    text = f"{who} {'cannot judge' if grade is None else grade}"
    return text if origin == "person" else f"{text} ({origin})"


def hit_contexts(
    db: sqlite_utils.Database, query_id: str, chunk_ids: Sequence[str], sight: Sight
) -> dict[str, HitContext]:
    """``HitContext`` of each chunk of ``chunk_ids`` for ``query_id``, as ``sight`` may see."""
    labels: dict[str, list] = {c: [] for c in chunk_ids}
    for chunk, who, grade, origin in judgments.current_labels_of_chunks(db, query_id,
                                                                        list(chunk_ids)):
        if who != sight.viewer and sight.sees(query_id, chunk, who, origin):
            labels[chunk].append((who, grade, origin))
    runs: dict[str, list] = {c: [] for c in chunk_ids}
    for name, chunk, rank in contents.run_ranks_of_chunks(db, query_id, list(chunk_ids)):
        runs[chunk].append((name, rank))
    return {c: HitContext(labels[c], runs[c]) for c in chunk_ids}
