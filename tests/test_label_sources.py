"""Label sources: people only (the default), machine only, or people with a machine filling the
gaps, chosen before consensus so that people and machines never vote together."""

from __future__ import annotations

import pytest

from labeling.errors import ScorecardError
from labeling.evaluation.inputs import label_sets
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import score_history, scoring
from labeling.judging import consensus
from tests import machine_rows as rows

JUDGE, OTHER = "tiny@v1", "big@v2"


def machine(query: str, chunk: str, grade: int, judge: str = JUDGE) -> tuple:
    return (query, chunk, grade, judge, {"origin": "machine", "origin_source": judge})


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS, judgments=[
        ("q-indent", "dedent", 1, "ada"),  # a person, and the machine disagrees
        machine("q-indent", "dedent", 3),
        machine("q-indent", "glob", 2),  # only the machine judged this pair
        ("q-tree", "copytree", 3, "ada"),
        ("q-tree", "copytree", 2, "bob"),
        machine("q-tree", "copytree", 0),
        machine("q-tree", "makedirs", 1),
        machine("q-tree", "makedirs", 3, OTHER),
    ])


def grades(db, source: str, judge: str = "", rule: str = "default") -> dict:
    labels = label_sets.label_snapshot(db, rule, source, judge)
    return {(q, c): g for q, c, g in labels.qrels[["query_id", "doc_id", "relevance"]]
            .itertuples(index=False)}


def test_people_only_is_the_default_and_leaves_every_machine_label_out(db):
    assert Controls("lexical").label_source == "people"
    assert grades(db, "people") == {("q-indent", "dedent"): 1, ("q-tree", "copytree"): 3}
    assert label_sets.label_snapshot(db, "default").qrels.equals(
        label_sets.label_snapshot(db, "default", "people").qrels)


def test_machine_only_takes_the_machines_consensus(db):
    assert grades(db, "machine", JUDGE) == {
        ("q-indent", "dedent"): 3, ("q-indent", "glob"): 2, ("q-tree", "copytree"): 0,
        ("q-tree", "makedirs"): 1}
    # Every judge: the consensus rule applies among machines (1 and 3 -> mean rounded half up).
    assert grades(db, "machine")[("q-tree", "makedirs")] == 2
    assert grades(db, "machine", rule="strict")[("q-tree", "makedirs")] == 1


def test_people_with_machine_filling_the_gaps_never_mixes_votes(db):
    filled = grades(db, "people+machine", JUDGE)
    assert filled == {("q-indent", "dedent"): 1, ("q-indent", "glob"): 2,
                      ("q-tree", "copytree"): 3, ("q-tree", "makedirs"): 1}
    # Had people and the machine voted together, (1, 3) would be 2 and (3, 2, 0) 2.
    mixed = consensus.consensus_qrels(db, machine=True).set_index(
        ["query_id", "doc_id"])["relevance"]
    assert mixed[("q-indent", "dedent")] == 2 != filled[("q-indent", "dedent")]


def test_sources_give_different_snapshots_and_scores(db):
    people = Controls("lexical", measures=("P@4", "nDCG@4"))
    machine_only = Controls("lexical", measures=("P@4", "nDCG@4"), label_source="machine",
                            judge=JUDGE)
    filled = Controls("lexical", measures=("P@4", "nDCG@4"), label_source="people+machine",
                      judge=JUDGE)
    values = {c.label_source: scoring.per_query(db, c) for c in (people, machine_only, filled)}
    assert list(values["people"].index) == ["q-indent", "q-tree"]
    assert values["people"].loc["q-indent", "P@4"] == 0.25  # dedent (1) only
    assert values["people+machine"].loc["q-indent", "P@4"] == 0.5  # and glob (2), machine's
    assert values["machine"].loc["q-tree", "P@4"] == 0.25  # makedirs (1); copytree is 0
    snapshots = {label_sets.labels_for(db, c).snapshot for c in (people, machine_only, filled)}
    assert len(snapshots) == 3
    card = scoring.segment_scorecard(db, machine_only)
    assert card.loc[card["measure"] == "P@4", "mean"].item() == pytest.approx(
        values["machine"]["P@4"].mean())


def test_controls_name_the_source_and_refuse_nonsense():
    controls = Controls("lexical", label_source="people+machine", judge=f" {JUDGE} ")
    assert controls.judge == JUDGE and controls.machine_assisted
    assert f"Labels: {'people, with a machine judge'}" in controls.describe()
    assert "judge tiny@v1" in controls.describe()
    assert "Labels: people only" in Controls("lexical").describe()
    with pytest.raises(ScorecardError, match="unknown label source 'robots'"):
        Controls("lexical", label_source="robots")
    with pytest.raises(ScorecardError, match="only with a machine label source"):
        Controls("lexical", judge=JUDGE)


def test_history_keeps_people_scores_only(db):
    machine_only = Controls("lexical", label_source="machine", judge=JUDGE)
    with pytest.raises(ScorecardError, match="people's labels only"):
        score_history.save_snapshot(db, machine_only)
    _, warnings = score_history.history(db, machine_only.headline(), "(unversioned)")
    assert any("label source 'machine'" in w for w in warnings)


def test_exported_qrels_carry_people_labels_only(db, tmp_path):
    from labeling.files import exporters

    path = tmp_path / "qrels.txt"
    assert exporters.export_qrels(db, path) == 2
    lines = sorted(path.read_text(encoding="utf-8").split("\n")[:-1])
    assert [line.split()[::2] for line in lines] == [["q-indent", "dedent"],
                                                     ["q-tree", "copytree"]]
    assert [line.split()[3] for line in lines] == ["1", "3"]
