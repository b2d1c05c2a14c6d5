"""The Agreement page: figures as the oracles compute them, adjudication, re-judging."""

from __future__ import annotations

import json

from sklearn.metrics import cohen_kappa_score

from labeling.judging import agreement, consensus, queue
from labeling.workspace import store
from tests.queue_rows import queued_pairs


def start(open_app, annotator: str = "lead"):
    at = open_app()
    at.session_state["annotator"] = annotator
    at.switch_page("pages/agreement.py").run()
    assert not at.exception
    return at


def test_figures_and_rule(open_app, workspace):
    at = start(open_app)
    assert any("adjudicated grade, else" in i.value for i in at.info)  # the rule, named
    db = store.open_workspace(workspace)
    votes = agreement.votes(db)
    wide = votes.pivot_table(index=["query_id", "chunk_id"], columns="annotator",
                             values="grade").dropna()
    table = at.dataframe[0].value
    assert table.loc[0, "pairs"] == len(wide)
    assert abs(table.loc[0, "kappa"] - cohen_kappa_score(wide["alice"], wide["bob"],
                                                         labels=[0, 1, 2, 3])) < 1e-12
    alpha = next(m for m in at.metric if "alpha" in m.label)
    assert alpha.label == "Krippendorff's alpha (ordinal)"
    assert alpha.value == f"{agreement.summary(db).alpha:.3f}"
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["type"] == "heatmap"
    at.selectbox(key="kappa_weights").set_value("quadratic").run()
    weighted = at.dataframe[0].value.loc[0, "kappa"]
    assert abs(weighted - cohen_kappa_score(wide["alice"], wide["bob"], labels=[0, 1, 2, 3],
                                            weights="quadratic")) < 1e-12


def test_adjudication(open_app, workspace):
    at = start(open_app)
    db = store.open_workspace(workspace)
    before = agreement.disagreements(db)
    first = before.iloc[0]
    label = at.selectbox(key="adj_pair").value
    assert label.startswith(f"{first['query_id']} / {first['chunk_id']}")
    at.selectbox(key="adj_grade").set_value(3)
    at.text_input(key="adj_note").input("per the handbook")
    at.button(key="adj_save").click().run()
    assert not at.exception and any("Adjudicated" in s.value for s in at.success)
    last = queue.pair_history(db, first["query_id"], first["chunk_id"])[-1]
    assert (last["annotator"], last["grade"], last["flags"]) == ("lead", 3, {"adjudicated": True})
    qrels = consensus.consensus_qrels(db).set_index(["query_id", "doc_id"])
    assert qrels.loc[(first["query_id"], first["chunk_id"]), "relevance"] == 3
    assert len(at.dataframe[1].value) == len(before) - 1


def test_bulk_rejudge(open_app, workspace):
    at = start(open_app)
    at.selectbox(key="rejudge_scope").set_value("query").run()
    at.selectbox(key="rejudge_target").set_value("q01")
    at.button(key="rejudge_go").click().run()
    assert any("back to the queue" in s.value for s in at.success)
    db = store.open_workspace(workspace)
    assert {r["query_id"] for r in queued_pairs(db)} == {"q01"}
    at.selectbox(key="rejudge_scope").set_value("annotator").run()
    at.selectbox(key="rejudge_target").set_value("bob")
    at.button(key="rejudge_go").click().run()
    assert len(queued_pairs(db)) > 10
