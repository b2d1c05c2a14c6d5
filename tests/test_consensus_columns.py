"""The consensus computed from judgment columns (consensus_of_columns, what the scores use)
equals the reference rule (``consensus``, one groupby per step) on any history of judgments:
corrections, can't-judge, adjudications, generator votes, ties, negative grades."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pyarrow as pa
import pytest
import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.judging import consensus

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


def _memory_db() -> sqlite_utils.Database:
    return sqlite_utils.Database(sqlite3.connect(":memory:"))


def _reference(rows: list[tuple], rule: str, votes: str = "people") -> pd.DataFrame:
    """Current judgments as the workspace's view gives them, then ``consensus`` over those
    ``votes`` keeps (transferred labels vote like the generator's)."""
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
    return consensus.consensus(kept.drop(columns="origin"), rule)


def _columns(rows: list[tuple]) -> pa.Table:
    marks = [json.dumps(FLAGS[r[4]], sort_keys=True) if FLAGS[r[4]] else "" for r in rows]
    return pa.table({
        "query_id": pa.array([r[0] for r in rows], pa.string()),
        "chunk_id": pa.array([r[1] for r in rows], pa.string()),
        "annotator": pa.array([r[3] for r in rows], pa.string()),
        "marks": pa.array(marks, pa.string()),
        "origin": pa.array([r[5] for r in rows], pa.string()),
        "id": pa.array(range(1, len(rows) + 1), pa.int64()),
        "grade": pa.array([r[2] for r in rows], pa.int64()),
    })


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(judgment, max_size=40), rule=st.sampled_from(sorted(consensus.RULES)),
       votes=st.sampled_from(consensus.VOTES))
def test_columns_give_the_reference_consensus(rows, rule, votes):
    fast = consensus.consensus_of_columns(_memory_db(), _columns(rows), rule, votes=votes)
    pd.testing.assert_frame_equal(fast, _reference(rows, rule, votes))


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
    one = consensus.query_consensus_qrels(db, ["q2"], rule)
    pd.testing.assert_frame_equal(
        one, expected.loc[expected["query_id"] == "q2"].reset_index(drop=True))
