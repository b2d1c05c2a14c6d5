"""From judgments to the one grade per (query, chunk) pair that metrics use.

The rule (applied to *current* judgments: each annotator's latest row for the pair):

1. A judgment flagged ``adjudicated`` decides: the latest adjudicated grade wins.
2. Otherwise judgments flagged ``generator`` (e.g. an LLM or the synthetic-query generator), and
   labels of origin ``transferred`` (carried over from another chunk set), count only while no
   person has judged the pair; once one has, they are ignored.
3. Otherwise a strict majority grade (held by more than half of the annotators) wins.
4. Otherwise the mean grade rounded half up: ``floor(mean + 0.5)``, computed exactly in integers
   (two annotators at 1 and 2 give 2; at 0 and 3 give 2; at -1 and 0 give 0).

A NULL grade (``cant_judge``) counts as no vote; ``unsure`` votes count like any other.

Origins (``labeling.workspace.provenance``): people's judgments, imported files, the generator's
labels (step 2) and rows of unknown origin all vote. Machine labels (origin ``machine``) are left
out unless asked for (``machine=True``): the consensus is people's.

Two more rules replace steps 3-4, to see how much the scores depend on disagreement:
``strict`` takes the lowest grade among the votes, ``lenient`` the highest. Steps 1-2 hold
for every rule, so a pair everyone agrees on, or an adjudicated one, gets the same grade under
all three, and for every pair strict <= default <= lenient.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.workspace.contents import get_run

PAIR = ["query_id", "chunk_id"]

RULES: dict[str, str] = {
    "default": "latest adjudicated grade, else the grade more than half of the annotators "
    "gave, else the mean rounded half up (generator and transferred labels count until a "
    "person judges)",
    "strict": "latest adjudicated grade, else the lowest grade any annotator gave",
    "lenient": "latest adjudicated grade, else the highest grade any annotator gave",
}

CURRENT_SQL = """
SELECT id, query_id, chunk_id, grade, annotator,
       coalesce(json_extract(flags, '$.adjudicated'), 0) AS adjudicated,
       (coalesce(json_extract(flags, '$.generator'), 0) OR origin = 'transferred') AS generator,
       origin
FROM current_judgments
WHERE grade IS NOT NULL
"""


def current_judgments_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Current graded judgments: id, query_id, chunk_id, grade, annotator, adjudicated,
    generator, origin (one row per annotator and pair; NULL grades left out)."""
    frame = pd.read_sql_query(CURRENT_SQL, db.conn)
    return frame.astype(
        {
            "id": "int64",
            "query_id": "string",
            "chunk_id": "string",
            "grade": "int64",
            "annotator": "string",
            "adjudicated": "bool",
            "generator": "bool",
            "origin": "string",
        }
    )


def consensus(
    current: pd.DataFrame, rule: str = "default", *, machine: bool = False
) -> pd.DataFrame:
    """One grade per pair from current judgments (columns as ``current_judgments_frame``),
    by one of ``RULES``; judgments of origin ``machine`` vote only with ``machine=True``.

    Vectorised (groupby, no per-pair Python loop). Returns query_id, chunk_id, grade (int64),
    sorted by pair. ``adjudicated``, ``generator``, ``origin`` and ``id`` columns are optional.
    """
    if rule not in RULES:
        raise ValueError(f"unknown consensus rule {rule!r}; expected one of {', '.join(RULES)}")
    if current.empty:
        return pd.DataFrame(
            {
                "query_id": pd.Series(dtype="string"),
                "chunk_id": pd.Series(dtype="string"),
                "grade": pd.Series(dtype="int64"),
            }
        )
    keep = current["grade"].notna()
    if not machine and "origin" in current:
        keep &= (current["origin"] != "machine").fillna(True).astype(bool)
    frame = current.loc[keep, :].copy()
    if "id" not in frame:
        frame["id"] = np.arange(len(frame))
    adjudicated = frame.get("adjudicated", pd.Series(False, index=frame.index)).astype(bool)
    generator = frame.get("generator", pd.Series(False, index=frame.index)).astype(bool)
    frame["grade"] = frame["grade"].astype("int64")

    decided = frame.loc[adjudicated].sort_values("id").groupby(PAIR, sort=False)["grade"].last()
    open_ = frame.loc[~adjudicated]
    generator = generator.loc[open_.index]
    if not decided.empty:
        keep = ~pd.MultiIndex.from_frame(open_[PAIR]).isin(decided.index)
        open_, generator = open_.loc[keep], generator.loc[keep]
    human = (~generator).groupby([open_["query_id"], open_["chunk_id"]]).transform("any")
    votes = open_.loc[~generator | ~human, PAIR + ["grade"]]

    if rule != "default":
        voted = votes.groupby(PAIR, sort=False)["grade"].agg("min" if rule == "strict" else "max")
    else:
        per_grade = votes.groupby(PAIR + ["grade"], sort=False).size().rename("n").reset_index()
        totals = votes.groupby(PAIR, sort=False)["grade"].agg(["size", "sum"])
        per_grade = per_grade.join(totals, on=PAIR)
        majority = per_grade.loc[per_grade["n"] * 2 > per_grade["size"]].set_index(PAIR)["grade"]
        rounded = (2 * totals["sum"] + totals["size"]) // (2 * totals["size"])  # floor(mean + 1/2)
        voted = rounded.copy()
        voted.loc[majority.index] = majority

    grades = pd.concat([decided, voted]).rename("grade")
    out = grades.reset_index().sort_values(PAIR, ignore_index=True)
    return out.astype({"query_id": "string", "chunk_id": "string", "grade": "int64"})


def consensus_qrels(
    db: sqlite_utils.Database, rule: str = "default", *, machine: bool = False
) -> pd.DataFrame:
    """Qrels for the metric engine: query_id, doc_id (= chunk id), relevance (int64); machine
    labels vote only with ``machine=True``."""
    pairs = consensus(current_judgments_frame(db), rule, machine=machine)
    return pairs.rename(columns={"chunk_id": "doc_id", "grade": "relevance"})


def run_frame(db: sqlite_utils.Database, run_name: str) -> pd.DataFrame:
    """A stored run: query_id, doc_id (= chunk id), score (float64), rank (int64).

    Missing ranks are filled per query by score descending, ties by doc id descending (the
    trec_eval order). Rows come sorted by query_id, rank.
    """
    run_id = get_run(db, run_name)["id"]
    frame = pd.read_sql_query(
        "SELECT query_id, chunk_id AS doc_id, score, rank FROM run_results WHERE run_id = ?",
        db.conn,
        params=[run_id],
    )
    frame = frame.astype({"query_id": "string", "doc_id": "string", "score": "float64"})
    if frame["rank"].isna().any():
        frame = frame.sort_values(
            ["query_id", "score", "doc_id"], ascending=[True, False, False], ignore_index=True
        )
        frame["rank"] = frame.groupby("query_id").cumcount() + 1
    frame["rank"] = frame["rank"].astype("int64")
    return frame.sort_values(["query_id", "rank"], ignore_index=True)
