"""Every page of a workspace full of hostile text (``tests.hostile``), in AppTest: no markdown
element, label, option, help text or message would render a link, an image or raw HTML; no chart
text carries a tag; every CSV download is defused.

The walk visits every page file, every dashboard tab and the drill-down of the hostile query,
and does the actions whose messages quote user text (an import of a file with a hostile name,
an adjudication, a dashboard judgment, a new query). Markdown is checked with markdown-it-py
(``tests.markup``); downloads are caught by the ``downloads`` fixture (``tests/app/conftest.py``).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from labeling.evaluation.inputs import result_cache
from labeling.files.exporters import FORMULA_PREFIXES
from labeling.files.uploads import safe_filename
from labeling.markdown import escape_chart_text
from labeling.workspace import store
from pages._keys import is_keyboard_script
from tests import hostile
from tests.markup import markup_in, shown

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.stem for p in (ROOT / "pages").glob("*.py") if not p.stem.startswith("_"))
DASHBOARD_TABS = ["Scorecard", "Coverage", "Compare", "Worst queries", "Failure tags", "History"]
# Element protos whose text is shown as plain text (never markdown): not checked.
PLAIN = {"Text", "Code", "Dataframe", "PlotlyChart", "Json", "Exception"}
TEXT_FIELDS = ("body", "label", "help", "text")
CHART_TAGS = ("<a", "<img", "<script", "<svg", "<iframe", "<b>")


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


@pytest.fixture
def hostile_workspace(workspace: Path) -> Path:
    db = store.open_workspace(workspace)
    hostile.seed(db)
    db.close()
    return workspace


def _markdown_texts(node, where: str):
    """(place, markdown) for every text of the element tree that Streamlit renders as
    markdown: bodies, labels, help texts, progress texts, radio and button-group options."""
    proto = getattr(node, "proto", None)
    if proto is not None and proto.DESCRIPTOR.name == "Html" and is_keyboard_script(proto.body):
        proto = None  # the keyboard script: the pages' own constants (pages/_keys.py)
    if proto is not None and proto.DESCRIPTOR.name not in PLAIN:
        kind = proto.DESCRIPTOR.name
        fields = proto.DESCRIPTOR.fields_by_name
        for name in TEXT_FIELDS:
            if name in fields and fields[name].type == fields[name].TYPE_STRING:
                if value := getattr(proto, name):
                    yield f"{where} {kind}.{name}", value
        if kind == "Radio":
            yield from ((f"{where} Radio.option", o) for o in proto.options)
        if kind == "ButtonGroup":
            yield from ((f"{where} ButtonGroup.option", o.content) for o in proto.options)
    for child in getattr(node, "children", {}).values():
        yield from _markdown_texts(child, where)


def _chart_texts(at) -> list[str]:
    return [c.proto.spec for c in at.get("plotly_chart")]


class Walk:
    """Runs the pages, checks each rendered tree, and keeps what was shown where."""

    def __init__(self, at) -> None:
        self.at = at
        self.shown: dict[str, list[str]] = {}
        self.problems: list[str] = []
        self.charts = 0

    def check(self, where: str) -> None:
        at = self.at
        assert not at.exception, (where, [e.value for e in at.exception])
        for place, markdown in _markdown_texts(at._tree, where):
            self.problems += [f"{place}: {found} in {markdown!r}" for found in markup_in(markdown)]
            self.shown.setdefault(where, []).append(shown(markdown))
        for spec in _chart_texts(at):
            self.charts += hostile.EVIL in spec
            lowered = spec.lower()
            self.problems += [f"{where} chart: {tag}" for tag in CHART_TAGS if tag in lowered]

    def page(self, name: str) -> None:
        self.at.switch_page(f"pages/{name}.py").run()
        self.check(name)

    def run(self, where: str) -> None:
        self.at.run()
        self.check(where)

    def shows_hostile(self, where: str) -> bool:
        return any(hostile.EVIL in text for text in self.shown.get(where, []))


def _walk_everything(open_app) -> Walk:
    at = open_app()
    at.session_state["annotator"] = hostile.ANNOTATORS[0]
    at.session_state["label_current"] = (hostile.QUERY, hostile.CHUNKS[0])  # the card's pair
    for panel in ("search", "context", "guideline"):  # the card's panels open
        at.session_state[f"label_show_{panel}"] = True
    walk = Walk(at)
    for name in PAGES:
        walk.page(name)

    # Data: a bad file and a run, both with hostile names; their messages quote the names
    walk.page("data")
    at.file_uploader(key="upload_chunks_0").set_value(
        (hostile.FILE_NAME, b'id,text\nc1,"never closed\n', "text/csv"))
    at.button(key="import_chunks").click()
    walk.run("data: bad upload")
    at.file_uploader(key="upload_run_0").set_value(
        (f"{hostile.IMAGE}.trec", f"{hostile.QUERY} Q0 {hostile.CHUNKS[2]} 1 1.0 x\n".encode(),
         "text/plain"))
    at.text_input(key="run_name").input(hostile.LINK)
    at.button(key="import_run").click()
    walk.run("data: run upload")

    # Agreement: adjudicating the hostile pair quotes its ids
    walk.page("agreement")
    pair = next(o for o in at.selectbox(key="adj_pair").options if hostile.QUERY in o)
    at.selectbox(key="adj_pair").set_value(pair)
    at.selectbox(key="adj_grade").set_value(2)  # no grade is chosen until someone chooses it
    at.button(key="adj_save").click()
    walk.run("agreement: adjudicated")

    # Queries: a new query with a hostile id and segment value
    walk.page("queries")
    at.text_area(key="new_query_text").input(hostile.TEXT)
    at.text_input(key="new_query_id").input(hostile.LINK)
    at.text_input(key="new_attr_topic").input(hostile.IMG_TAG)
    at.button(key="add_query").click()
    walk.run("queries: added")

    # Dashboard: every tab on the hostile run, its segment, and the hostile query's drill-down
    walk.page("dashboard")
    at.selectbox(key="dash_run").set_value(hostile.RUN)
    at.selectbox(key="dash_segment").set_value(hostile.ATTRIBUTE)
    at.multiselect(key="dash_extra").set_value(["P@k"])  # the hostile query is below 1 on it
    walk.run("dashboard: hostile run")
    for tab in DASHBOARD_TABS:
        at.session_state["dash_tab"] = tab
        walk.run(f"dashboard: {tab}")
    at.selectbox(key="dash_history_set").set_value(hostile.SHORT)  # the History tab is open
    walk.run("dashboard: History of the hostile query set")
    at.session_state["dash_tab"] = "Worst queries"
    at.session_state["dash_worst_measure"] = "P@10"  # R@10 is 1: not "retrieved badly"
    at.run()
    at.selectbox(key="dash_drill_query").set_value(hostile.QUERY)
    walk.run("dashboard: drill-down")
    at.session_state["dash_find_open"] = True  # the corpus search, its hits' text
    walk.run("dashboard: corpus search")
    at.radio(key="dash_unit").set_value("document")
    walk.run("dashboard: drill-down by document")
    at.radio(key="dash_unit").set_value("chunk")
    at.selectbox(key=f"dash_judge_chunk:{hostile.QUERY}").set_value(hostile.CHUNKS[2])
    at.radio(key="dash_judge_grade").set_value(1)
    at.button(key="dash_judge_save").click()
    walk.run("dashboard: judged")

    # Review: the table view and its download
    walk.page("review")
    at.segmented_control(key="review_mode").set_value("Table")
    walk.run("review: table")
    return walk


def test_hostile_text_never_renders_as_markup(hostile_workspace, open_app, downloads):
    walk = _walk_everything(open_app)
    assert not walk.problems, "\n".join(walk.problems)
    # The hostile text was on screen (as text), where each known miss used to be.
    for where in ("home", "label", "judge_by_query", "agreement: adjudicated", "review",
                  "dashboard: corpus search",
                  "data: bad upload", "data: run upload", "queries", "dashboard: drill-down",
                  "dashboard: Coverage", "dashboard: judged"):
        assert walk.shows_hostile(where), where
    assert any(hostile.ANNOTATORS[0] in text for text in walk.shown["home"])
    assert walk.charts > 0  # hostile text reached charts, escaped


def _cells(content: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(content.decode("utf-8"))) for cell in row]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_every_csv_download_is_defused(hostile_workspace, open_app, downloads):
    _walk_everything(open_app)
    tables: dict[str, list[str]] = {}  # every cell of every download of that name
    for name, data in downloads:
        if name.endswith(".csv"):
            tables.setdefault(name, []).extend(_cells(data))
    live = [c for cells in tables.values() for c in cells if c.startswith(FORMULA_PREFIXES)
            and not _is_number(c)]
    assert live == []
    # Hostile formulas were there, defused, in the downloads that carry user text.
    defused = {name for name, cells in tables.items()
               if any(c[:1] == "'" and c[1:].startswith(FORMULA_PREFIXES) for c in cells)}
    for name in ("judgments.csv", "pair_history.csv", "disagreements.csv",
                 "synthetic_candidates.csv", f"{safe_filename(f'worst-{hostile.RUN}')}.csv",
                 f"{safe_filename(f'ranked-{hostile.QUERY}')}.csv", "kappa.csv", "history.csv"):
        assert name in defused, (name, sorted(tables))
    # Numbers stay numbers: a negative score is written as -... not '-...
    assert any(c.startswith("-") and _is_number(c) for cells in tables.values() for c in cells)
    assert not any(c.startswith("'-") and _is_number(c[1:])
                   for cells in tables.values() for c in cells)


def test_chart_text_is_escaped_for_plotly(hostile_workspace, open_app):
    at = open_app("dashboard")
    at.selectbox(key="dash_run").set_value(hostile.RUN)
    at.selectbox(key="dash_segment").set_value(hostile.ATTRIBUTE).run()
    bars = next(json.loads(s) for s in _chart_texts(at) if "Mean by segment" in s)
    segments = {x for trace in bars["data"] for x in trace["x"]}
    # Plotly decodes the entities: the reader sees the tag's characters, no element is made.
    assert escape_chart_text(hostile.IMG_TAG) in segments
    assert hostile.IMG_TAG not in segments
