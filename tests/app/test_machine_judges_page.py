"""The Machine judges page in AppTest against a local chat-completions server: run a batch, draw an
audit sample, judge it blind on the Label page, see the three estimates side by side, download a
scorecard that names its label source, and pick the label source on the dashboard."""

from __future__ import annotations

import pytest

from tests.chat_server import ChatServer
from tests.markup import shown
from tests.tables import table_with

JUDGE = "tiny@v2"


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


pytestmark = pytest.mark.usefixtures("fresh_result_cache")


def _tab(at, name: str):
    at.session_state["mj_tab"] = name  # the tabs are lazy: only the open one runs
    return at.run()


def _messages(at) -> list[str]:
    return [shown(m.value) for m in [*at.success, *at.warning, *at.info, *at.error]]


def _frame(at, column: str):
    """The first table on the page with ``column`` (AppTest lists tables without their keys)."""
    return table_with(at, column)


def _captions(at) -> str:
    return " ".join(f"{shown(c.value)} {shown(c.proto.help)}" for c in at.caption)  # tooltips


def _store_server(at, server: ChatServer, name: str = "local", model: str = "tiny"):
    """Store a model server through the page's admin form (no accounts: the one person is
    the admin)."""
    at.text_input(key="mj_conn_name").input(name)
    at.text_input(key="mj_conn_url").input(server.url)
    at.text_input(key="mj_conn_model").input(model)
    at.button(key="mj_conn_save").click().run()
    assert not at.exception
    return at


def _label_a_batch(at, server: ChatServer, runs=("bm25", "fusion"), k=10, pairs=405):
    _store_server(at, server)
    at.multiselect(key="mj_runs").set_value(list(runs)).run()
    at.number_input(key="mj_k").set_value(k).run()
    assert not at.exception
    plan = _captions(at)
    assert (f"tiny@v2 on local, top {k} of {', '.join(runs)}: {pairs} pairs, 0 answered from "
            "the cache") in plan
    at.button(key="mj_run").click().run()
    assert not at.exception
    assert any(f"Batch 1: {pairs} pair(s) labeled" in m for m in _messages(at)), _messages(at)
    assert len(server.requests) == pairs
    return at


def test_label_audit_judge_blind_and_see_three_estimates(open_app, server, downloads):
    at = _label_a_batch(open_app("machine_judges"), server)
    batches = _frame(at, "pair_set")
    assert batches.loc[0, "done"] == 405 and batches.loc[0, "pending"] == 0
    # Running again answers from the cache: no call.
    at.button(key="mj_run").click().run()
    assert any("405 from the cache, 405 unchanged" in m for m in _messages(at))
    assert len(server.requests) == 405

    at = _tab(at, "Audit")
    at.number_input(key="mj_budget").set_value(10).run()
    at.button(key="mj_draw").click().run()
    assert not at.exception
    assert any("audit sample 1: 10 pair(s) to verify" in m for m in _messages(at))
    drawn = int(_frame(at, "budget").loc[0, "pairs"])
    assert drawn > 0

    # People judge the audit on the Label page, without seeing the machine's grade.
    at.session_state["annotator"] = "carol"
    at.switch_page("pages/label.py").run()
    at.radio(key="label_queue").set_value("audit").run()  # the audit's own queue
    judged = 0
    while at.session_state["label_current"] is not None:
        assert judged < drawn, f"the audit queue served more than the {drawn} pairs drawn"
        history = _frame(at, "annotator")  # the card's history
        assert JUDGE not in set(history["annotator"])  # blind: the machine's grade is hidden
        at.button(key=f"label_grade_{judged % 4}").click().run()
        assert not at.exception
        judged += 1
    assert judged == drawn

    at.switch_page("pages/machine_judges.py").run()
    at = _tab(at, "Estimates")
    at.multiselect(key="mj_est_measures").set_value(["nDCG@10", "P@10"]).run()
    assert not at.exception
    table = _frame(at, "prediction-powered")
    assert list(table.columns[:4]) == ["segment", "measure", "prediction-powered",
                                       "people only"]
    apart = _frame(at, "machine only")  # a table of its own, below a warning
    assert set(apart["measure"]) == {"nDCG@10", "P@10"}
    captions = _captions(at)
    assert "95% interval for the mean over all queries like these, correcting for the " \
        "judge's error" in captions
    assert "95% interval — sampling of queries only, ignores the judge's error" in captions
    assert set(table["measure"]) == {"nDCG@10", "P@10"}
    assert table["prediction-powered"].str.match(r"^\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]$").all()
    assert not any("Provisional" in m for m in _messages(at))

    at.selectbox(key="mj_report_source").set_value("people+machine").run()
    assert f"Corrected by the audit of {JUDGE} (audit sample 1: people audited {drawn} of " \
        f"the {drawn} pairs drawn)" in _captions(at)
    at.radio(key="mj_report_format").set_value("markdown").run()
    name, data = downloads[-1]
    assert name.startswith("scorecard-bm25-") and name.endswith(".md")
    text = shown(data.decode("utf-8"))
    assert "Labels: people, with a machine judge's label where no person has judged the pair" \
        in text
    assert f"audit sample 1: {drawn} of {drawn} pairs verified by people" in text
    assert "kappa" in text

    at = _tab(at, "Agreement")
    assert not at.exception
    pairs = int(at.metric[0].value)
    assert pairs == sum(int(d.value.to_numpy().sum()) for d in at.dataframe
                        if d.value.columns.name == "machine")


def test_the_dashboard_chooses_the_label_source(open_app, server):
    at = _label_a_batch(open_app("machine_judges"), server, runs=("bm25",), k=3, pairs=131)
    at.switch_page("pages/dashboard.py").run()
    assert "Labels: people only" in _captions(at)
    assert "ignore the judge's error" not in _captions(at)
    people_card = _frame(at, "ci_low")
    at.selectbox(key="dash_label_source").set_value("machine").run()
    assert at.selectbox(key="dash_judge").value == JUDGE
    captions = _captions(at)
    assert "Labels: machine only" in captions and f"judge {JUDGE}" in captions
    # Issue 30 (2): the scorecard's bootstrap interval says it leaves out the judge's error.
    assert "from the sampling of queries only and ignore the judge's error" in captions
    machine_card = _frame(at, "ci_low")
    assert not machine_card["mean"].equals(people_card["mean"])
    at.selectbox(key="dash_label_source").set_value("people+machine").run()
    assert not at.exception


def test_hostile_text_on_the_page_is_never_markup(workspace, open_app, downloads):
    import json

    from labeling.machine_judging import audit_sample, judge_prompts, machine_judge
    from labeling.model_calls import chat
    from labeling.workspace import store
    from tests import hostile
    from tests.app.test_hostile_text import Walk

    db = store.open_workspace(workspace)
    hostile.seed(db)
    server = ChatServer(reply=lambda prompt: json.dumps({"grade": 3, "reason": hostile.TEXT}))
    try:
        judge = machine_judge.Judge(hostile.LINK, judge_prompts.load_prompt("v1"))
        pairs = [(hostile.QUERY, c) for c in hostile.CHUNKS]
        batch = machine_judge.start_batch(db, judge, pairs, hostile.SHORT)
        machine_judge.run_batch(db, batch, chat.ChatClient(server.url, hostile.LINK))
        audit_sample.draw_audit(db, judge.name, 1, runs=[hostile.RUN], relevance=1)
    finally:
        server.close()
        db.close()
    at = open_app()
    at.session_state["annotator"] = hostile.ANNOTATORS[0]
    walk = Walk(at)
    walk.page("machine_judges")
    for tab in ("Agreement", "Audit", "Estimates"):
        at.session_state["mj_tab"] = tab
        walk.run(f"machine judges: {tab}")
    at.selectbox(key="mj_est_run").set_value(hostile.RUN)
    at.selectbox(key="mj_est_segment").set_value(hostile.ATTRIBUTE)
    walk.run("machine judges: hostile run and segment")
    at.selectbox(key="mj_report_source").set_value("machine")
    walk.run("machine judges: report on machine labels")
    assert not walk.problems, "\n".join(walk.problems)
    assert walk.shows_hostile("machine judges: Agreement")
    assert walk.shows_hostile("machine judges: report on machine labels")
