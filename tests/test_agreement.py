"""Agreement figures against scikit-learn and the krippendorff package; disagreements and
adjudication on a real workspace."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from labeling.judging import agreement, consensus, queue
from labeling.metrics import label_agreement

GRADED = [0, 1, 2, 3]


def same(ours: float, theirs: float) -> bool:
    return (np.isnan(ours) and np.isnan(theirs)) or abs(ours - theirs) < 1e-9


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=40),
    st.sampled_from([None, "linear", "quadratic"]),
)
def test_kappa_matches_sklearn(labels, weights):
    """The team's kappa is the metric layer's one kappa: scikit-learn's value, a grade off the
    scale (4 here) leaving its pair out as ``labels=`` does there."""
    a, b = zip(*labels, strict=True)
    theirs = np.nan  # no pair on the scale (scikit-learn refuses to compute)
    if on_scale(a, b)[0]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = cohen_kappa_score(a, b, labels=GRADED, weights=weights)
    assert same(label_agreement.kappa(*on_scale(a, b), GRADED, weights), theirs)
    frame = pd.DataFrame([(f"q{i}", "c", name, grade) for i, pair in enumerate(labels)
                          for name, grade in zip("ab", pair, strict=True)],
                         columns=["query_id", "chunk_id", "annotator", "grade"])
    kappa = agreement.pairwise_kappa(frame, GRADED, weights)["kappa"].iloc[0]
    assert same(kappa, theirs)


def on_scale(a, b):
    kept = [(x, y) for x, y in zip(a, b, strict=True) if x in GRADED and y in GRADED]
    return [x for x, _ in kept], [y for _, y in kept]


def reliability(draw_matrix: list[list[int | None]]) -> tuple[np.ndarray, pd.DataFrame]:
    data = np.array([[np.nan if v is None else v for v in row] for row in draw_matrix])
    rows = [(f"q{u}", "c", f"r{r}", int(data[r, u]))
            for r in range(data.shape[0]) for u in range(data.shape[1])
            if not np.isnan(data[r, u])]
    return data, pd.DataFrame(rows, columns=["query_id", "chunk_id", "annotator", "grade"])


@settings(max_examples=50, deadline=None)
@given(
    st.integers(2, 4).flatmap(lambda raters: st.integers(2, 15).flatmap(
        lambda units: st.lists(st.lists(st.one_of(st.none(), st.integers(0, 3)),
                                        min_size=units, max_size=units),
                               min_size=raters, max_size=raters))),
    st.sampled_from(["nominal", "ordinal", "interval"]),
)
def test_alpha_matches_krippendorff(matrix, level):
    data, frame = reliability(matrix)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                                        value_domain=GRADED)
    except ValueError:  # fewer than two pairable values: the package refuses
        theirs = float("nan")
    assert same(agreement.krippendorff_alpha(frame, GRADED, level), theirs)


def test_binary_alpha_is_nominal():
    assert agreement.level_for([0, 1]) == "nominal"
    assert agreement.level_for(GRADED) == "ordinal"


@pytest.fixture
def db(make_workspace):
    grades = {"ann": [0, 1, 2, 3, 3, 0], "ben": [0, 2, 2, 3, 1, None], "cy": [1, 1, 2, 3]}
    votes = [(f"q{i}", "c", grade, name) for name, row in grades.items()
             for i, grade in enumerate(row) if grade is not None]
    return make_workspace(
        queries=[{"id": f"q{i}", "text": f"query {i}"} for i in range(6)],
        chunks=[{"id": "c", "text": "chunk"}],
        judgments=[*votes, ("q5", "c", 2, "generator", {"flags": {"generator": True}})],
    )


def test_workspace_kappa_and_alpha_match_the_oracles(db):
    votes = agreement.votes(db)
    assert "generator" not in set(votes["annotator"])
    table = agreement.pairwise_kappa(votes, GRADED).set_index(["annotator_a", "annotator_b"])
    wide = votes.pivot_table(index=["query_id", "chunk_id"], columns="annotator",
                             values="grade")
    for (a, b), row in table.iterrows():
        both = wide[[a, b]].dropna()
        assert row["pairs"] == len(both)
        assert same(row["kappa"], cohen_kappa_score(both[a], both[b], labels=GRADED))
    data = wide.T.to_numpy(dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                  value_domain=GRADED)
    team = agreement.summary(db)
    assert same(team.alpha, expected) and team.level == "ordinal"
    assert team.annotators == ["ann", "ben", "cy"] and team.overlap_pairs == 5


def test_confusion_counts(db):
    votes = agreement.votes(db)
    pair = agreement.confusion(votes, GRADED, "ann", "ben")
    assert int(pair.to_numpy().sum()) == 5 and pair.loc[1, 2] == 1 and pair.loc[3, 1] == 1
    team = agreement.confusion(votes, GRADED)
    assert (team.to_numpy() == team.to_numpy().T).all()


def test_disagreements_and_adjudication(db):
    split = agreement.disagreements(db)
    assert split["query_id"].tolist() == ["q4", "q0", "q1"]  # widest spread first
    assert split.iloc[0]["votes"] == "ann 3 · ben 1"
    agreement.adjudicate(db, "q4", "c", 1, "lead", note="policy says partial")
    assert "q4" not in agreement.disagreements(db)["query_id"].tolist()
    assert "q4" in agreement.disagreements(db, include_adjudicated=True)["query_id"].tolist()
    qrels = consensus.consensus_qrels(db).set_index("query_id")
    assert qrels.loc["q4", "relevance"] == 1
    assert queue.pair_history(db, "q4", "c")[-1]["flags"] == {"adjudicated": True}
    assert "lead" not in set(agreement.votes(db)["annotator"])  # adjudications do not vote


def test_kept_results_follow_writes_from_another_connection(db):
    """Votes, summary and disagreements are kept per version of the workspace's data: a
    judgment or a query edit through another connection (another session, the command line)
    shows at once, and a caller changing what it got changes nothing kept."""
    from labeling.workspace import store
    from labeling.workspace.file_identity import database_file

    first = agreement.disagreements(db)
    first.loc[0, "votes"] = "changed by the caller"
    assert agreement.disagreements(db).iloc[0]["votes"] == "ann 3 · ben 1"
    other = store.open_workspace(database_file(db), create=False)
    other.conn.execute("UPDATE queries SET text = 'renamed' WHERE id = 'q4'")
    other.conn.commit()
    assert agreement.disagreements(db).iloc[0]["query"] == "renamed"
    queue.save_judgment(other, "q2", "c", 0, "cy")
    assert "q2" in agreement.disagreements(db)["query_id"].tolist()
    assert agreement.summary(db).voted_pairs == 6 and len(agreement.votes(db)) == 15
    other.close()
