"""Issue 26 in a real browser, on a workspace of its own (no other test changes it): re-chunk
the demo, import a run without a chunk set and one with, score both, export, and check every
number the pages showed against ``scorecard evaluate`` on the exported files; then the judge
form of the drill-down after switching the open query (case 12)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError

from labeling.commands.cli import main
from labeling.workspace import store

pytestmark = pytest.mark.e2e

MEASURES = ("R@10", "RR")
SMALL = "small"


@pytest.fixture
def walk_app(app_server, app_workspace):
    """(URL, workspace) of the app serving this test's own copy of the demo."""
    return app_server, app_workspace


@pytest.fixture
def tab(browser, walk_app):
    context = browser.new_context(viewport={"width": 1280, "height": 1400},
                                  accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def go(page, wait_idle, url: str) -> None:
    page.goto(url)
    wait_idle(page)


def act(page, wait_idle, action) -> None:
    action()
    wait_idle(page)


def choose(page, wait_idle, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    act(page, wait_idle, lambda: box.press("Enter"))


def fill(page, wait_idle, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    act(page, wait_idle, lambda: box.press("Enter"))


def download(page, wait_idle, locator) -> str:
    """The text of the file ``locator``'s download button gives. A button drawn by a run that
    a later rerun replaced (a selectbox losing focus reruns the page) names a file Streamlit
    has dropped: then it is clicked again, as a person would."""
    for attempt in range(2):
        try:
            with page.expect_download(timeout=20_000) as caught:
                locator.click()
        except TimeoutError:
            wait_idle(page)
            if attempt:
                raise
            continue
        wait_idle(page)
        return Path(caught.value.path()).read_text(encoding="utf-8")
    raise AssertionError("unreachable")


def alerts(page, kind: str) -> str:
    return " ".join(page.locator(f"[data-testid='stAlertContent{kind}']").all_inner_texts())


def success(page, text: str) -> str:
    """The success message holding ``text``, once the run the last action started draws it
    (waiting for idle alone can pass before that run starts)."""
    found = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=text).first
    found.wait_for()
    return found.inner_text()


def run_files(workspace: Path, folder: Path) -> tuple[Path, Path]:
    """tiny5: bm25's top 5 (chunk set sections' ids, no chunk set named); small-run: for each
    query the chunks of chunk set small labelled for it, best grade first, then five others."""
    db = store.open_workspace(workspace, create=False)
    try:
        top = db.conn.execute(
            "SELECT query_id, chunk_id, rank, score FROM run_results r JOIN runs u"
            " ON u.id = r.run_id WHERE u.name = 'bm25' AND rank <= 5").fetchall()
        labelled = db.conn.execute(
            "SELECT j.query_id, j.chunk_id, max(j.grade) FROM current_judgments j"
            " JOIN chunk_set_members m ON m.chunk_id = j.chunk_id AND m.chunk_set = ?"
            " WHERE j.grade IS NOT NULL GROUP BY j.query_id, j.chunk_id"
            " ORDER BY j.query_id, max(j.grade) DESC, j.chunk_id", [SMALL]).fetchall()
        others = [r[0] for r in db.conn.execute(
            "SELECT chunk_id FROM chunk_set_members WHERE chunk_set = ? ORDER BY position"
            " LIMIT 5", [SMALL])]
    finally:
        db.close()
    tiny5 = folder / "tiny5.trec"
    tiny5.write_text("".join(f"{q} Q0 {c} {r} {s} tiny5\n" for q, c, r, s in top))
    rows: dict[str, list[str]] = {}
    for query, chunk, _ in labelled:
        rows.setdefault(query, []).append(chunk)
    lines = []
    for query, chunks in rows.items():
        # every third query's best chunk goes last: recall and RR below 1 somewhere
        ranked = chunks[1:] + chunks[:1] if int(query[1:]) % 3 == 0 else chunks
        ranked = list(dict.fromkeys([*ranked[:8], *others]))
        lines += [f"{query} Q0 {c} {i} {100 - i} small\n" for i, c in enumerate(ranked, 1)]
    small = folder / "small-run.trec"
    small.write_text("".join(lines))
    return tiny5, small


def import_run(page, wait_idle, url: str, file: Path, name: str, chunk_set: str | None) -> str:
    go(page, wait_idle, f"{url}/data")
    act(page, wait_idle, page.get_by_role("tab", name="Run").click)
    panel = page.get_by_role("tabpanel", name="Run")
    act(page, wait_idle, lambda: panel.locator("input[type='file']").set_input_files(str(file)))
    fill(page, wait_idle, "run_name", name)
    if chunk_set:
        choose(page, wait_idle, "run_chunk_set", chunk_set)
    act(page, wait_idle, panel.get_by_role("button", name="Import run").click)
    page.locator("[data-testid='stAlertContentSuccess']").first.wait_for()
    return alerts(page, "Warning")


def scored(page, wait_idle, url: str, run: str) -> tuple[dict[str, float], str]:
    """The dashboard's overall means of ``run`` (its CSV download: the numbers the table
    shows, unrounded) and the sentence counting the relevant labels (the label-depth caption
    of the Scorecard tab). When some of them are inferred, the sentence saying so (above the
    tabs) counts the same labels and names them the same way."""
    go(page, wait_idle, f"{url}/dashboard")
    choose(page, wait_idle, "dash_run", run)
    card = download(page, wait_idle, page.locator(".st-key-dash_card_csv button"))
    rows = [r for r in csv.DictReader(io.StringIO(card)) if r["segment"] == "(all queries)"]
    means = {r["measure"]: float(r["mean"]) for r in rows}
    labels = page.locator(".st-key-dash_label_depth [data-testid='stCaptionContainer']")
    sentence = labels.inner_text()
    inferred = page.locator(".st-key-dash_inferred_labels [data-testid='stCaptionContainer']")
    if inferred.count():
        counted = re.match(r"The (\d+) relevant labels (\(.*?\)) come from", sentence)
        assert counted, sentence
        assert re.match(rf"\d+ of the {counted[1]} relevant labels {re.escape(counted[2])} are "
                        "inferred", inferred.inner_text()), (inferred.inner_text(), sentence)
    return means, sentence


def evaluate(qrels: Path, run: Path, capsys) -> dict[str, float]:
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(run), *(a for m in MEASURES for a in ("-m", m)),
                 "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["mean"]


def test_rechunk_import_score_export_and_evaluate_agree(tab, walk_app, wait_idle, tmp_path,
                                                        capsys) -> None:
    url, workspace = walk_app
    page = tab
    # Re-chunk: split the documents at 250 characters, carry the labels over.
    go(page, wait_idle, f"{url}/chunking")
    act(page, wait_idle, page.get_by_role("tab", name="Split the documents").click)
    fill(page, wait_idle, "split_name", SMALL)
    fill(page, wait_idle, "split_size", "250")
    fill(page, wait_idle, "split_overlap", "25")
    act(page, wait_idle, page.get_by_role("button", name="Split").click)
    assert "imported" in success(page, "Split")
    go(page, wait_idle, f"{url}/chunking")
    act(page, wait_idle, page.get_by_role("button", name="Transfer labels").click)
    page.get_by_text("transferred labels written").first.wait_for()

    tiny5, small = run_files(workspace, tmp_path)
    warned = import_run(page, wait_idle, url, tiny5, "tiny5", None)
    assert "every retrieved chunk belongs to chunk set 'sections'" in warned
    assert import_run(page, wait_idle, url, small, "small-run", SMALL) == ""

    shown = {run: scored(page, wait_idle, url, run) for run in ("tiny5", "small-run")}
    for run, chunk_set in (("tiny5", "sections"), ("small-run", SMALL)):
        assert f"of chunk set {chunk_set}" in shown[run][1]
        warnings = alerts(page, "Warning")
        assert "names no chunk set" not in warnings

    # Export: the qrels of each chunk set, the runs, the judgments.
    go(page, wait_idle, f"{url}/data")
    exported = {}
    for chunk_set in ("sections", SMALL):
        choose(page, wait_idle, "qrels_chunk_set", chunk_set)
        path = tmp_path / f"qrels-{chunk_set}.txt"
        path.write_text(download(page, wait_idle, page.get_by_role("button", name="Qrels (TREC)")))
        exported[chunk_set] = path
    runs = {}
    for run in ("tiny5", "small-run"):
        path = tmp_path / f"export-{run}.trec"
        path.write_text(download(page, wait_idle, page.get_by_role("button", name=run,
                                                                   exact=True)))
        runs[run] = path
    judgments = download(page, wait_idle, page.get_by_role("button", name="Judgments (CSV)"))

    for run, chunk_set in (("tiny5", "sections"), ("small-run", SMALL)):
        means, sentence = shown[run]
        expected = evaluate(exported[chunk_set], runs[run], capsys)
        for measure in MEASURES:
            assert means[measure] == pytest.approx(expected[measure], abs=1e-9), (run, measure)
        relevant = sum(int(line.split()[3]) >= 1
                       for line in exported[chunk_set].read_text().splitlines())
        assert re.search(rf"The {relevant} relevant labels \(grade 1 and above", sentence), \
            (sentence, relevant)
    # The two chunk sets' labels differ: a mixed file would have scored one of them wrong.
    assert exported["sections"].read_text() != exported[SMALL].read_text()
    assert shown["small-run"][0]["R@10"] < 1.0

    # The Overview's judgment count and its origins, against the exported judgments.
    go(page, wait_idle, url)
    origins: dict[str, int] = {}
    for row in csv.DictReader(io.StringIO(judgments)):
        origins[row["origin"]] = origins.get(row["origin"], 0) + 1
    total = page.locator("[data-testid='stMetric']", has_text="Judgments")
    assert f"{sum(origins.values()):,}" in total.inner_text()
    caption = next(c for c in page.locator("[data-testid='stCaptionContainer']")
                   .all_inner_texts() if c.startswith("Judgments:"))
    assert (f"{origins['person']:,} by people, {origins['transferred']:,} transferred from "
            "another chunk set") in caption


def test_the_judge_form_follows_the_open_query(tab, walk_app, wait_idle) -> None:
    """Case 12: pick a chunk down one query's list, open another query, grade and save: the
    other query's first unjudged chunk is saved (before the fix the picker kept the first
    query's chunk: "unknown query ... or chunk '#4 · ...'")."""
    url, _ = walk_app
    page = tab
    go(page, wait_idle, f"{url}/dashboard")
    name = page.locator("[data-testid='stSidebar'] input[aria-label='Annotator']")
    name.fill("carol")
    act(page, wait_idle, lambda: name.press("Enter"))
    act(page, wait_idle, page.get_by_role("tab", name="Worst queries").click)
    page.locator(".st-key-dash_drill_query input").first.click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    wait_idle(page)
    for first in options:  # the first query with two unjudged chunks or more
        choose(page, wait_idle, "dash_drill_query", first)
        page.get_by_label("Chunk", exact=True).first.click()
        listed = page.get_by_role("option")
        if listed.count() >= 2:
            break
        page.keyboard.press("Escape")
        wait_idle(page)
    act(page, wait_idle, listed.nth(listed.count() - 1).click)  # a chunk down the list
    second = next(q for q in options if q != first)
    choose(page, wait_idle, "dash_drill_query", second)
    shown = page.get_by_text(re.compile(rf"^Query {re.escape(second)}: ")).first
    shown.wait_for()
    act(page, wait_idle, page.get_by_role("radiogroup", name="Grade").get_by_text(
        re.compile(r"^1 ")).first.click)
    act(page, wait_idle, page.get_by_role("button", name="Save label").click)
    assert success(page, "Judged")
    assert "unknown" not in alerts(page, "Error")
