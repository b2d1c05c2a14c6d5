"""The consensus computed from judgment columns (consensus_of_columns, what the scores use)
equals the reference rule (``consensus``, one groupby per step) on any history of judgments:
corrections, can't-judge, adjudications, generator votes, ties, negative grades."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.judging import consensus, label_sources
from labeling.workspace import judgments

FLAGS = [{}, {"adjudicated": True}, {"generator": True}, {"unsure": True},
         {"adjudicated": True, "generator": True}, {"adjudicated": False}]

judgment = st.tuples(
    st.sampled_from(["q1", "q2", "Q1", "é"]),          # query
    st.sampled_from(["c1", "c2", "c10"]),              # chunk
    st.one_of(st.none(), st.integers(-1, 3)),          # grade (None: could not judge)
    st.sampled_from(["ann", "bob", "cy", "generator"]),  # annotator
    st.sampled_from(range(len(FLAGS))),                # flags
    st.sampled_from(["person", "person", "import", "transferred", "machine"]),  # origin
)


def _judgments_db(rows: list[tuple]) -> sqlite_utils.Database:
    """The judgments table's columns the consensus reads, in memory, ids in row order."""
    db = sqlite_utils.Database(sqlite3.connect(":memory:"))
    db.conn.execute("CREATE TABLE judgments (id INTEGER PRIMARY KEY, query_id TEXT, chunk_id TEXT,"
                    " grade INTEGER, annotator TEXT, flags TEXT, origin TEXT)")
    db.conn.executemany(
        "INSERT INTO judgments (query_id, chunk_id, grade, annotator, flags, origin)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [(q, c, g, a, json.dumps(FLAGS[f], sort_keys=True), o) for q, c, g, a, f, o in rows])
    return db


def _reference(
    rows: list[tuple], rule: str, votes: str = "people", judge: str = ""
) -> pd.DataFrame:
    """Current judgments as the workspace's view gives them, then ``consensus`` over those
    ``votes`` (and ``judge``) keeps (transferred labels vote like the generator's)."""
    frame = pd.DataFrame(rows, columns=["query_id", "chunk_id", "grade", "annotator", "flags",
                                        "origin"])
    frame["id"] = range(1, len(frame) + 1)
    current = frame.sort_values("id").groupby(["query_id", "chunk_id", "annotator"]).tail(1)
    current = current.loc[current["grade"].notna()]
    current = current.assign(
        adjudicated=[bool(FLAGS[f].get("adjudicated", False)) for f in current["flags"]],
        generator=[bool(FLAGS[f].get("generator", False)) or o == "transferred"
                   for f, o in zip(current["flags"], current["origin"], strict=True)],
        grade=current["grade"].astype("int64"),
    )
    machine = current["origin"] == "machine"
    kept = {"people": current.loc[~machine], "machine": current.loc[machine]}.get(votes, current)
    if judge:
        kept = kept.loc[kept["annotator"] == judge]
    return consensus.consensus(kept.drop(columns="origin"), rule)


@settings(max_examples=80, deadline=None)  # ~20 ms each: 80 cover every rule and vote
@given(rows=st.lists(judgment, max_size=40), rule=st.sampled_from(sorted(consensus.RULES)),
       votes=st.sampled_from(consensus.VOTES), judge=st.sampled_from(["", "cy"]))
def test_columns_give_the_reference_consensus(rows, rule, votes, judge):
    judge = judge if votes == "machine" else ""
    columns = judgments.judgment_columns(_judgments_db(rows))
    fast = consensus.consensus_of_columns(columns, rule, votes=votes, judge=judge)
    pd.testing.assert_frame_equal(fast, _reference(rows, rule, votes, judge))


@pytest.mark.parametrize("rule", sorted(consensus.RULES))
def test_a_workspace_consensus_equals_the_reference_through_its_view(make_workspace, rule):
    rows = [("q1", "c1", 2, "ann"), ("q1", "c1", 1, "bob"), ("q1", "c1", 3, "cy"),
            ("q1", "c2", 0, "ann"), ("q1", "c2", 3, "ann"), ("q2", "c1", 1, "generator"),
            ("q2", "c2", 2, "ann", {"flags": {"generator": True}}), ("q2", "c2", 0, "bob"),
            ("q2", "c1", 3, "ann", {"flags": {"adjudicated": True}}), ("q2", "c1", 0, "bob"),
            ("q1", "c3", None, "ann", {"flags": {"cant_judge": True}})]
    chunks = [{"id": c, "text": c} for c in ("c1", "c2", "c3")]
    queries = [{"id": q, "text": q} for q in ("q1", "q2")]
    db = make_workspace(chunks=chunks, queries=queries, judgments=rows)
    reference = consensus.consensus(consensus.current_judgments_frame(db), rule)
    expected = reference.rename(columns={"chunk_id": "doc_id", "grade": "relevance"})
    pd.testing.assert_frame_equal(consensus.consensus_qrels(db, rule), expected)
    # What a new judgment on q2 recomputes (label_sets): its judgments alone, same rule.
    one = label_sources.source_consensus(
        db, rule, columns=judgments.query_judgment_columns(db, ["q2"])
    ).rename(columns={"chunk_id": "doc_id", "grade": "relevance"})
    pd.testing.assert_frame_equal(
        one, expected.loc[expected["query_id"] == "q2"].reset_index(drop=True))
