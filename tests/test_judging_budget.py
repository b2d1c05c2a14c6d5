"""The judging budget planner (``labeling.evaluation.planning.judging_budget``) and
``scorecard plan``: every figure is recomputed here from other parts of the library (pooling,
coverage, paired scores, the pace module, the token estimate)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from labeling.commands.cli import main
from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.inputs.segmenting import query_table
from labeling.evaluation.planning import judging_budget
from labeling.evaluation.scores import judged_coverage
from labeling.evaluation.scores.run_comparison import paired_scores
from labeling.judging import consensus, pace, pooling
from labeling.metrics import power
from labeling.metrics.engine import ranked_list
from labeling.model_calls.tokens import estimate_tokens

pytestmark = pytest.mark.usefixtures("fresh_result_cache")


@pytest.fixture
def demo(make_workspace):
    return make_workspace("demo")


def _texts(db, pairs) -> list[tuple[str, str]]:
    queries = query_table(db)["text"]
    chunks = dict(db.conn.execute("SELECT id, text FROM chunks").fetchall())
    return [(queries[q], chunks[c]) for q, c in pairs]


def test_plan_figures_come_from_the_workspace(demo):
    controls = Controls("bm25")
    plan = judging_budget.plan(demo, controls, "nDCG@10", 0.05, candidate="fusion",
                               pool_depth=10)
    differences = paired_scores(demo, controls, "fusion", "nDCG@10")["difference"]
    sd = float(np.std(differences, ddof=1))
    assert plan.sd == pytest.approx(sd)
    assert plan.queries_have == len(differences) == 46
    assert plan.queries_needed == power.queries_for_power(0.05, sd, power=0.8, alpha=0.05)
    assert plan.queries_needed > plan.queries_have
    pool = pooling.pool_pairs(demo, ["bm25", "fusion"], 10)
    per_query = len(pool) / pool["query_id"].nunique()
    assert plan.pool_per_query == pytest.approx(per_query)
    assert plan.judgments_needed == math.ceil(plan.queries_needed * per_query)
    unjudged = judged_coverage.unjudged_pairs(demo, controls, ["bm25", "fusion"])
    extra = plan.queries_needed - plan.queries_have
    assert plan.to_judge == math.ceil(len(unjudged) + extra * per_query)
    # The demo's labels were written in one go: no person's pace, so the default.
    assert plan.pace.seconds_per_card == pace.DEFAULT_SECONDS_PER_CARD
    assert "no judging session is timed yet" in plan.pace.source  # the demo's labels are files
    assert plan.hours == pytest.approx(plan.to_judge * 30 / 3600)
    per_pair = np.mean([estimate_tokens(q) + estimate_tokens(c) + 300
                        for q, c in _texts(demo, zip(pool["query_id"], pool["chunk_id"],
                                                 strict=True))])
    unjudged_tokens = sum(estimate_tokens(q) + estimate_tokens(c) + 300
                          for q, c in _texts(demo, unjudged))
    assert plan.machine_calls == plan.to_judge
    assert plan.machine_tokens == math.ceil(unjudged_tokens + extra * per_query * per_pair)
    first = plan.sentences()[0]
    assert f"{plan.queries_needed:,} queries" in first and "46" in first


def test_fewer_queries_needed_than_there_are_takes_a_share_of_the_pools(demo):
    plan = judging_budget.plan(demo, Controls("bm25"), "nDCG@10", 0.5, candidate="fusion")
    assert plan.queries_needed < plan.queries_have
    unjudged = judged_coverage.unjudged_pairs(demo, Controls("bm25"), ["bm25", "fusion"])
    assert plan.to_judge == math.ceil(plan.queries_needed / 46 * len(unjudged))
    assert plan.more_queries == 0


def _check_slots(demo, table) -> None:
    """Issue 26, case 1: at depth 20 the planner said bm25 was "judged 39.78%", which was
    36.7% empty slots (bm25 returns fewer than 20 results for some queries) plus 23.5%
    unjudged. Judged counts over filled slots; empty slots are a column of their own."""
    qrels = consensus.consensus_qrels(demo, "default")
    ranked = ranked_list(qrels, consensus.run_frame(demo, "bm25")[["query_id", "doc_id",
                                                                   "score"]])
    queries = qrels["query_id"].nunique()
    for row in table.itertuples():
        top = ranked.loc[ranked["rank"] <= row.depth]
        assert row.empty == pytest.approx(1 - len(top) / (queries * row.depth))
        assert row.judged == pytest.approx(top["grade"].notna().mean())
    deep = table.set_index("depth").loc[20]
    assert deep["empty"] == pytest.approx(0.367, abs=0.001)
    assert deep["judged"] == pytest.approx(0.3978 / (1 - 0.367), abs=0.001)  # not 39.78%


def test_tradeoff_table_and_curve(demo):
    plan = judging_budget.plan(demo, Controls("bm25"), "nDCG@10", 0.05, candidate="fusion")
    table = plan.tradeoff
    assert list(table["measure"]) == [f"nDCG@{d}" for d in table["depth"]]
    deepest = max(int(consensus.run_frame(demo, r).groupby("query_id").size().max())
                  for r in ("bm25", "fusion"))
    assert deepest == 20
    assert list(table["depth"]) == [1, 2, 3, 5, 10, 20]
    for row in table.itertuples():
        diffs = paired_scores(demo, Controls("bm25"), "fusion", row.measure)["difference"]
        sd = float(np.std(diffs, ddof=1))
        assert row.sd == pytest.approx(sd)
        assert row.queries_needed == power.queries_for_power(0.05, sd)
        assert row.judgments == math.ceil(row.queries_needed * row.pool_per_query)
        assert 0 <= row.judged <= 1
    assert table["pool_per_query"].is_monotonic_increasing
    _check_slots(demo, table)
    curve = plan.curve
    assert curve["queries"].iloc[0] == 2 and curve["queries"].is_monotonic_increasing
    assert curve["detectable"].is_monotonic_decreasing
    assert curve["queries"].max() >= plan.queries_needed
    assert plan.detectable_now == pytest.approx(power.detectable_difference(plan.sd, 46))
    assert plan.detectable_now > 0.05  # the current position sits above the planned one


def test_segments_plan_each_at_alpha_over_their_number(demo):
    plan = judging_budget.plan(demo, Controls("bm25"), "nDCG@10", 0.05, candidate="fusion",
                               segment="topic")
    table = plan.segments.set_index("segment")
    assert list(table.index) == ["hr", "it", "product", "security"]
    assert table["n"].sum() == 46
    assert table["alpha_each"].tolist() == [0.0125] * 4
    topics = query_table(demo)["topic"]
    diffs = paired_scores(demo, Controls("bm25"), "fusion", "nDCG@10")["difference"]
    for name, row in table.iterrows():
        sd = float(np.std(diffs[topics.reindex(diffs.index) == name], ddof=1))
        assert row["queries_needed"] == power.queries_for_power(0.05, sd, alpha=0.0125)
        assert row["more_needed"] == max(0, row["queries_needed"] - row["n"])


def test_without_a_candidate_the_spread_is_sqrt_two_times_the_runs(demo):
    plan = judging_budget.plan(demo, Controls("bm25"), "RR", 0.05)
    from labeling.evaluation.scores.scoring import per_query

    values = per_query(demo, Controls("bm25", measures=("RR",)))["RR"]
    assert plan.sd == pytest.approx(math.sqrt(2) * float(np.std(values, ddof=1)))
    assert "no candidate" in plan.sentences()[0]
    assert list(plan.tradeoff["measure"])[:2] == ["RR@1", "RR@2"]


@pytest.mark.slow  # a seeded simulation of the gate
def test_gate_plans_are_checked_by_simulating_the_gate(demo):
    plan = judging_budget.plan(demo, Controls("bm25"), "nDCG@10",
                               judging_budget.gate_difference(0.05), candidate="fusion",
                               max_drop=0.05)
    assert plan.sides == 1 and plan.difference == pytest.approx(0.05)
    assert plan.formula_queries == power.queries_for_power(0.05, plan.sd, sides=1)
    assert plan.queries_needed >= plan.formula_queries
    assert plan.simulated_power >= 0.8
    assert "simulating the gate" in plan.sentences()[0]
    assert "true drop of 0.100" in plan.sentences()[0]


def _judgments(spacing: float, count: int = 12, **origin) -> list:
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    return [("q1", f"c{i}", 1, "ann", {"created_at": (start + timedelta(
        seconds=spacing * i)).isoformat(), **origin}) for i in range(count)]


@pytest.mark.parametrize(("judgments", "seconds", "says"), [
    (_judgments(20.0), 20.0, "the team's median over 11 timed cards"),
    (_judgments(0.25), 0.25, "the team's median over 11 timed cards"),  # keyboard experts
    # A file of a person's judgments, stamped when it was imported, times no card.
    (_judgments(0.0, origin_source="ann.qrels"), pace.DEFAULT_SECONDS_PER_CARD,
     "no judging session is timed yet"),
    ([], pace.DEFAULT_SECONDS_PER_CARD, "no judging session is timed yet"),
])
def test_pace_is_measured_when_people_judge(make_workspace, judgments, seconds, says):
    chunks = [{"id": f"c{i}", "text": f"passage {i}"} for i in range(12)]
    db = make_workspace(chunks=chunks, queries=[{"id": "q1", "text": "question"}],
                        judgments=judgments)
    speed = judging_budget.planning_pace(db)
    assert speed.seconds_per_card == pytest.approx(seconds)
    assert says in speed.source


def test_machine_judge_tokens_are_text_plus_prompt():
    texts = [("what is the leave year?", "The leave year runs from 1 April."), ("", "")]
    expected = estimate_tokens(texts[0][0]) + estimate_tokens(texts[0][1]) + 2 * 300
    assert judging_budget.machine_judge_tokens(texts) == expected
    assert judging_budget.machine_judge_tokens(texts, overhead=0) == expected - 600


@pytest.mark.parametrize("call", [
    lambda db: judging_budget.plan(db, Controls("bm25"), "nDCG@10", 0.05, pool_depth=0),
    lambda db: judging_budget.plan(db, Controls("bm25"), "nDCG@10", 0.0),
    lambda db: judging_budget.plan(db, Controls("bm25"), "nDCG@10", 0.05, candidate="nope"),
    lambda db: judging_budget.gate_difference(0.01, 0.005),
])
def test_bad_requests_are_refused(demo, call):
    with pytest.raises(ScorecardError):
        call(demo)


def test_plan_command(make_workspace, capsys):
    path = make_workspace.path("demo")
    assert main(["plan", str(path), "--baseline", "bm25", "--candidate", "fusion", "-m",
                 "nDCG@10", "--difference", "0.05", "--segment", "topic"]) == 0
    out = capsys.readouterr().out
    assert "Queries against pool depth" in out and "Per segment" in out
    assert main(["plan", str(path), "--baseline", "bm25", "--candidate", "fusion", "-m",
                 "nDCG@10", "--difference", "0.05", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries_have"] == 46 and payload["queries_needed"] > 46
    assert payload["tradeoff"][0]["depth"] == 1 and payload["curve"]
    assert main(["plan", str(path), "--baseline", "nope", "-m", "RR", "--difference",
                 "0.05"]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err
    assert main(["plan", str(path), "--baseline", "bm25", "-m", "RR", "--difference",
                 "0.05", "--true-drop", "0.1"]) == 2


def test_the_readme_quotes_the_demo_plan(demo):
    """The docs' worked example (docs/ci-gate.md, once the README's) is this plan of the demo:
    if the demo changes, so must it."""
    from pathlib import Path

    plan = judging_budget.plan(demo, Controls("bm25"), "nDCG@10", 0.05, candidate="fusion")
    page = Path(__file__).resolve().parents[1] / "docs" / "ci-gate.md"
    readme = " ".join(page.read_text().split())
    quoted = (f"says {plan.queries_needed} queries (it has {plan.queries_have}, which detect "
              f"{plan.detectable_now:.3f}), {plan.judgments_needed} judgments at depth 10, "
              f"{plan.to_judge} of them not judged yet, {plan.hours:.1f} hours at 30 s a card")
    assert quoted in readme
