"""The shareable scorecard: content, escaping of user text, the three formats and the command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labeling.commands.cli import main
from labeling.errors import ScorecardError
from labeling.evaluation.inputs import label_sets, result_cache, score_controls
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.report import scorecard_report as report
from labeling.workspace import judgments, query_store, store

SCRIPT = "<script>window.__injected = 1</script>"
MARKDOWN = "**bold** [link](http://evil.example) | pipe <img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def demo(build_workspace) -> Path:
    return build_workspace.path("demo")


@pytest.fixture(scope="module")
def hostile(build_workspace) -> Path:
    """The demo with a chunk and a query text holding HTML and markdown, made a worst query."""
    path = build_workspace.path(
        "demo", chunks=[{"id": "evil-01", "doc_id": "evil", "text": f"A {SCRIPT} B"}]
    )
    db = store.open_workspace(path)
    query = query_store.add_query(db, MARKDOWN, attributes={"topic": "<i>it</i>"})
    for grade, chunk in ((3, "evil-01"), (0, "onboarding-01")):
        judgments.add_judgment(db, query, chunk, grade, "alice")
    db.conn.close()
    result_cache.clear_cache()
    return path


@pytest.fixture(scope="module")
def card(demo: Path) -> report.Scorecard:
    result_cache.clear_cache()
    return report.build_scorecard(store.open_workspace(demo), report.report_controls("fusion"),
                                  baseline="bm25")


def test_scorecard_content(card: report.Scorecard, demo: Path) -> None:
    db = store.open_workspace(demo)
    controls = report.report_controls("fusion")
    assert controls.measures == ("R@10", "RR", "nDCG@10", "P@5")
    values = scoring.per_query(db, controls)
    overall = card.card.loc[card.card["segment"] == score_controls.OVERALL].set_index("measure")
    assert overall["mean"].to_dict() == pytest.approx(values.mean().to_dict())
    assert (overall["ci_low"] <= overall["mean"]).all()
    assert card.segment == "topic" and set(card.card["segment"]) > {"hr", "it"}
    assert card.snapshot == label_sets.label_snapshot(db, "default").snapshot
    assert card.run["index_build"].startswith("reciprocal-rank fusion")
    assert card.run["query_set_version"] == "demo-1"
    assert list(card.comparison["measure"]) == list(controls.measures)
    answered = values.drop(index=scoring.unanswered_queries(db, controls))
    below = int((answered["R@10"] < 1).sum())  # retrieved badly: below 1, nothing at 1
    assert len(card.worst) == min(report.N_WORST, below) > 0
    worst = [w["value"] for w in card.worst]
    assert worst == sorted(worst) and worst[-1] < 1
    assert card.worst[0]["missed"] and card.worst[0]["missed"][0]["text"]
    assert "baseline" in card.worst[0]


def test_html_is_self_contained(card: report.Scorecard) -> None:
    page = report.to_html(card)
    assert page.count("plotly.js v") == 1  # plotly's JavaScript, inlined once
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=[\"']https?:", page)
    for text in ("label snapshot", card.snapshot, "faithfulness", "Against the baseline bm25",
                 "p (Holm)", f"The {len(card.worst)} worst queries by R@10", "Conventions",
                 "--fail-under", "reciprocal-rank fusion (k=60)"):
        assert text in page, text


def test_user_text_is_escaped_everywhere(hostile: Path, tmp_path: Path) -> None:
    db = store.open_workspace(hostile)
    card = report.build_scorecard(db, report.report_controls("fusion"), baseline="bm25")
    # Added after the runs, the query is one they returned nothing for: listed apart.
    assert any(w["text"] == MARKDOWN for w in card.not_retrieved)
    assert not any(w["text"] == MARKDOWN for w in card.worst)
    page = report.to_html(card)
    assert SCRIPT not in page and "<img src=x" not in page and "<i>it</i>" not in page
    assert "&lt;script&gt;window.__injected = 1&lt;/script&gt;" in page
    markdown = report.to_markdown(card)
    assert "<script>" not in markdown and "<img" not in markdown and "**bold**" not in markdown
    assert "\\*\\*bold\\*\\* \\[link\\]\\(http" in markdown
    data = json.loads(report.to_json(card))
    missed = [m["text"] for w in data["worst_queries"] + data["not_retrieved_queries"]
              for m in w["missed"]]
    assert f"A {SCRIPT} B" in missed  # JSON keeps the text as it is


def test_json_has_no_nan_and_round_trips(card: report.Scorecard) -> None:
    data = json.loads(report.to_json(card))
    assert data["run"]["name"] == "fusion" and data["baseline"]["name"] == "bm25"
    assert data["label_snapshot"] == card.snapshot
    assert {row["measure"] for row in data["comparison"]} == set(card.measures)
    assert (data["consensus_rule"], data["policy"], data["unit"], data["split"],
            data["relevance"]) == ("default", "nonrelevant", "chunk", "all", 1)
    assert all(isinstance(row["significant"], bool) for row in data["comparison"])
    assert data["run"]["chunk_size"] is None


def test_without_baseline(demo: Path) -> None:
    card = report.build_scorecard(store.open_workspace(demo), Controls("bm25", ("nDCG@10",)),
                                  segment="source", n_worst=3)
    assert card.comparison is None and card.baseline is None
    assert len(card.worst) == 3 and "baseline" not in card.worst[0]
    assert "Against the baseline" not in report.to_html(card)
    assert "### Against" not in report.to_markdown(card)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"baseline": "fusion"}, "another run"), ({"segment": "colour"}, "no segment"),
     ({"measures": ["nDCG@x"]}, "cutoff"), ({"measures": []}, "at least one"),
     ({"rule": "median"}, "unknown consensus rule")],
)
def test_bad_requests(demo: Path, kwargs: dict, message: str) -> None:
    controls = {k: v for k, v in kwargs.items() if k in ("measures", "rule")}
    with pytest.raises(ScorecardError, match=message):
        report.build_scorecard(store.open_workspace(demo),
                               report.report_controls("fusion", **controls),
                               **{k: v for k, v in kwargs.items() if k not in controls})


def test_report_command(demo: Path, tmp_path: Path, capsys) -> None:
    for name in ("card.html", "card.md", "card.json"):
        out = tmp_path / name
        assert main(["report", str(demo), "--run", "fusion", "--baseline", "bm25",
                     "--out", str(out), "-m", "R@5", "-m", "RR"]) == 0
        assert out.stat().st_size > 500
    assert "wrote the json scorecard of fusion" in capsys.readouterr().out
    data = json.loads((tmp_path / "card.json").read_text())
    assert data["measures"] == ["R@5", "RR"] and data["worst_measure"] == "R@5"
    assert main(["report", str(demo), "--run", "fusion", "--out", str(tmp_path / "c.txt")]) == 2
    assert ".html, .md or .json" in capsys.readouterr().err
    assert main(["report", str(demo), "--run", "nope", "--out", str(tmp_path / "c.md")]) == 2
    assert main(["report", str(tmp_path / "none.db"), "--run", "x",
                 "--out", str(tmp_path / "c.md")]) == 2


def test_fail_under_gates_a_stored_run(demo: Path) -> None:
    """The gate the scorecard suggests, both outcomes (on the workspace's labels)."""
    base = ["evaluate", "--db", str(demo), "--run", "fusion", "-m", "R@10", "-m", "nDCG@10"]
    assert main([*base, "--fail-under", "R@10=0.9", "--fail-under", "nDCG@10=0.6"]) == 0
    assert main([*base, "--fail-under", "R@10=0.99", "--fail-under", "nDCG@10=0.6"]) == 1


def test_download_for_the_app(card: report.Scorecard) -> None:
    content, name, mime = report.download(card, "markdown")
    assert name == f"scorecard-fusion-vs-bm25-{card.generated_at[:10]}.md"
    assert mime == "text/markdown" and content.decode().startswith("## Retrieval scorecard")
    with pytest.raises(Exception, match="unknown scorecard format"):
        report.download(card, "pdf")


def test_stored_run_under_each_consensus_rule(demo: Path, capsys: pytest.CaptureFixture) -> None:
    means = {}
    for rule in ("strict", "default", "lenient"):
        args = ["evaluate", "--db", str(demo), "--run", "bm25", "-m", "P@10", "--format", "json"]
        assert main([*args, "--consensus", rule]) == 0
        means[rule] = json.loads(capsys.readouterr().out)["mean"]["P@10"]
    # Two annotators one grade apart round up under the default rule, as under lenient.
    assert means["strict"] < means["lenient"]
    assert means["strict"] <= means["default"] <= means["lenient"]


def test_export_qrels_under_a_rule(demo: Path, tmp_path: Path) -> None:
    grades = {}
    for rule in ("strict", "lenient"):
        out = tmp_path / f"{rule}.qrels"
        assert main(["export", str(demo), "qrels", str(out), "--consensus", rule]) == 0
        grades[rule] = {tuple(line.split()[::2][:2]): int(line.split()[3])
                        for line in out.read_text().splitlines()}
    assert grades["strict"].keys() == grades["lenient"].keys()
    lower = [p for p in grades["strict"] if grades["strict"][p] < grades["lenient"][p]]
    assert len(lower) == 27  # the demo's pairs on which its two annotators disagree
    assert all(grades["strict"][p] <= grades["lenient"][p] for p in grades["strict"])


def test_grade_names_are_escaped_in_the_markdown(make_workspace) -> None:
    """A grade name is user text: in the conventions (the threshold sentence) it stays text."""
    from tests.markup import markup_in, shown

    evil = "[click](https://evil.example/x) <https://evil.example> www.evil.example"
    db = make_workspace(
        scale=[(0, "not relevant", ""), (1, evil, "")],
        chunks=[{"id": f"c{i}", "text": "text"} for i in range(3)],
        queries=[{"id": "q1", "text": "which?"}], runs={"r": [("q1", "c0", 3.0)]},
        judgments=[("q1", "c1", 1, "ann"), ("q1", "c2", 1, "ann")])
    result_cache.clear_cache()
    markdown = report.to_markdown(report.build_scorecard(db, report.report_controls("r"),
                                                         n_resamples=50))
    assert evil in shown(markdown)
    assert markup_in(markdown.replace("<details><summary>Conventions</summary>", "")
                     .replace("</details>", "")) == []
