"""In a real browser with the network off: the HTML scorecard speaks first in one sentence, and
every number of that sentence is the JSON scorecard's, rounded as shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labeling.report import scorecard_report as report
from labeling.workspace import store
from tests.e2e.conftest import offline_page

pytestmark = pytest.mark.e2e

MINUS = "\u2212"
NUMBER = r"[−+]?\d+(?:\.\d+)?(?:e-?\d+)?"
SENTENCE = re.compile(
    rf"(?P<run>\S+) vs (?P<baseline>\S+) on (?P<n>\d+) queries: (?P<measure>\S+) "
    rf"(?P<run_mean>{NUMBER}) vs (?P<baseline_mean>{NUMBER}), difference "
    rf"(?P<difference>{NUMBER}) \(95% CI (?P<ci_low>{NUMBER}) to (?P<ci_high>{NUMBER})\), "
    rf"(?P<verdict>not significant|significant) \(p = (?P<p>{NUMBER}), Holm\)\."
)


@pytest.fixture(scope="module")
def cards(build_workspace) -> tuple[Path, dict]:
    """The HTML and the JSON of one scorecard: bm25 against bm25-title on nDCG@10."""
    db = store.open_workspace(build_workspace.path("demo"))
    card = report.build_scorecard(db, report.report_controls("bm25", measures=("nDCG@10",)),
                                  baseline="bm25-title")
    folder = Path(db.conn.execute("PRAGMA database_list").fetchone()[2]).parent
    db.close()
    html, data = folder / "card.html", folder / "card.json"
    report.write_scorecard(card, html)
    report.write_scorecard(card, data)
    return html, json.loads(data.read_text(encoding="utf-8"))


def _number(text: str) -> float:
    return float(text.replace(MINUS, "-"))


def test_verdict_is_the_first_thing_and_its_numbers_are_the_jsons(browser, cards) -> None:
    path, data = cards
    with offline_page(browser) as (page, requested):
        page.goto(path.as_uri())
        verdict = page.locator("#verdict")
        verdict.wait_for()
        # The sentence comes before every table and chart of the page.
        first_table = page.locator("table").first.bounding_box()
        first_chart = page.locator(".js-plotly-plot").first.bounding_box()
        box = verdict.bounding_box()
        assert box["y"] < first_table["y"] and box["y"] < first_chart["y"]
        text = verdict.inner_text().strip()
        assert requested == []
    match = SENTENCE.fullmatch(text)
    assert match, text
    expected = data["verdict"]
    assert expected["sentence"] == text
    assert (match["run"], match["baseline"], match["measure"]) == (
        data["run"]["name"], data["baseline"]["name"], "nDCG@10")
    assert int(match["n"]) == expected["n"] == next(
        row["n"] for row in data["comparison"] if row["measure"] == "nDCG@10")
    for name in ("run_mean", "baseline_mean", "difference", "ci_low", "ci_high"):
        assert _number(match[name]) == pytest.approx(round(expected[name], 2), abs=1e-9), name
    comparison = next(row for row in data["comparison"] if row["measure"] == "nDCG@10")
    assert expected["run_mean"] == comparison["candidate_mean"]
    assert expected["baseline_mean"] == comparison["baseline"]
    assert expected["difference"] == comparison["difference"]
    assert (match["verdict"] == "significant") == comparison["significant"]
    assert _number(match["p"]) == pytest.approx(float(f"{comparison['p_holm']:.2g}"))
    assert expected["ci_low"] <= expected["difference"] <= expected["ci_high"]
