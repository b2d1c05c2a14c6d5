"""Which judgments a score is made of: people's, a machine judge's, or people's with the machine
filling the gaps. The choice is applied *before* consensus, so people and machines never vote
together.

Conventions
- People's judgments are every current judgment whose origin is not ``machine`` (persons,
  imports, the synthetic-question generator, transferred and older ``unknown`` rows): what the
  scores were made of before machine judges existed. Machine judgments are ``origin =
  'machine'``; ``judge`` (a judge's name, ``model@prompt-version``) keeps one judge's, empty
  means every judge's.
- ``people`` (the default): people's consensus. ``machine``: the machine judges' consensus
  under the same rule. ``people+machine``: people's consensus, and the machines' for the pairs
  no person has a grade for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa

from labeling.errors import ScorecardError
from labeling.judging import consensus
from labeling.workspace import judgments

if TYPE_CHECKING:
    import sqlite_utils

LABEL_SOURCES: dict[str, str] = {
    "people": "people only (machine labels are left out)",
    "machine": "machine only (a machine judge's labels, no person's)",
    "people+machine": "people, with a machine judge's label where no person has judged the pair",
}
# What a count of labels from each source is made of, in a few words.
LABEL_ORIGINS: dict[str, str] = {
    "people": "people's labels: persons', imported, transferred and synthetic, no machine's",
    "machine": "machine judges' labels only",
    "people+machine": "people's labels, a machine judge's where no person judged",
}
DEFAULT_SOURCE = "people"
MACHINE_SOURCES = ("machine", "people+machine")

def check_source(source: str, judge: str = "") -> None:
    """``ScorecardError`` for an unknown source, or a judge named with the people source."""
    if source not in LABEL_SOURCES:
        raise ScorecardError(
            f"unknown label source {source!r} (use {', '.join(LABEL_SOURCES)})")
    if judge and source not in MACHINE_SOURCES:
        raise ScorecardError("a machine judge is chosen only with a machine label source")


def current_by_origin(db: sqlite_utils.Database) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Current graded judgments (columns of ``consensus.current_judgments_frame``, plus
    ``annotator``) split into (people's, machines')."""
    frame = judgments.current_graded(db, machine_column=True).astype({
        "id": "int64", "query_id": "string", "chunk_id": "string", "grade": "int64",
        "annotator": "string", "adjudicated": "bool", "generator": "bool", "machine": "bool",
    })
    machine = frame["machine"]
    return (frame.loc[~machine].drop(columns="machine").reset_index(drop=True),
            frame.loc[machine].drop(columns="machine").reset_index(drop=True))


def source_consensus(
    db: sqlite_utils.Database, rule: str, source: str = DEFAULT_SOURCE, judge: str = "",
    columns: pa.Table | None = None,
) -> pd.DataFrame:
    """One grade per pair from the judgments ``source`` (and ``judge``) allow, by consensus
    ``rule``: query_id, chunk_id, grade, sorted by pair. ``columns`` are the judgments to
    read (``workspace.judgments.judgment_columns``; all of them when None)."""
    check_source(source, judge)
    if columns is None:
        columns = judgments.judgment_columns(db)
    if source != "machine":
        people_grades = consensus.consensus_of_columns(columns, rule, votes="people")
    if source == "people":
        return people_grades
    machine_grades = consensus.consensus_of_columns(columns, rule, votes="machine", judge=judge)
    if source == "machine":
        return machine_grades
    known = pd.MultiIndex.from_frame(people_grades[["query_id", "chunk_id"]])
    gaps = machine_grades.loc[
        ~pd.MultiIndex.from_frame(machine_grades[["query_id", "chunk_id"]]).isin(known)]
    both = pd.concat([people_grades, gaps], ignore_index=True)
    return both.sort_values(["query_id", "chunk_id"], ignore_index=True)


def interval_note(source: str) -> str:
    """What a bootstrap interval over queries leaves out when machine labels are scored: empty
    for people's labels; otherwise a sentence saying it ignores the judge's error (issue 30:
    such an interval covered the truth in 0% of simulated worlds with a biased judge)."""
    if source not in MACHINE_SOURCES:
        return ""
    return ("With machine labels these intervals come from the sampling of queries only and "
            "ignore the judge's error; the interval that corrects for it is on the Machine "
            "judges page (prediction-powered, from the audit).")


def describe(source: str, judge: str = "") -> str:
    """The source in words, naming the judge when one is chosen."""
    text = LABEL_SOURCES[source]
    if source in MACHINE_SOURCES:
        text += f"; judge {judge}" if judge else "; every machine judge"
    return text
