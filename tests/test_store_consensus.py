"""Consensus: one grade per pair from current judgments; vectorised equals the stated rule."""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.judging.consensus import RULES, consensus, consensus_qrels, current_judgments_frame
from labeling.workspace.judgments import add_judgment


def frame(rows):
    """rows: (query, chunk, grade, adjudicated, generator) in judgment order."""
    df = pd.DataFrame(rows, columns=["query_id", "chunk_id", "grade", "adjudicated", "generator"])
    df.insert(0, "id", range(1, len(df) + 1))
    return df


def grade_of(rows):
    out = consensus(frame([("q", "c", *r) for r in rows]))
    return int(out["grade"].iloc[0])


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        ([(2, False, False)], 2),
        ([(1, False, False), (1, False, False), (3, False, False)], 1),  # majority
        ([(1, False, False), (2, False, False)], 2),  # mean 1.5 rounds half up
        ([(0, False, False), (3, False, False)], 2),  # mean 1.5
        ([(0, False, False), (1, False, False), (3, False, False)], 1),  # mean 1.33
        ([(1, False, False), (1, False, False), (2, False, False), (3, False, False)], 2),
        ([(0, False, False), (3, True, False), (0, False, False)], 3),  # adjudicated wins
        ([(1, True, False), (2, True, False)], 2),  # latest adjudication
        ([(3, False, True)], 3),  # generator alone counts
        ([(3, False, True), (0, False, False)], 0),  # a person overrides the generator
    ],
)
def test_rule(votes, expected):
    assert grade_of(votes) == expected


def test_negative_grades_round_half_up():
    assert grade_of([(-1, False, False), (0, False, False)]) == 0


def reference(df, rule="default"):
    """Per-pair loop implementing the documented rules, as an oracle."""
    out = {}
    for pair, group in df.groupby(["query_id", "chunk_id"]):
        adjudicated = group[group["adjudicated"]]
        if len(adjudicated):
            out[pair] = int(adjudicated.sort_values("id")["grade"].iloc[-1])
            continue
        people = group[~group["generator"]]
        votes = list((people if len(people) else group)["grade"])
        if rule != "default":
            out[pair] = min(votes) if rule == "strict" else max(votes)
            continue
        grade, n = Counter(votes).most_common(1)[0]
        out[pair] = grade if 2 * n > len(votes) else math.floor(sum(votes) / len(votes) + 0.5)
    return out


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2"]),
            st.sampled_from(["c1", "c2", "c3"]),
            st.integers(0, 3),
            st.sampled_from([False, False, False, True]),
            st.booleans(),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_vectorised_matches_reference(rows):
    df = frame(rows)
    grades = {}
    for rule in RULES:
        got = consensus(df, rule)
        grades[rule] = {(q, c): int(g) for q, c, g in got.itertuples(index=False)}
        assert grades[rule] == reference(df, rule), rule
    for pair, grade in grades["default"].items():
        assert grades["strict"][pair] <= grade <= grades["lenient"][pair]


def test_rules_differ_only_on_disagreement():
    votes = [("q", "c", 0, False, False), ("q", "c", 1, False, False), ("q", "c", 3, False, False)]
    assert [int(consensus(frame(votes), r)["grade"].iloc[0]) for r in RULES] == [1, 0, 3]
    agreed = [("q", "c", 2, False, False), ("q", "c", 2, False, False)]
    assert {int(consensus(frame(agreed), r)["grade"].iloc[0]) for r in RULES} == {2}
    with pytest.raises(ValueError, match="unknown consensus rule"):
        consensus(frame(agreed), "loudest")


def test_command_line_offers_every_rule():
    from labeling.commands import CONSENSUS_RULES

    assert CONSENSUS_RULES == tuple(RULES)


def test_consensus_qrels_from_workspace(make_workspace):
    db = make_workspace(queries=[{"id": "q1", "text": "q"}],
                        chunks=[{"id": "c1", "text": "one"}, {"id": "c2", "text": "two"}])
    add_judgment(db, "q1", "c1", 3, "llm", flags={"generator": True})
    add_judgment(db, "q1", "c2", 1, "ann")
    add_judgment(db, "q1", "c2", 2, "ann")  # supersedes ann's 1
    add_judgment(db, "q1", "c2", None, "bob", flags={"cant_judge": True})
    qrels = consensus_qrels(db)
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert str(qrels["relevance"].dtype) == "int64"
    assert qrels.values.tolist() == [["q1", "c1", 3], ["q1", "c2", 2]]
    assert len(current_judgments_frame(db)) == 2


def test_empty_workspace_gives_empty_qrels(make_workspace):
    qrels = consensus_qrels(make_workspace())
    assert qrels.empty and list(qrels.columns) == ["query_id", "doc_id", "relevance"]
