"""In a real browser: a workspace whose names, ids, texts, notes, run names, segment values, tag
names, grade names and an upload's file name carry markdown links and images to an outside
host, HTML with handlers, scripts and formulas (``tests.hostile``) shows all of it as text on
every page, and the browser makes no request to anyone but the app.

The shared server serves the test its own copy of the demo with the hostile rows. It records
every request of the page, visits every page through the navigation (every dashboard tab, the
hostile query's drill-down, an upload with a hostile file name) and looks in the DOM for
anything the text could have made: an element fetching from the outside host, a link to it, a
handler, a script, or ``window.__injected`` set.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from labeling.workspace import store
from tests import hostile

pytestmark = pytest.mark.e2e

DASHBOARD_TABS = ["Scorecard", "Coverage", "Compare", "Worst queries", "Failure tags", "History"]
# What the DOM must never hold, whatever the page.
PROBE = """(evil) => {
    const attr = (e, name) => (e.getAttribute(name) || '') + ' ' +
        (e.getAttributeNS('http://www.w3.org/1999/xlink', name) || '');
    const all = [];  // every element, those in components' (open) shadow roots too
    const collect = (root) => root.querySelectorAll('*').forEach(e => {
        all.push(e);
        if (e.shadowRoot) collect(e.shadowRoot);
    });
    collect(document);
    return {
        injected: typeof window.__injected,
        fetching: all.filter(e => ['src', 'srcset', 'poster', 'data']
            .some(n => attr(e, n).includes(evil))).map(e => e.outerHTML.slice(0, 120)),
        links: all.filter(e => attr(e, 'href').includes(evil)).map(e => e.outerHTML.slice(0, 120)),
        handlers: all.filter(e => e.hasAttribute('onerror') || e.hasAttribute('onload'))
            .map(e => e.outerHTML.slice(0, 120)),
        scripts: Array.from(document.scripts).filter(s => s.textContent.includes('__injected'))
            .length,
        shown: document.body.innerText.includes(evil),
    };
}"""
TITLE = "[data-testid='stMain'] h1"  # every page starts with its title
# An element each dashboard tab draws once its (lazy) body has run.
TAB_READY = {
    "Coverage": ".st-key-dash_cov_runs", "Compare": ".st-key-dash_baseline",
    "Worst queries": ".st-key-dash_worst_measure", "Failure tags": ".st-key-dash_tag_chart",
    "History": ".st-key-dash_history_set",
}
NEW_TITLE = """([selector, before]) => {
    const title = document.querySelector(selector);
    return title !== null && title.innerText !== before;
}"""


@pytest.fixture
def hostile_app(serve_workspace, make_workspace):
    workspace = make_workspace.path("demo")
    db = store.open_workspace(workspace)
    hostile.seed(db)
    db.close()
    return serve_workspace(workspace)


class Visit:
    """One browser page on the app, with every request it made."""

    def __init__(self, page, wait_idle, origin: str) -> None:
        self.page, self.wait_idle, self.origin = page, wait_idle, origin
        self.requests: list[str] = []
        self.sockets: list[str] = []
        self.shown: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("websocket", lambda socket: self.sockets.append(socket.url))

    def start(self) -> None:
        self.page.goto(self.origin)
        self.page.locator(TITLE).first.wait_for()
        self.wait_idle(self.page)
        self.check("home")

    def act(self, action: Callable[[], None], where: str,
            ready: Callable[[], object] | None = None) -> None:
        """Do ``action``, wait until ``ready`` (what the resulting run draws) and the app is
        idle, then check the page. (Waiting for idle alone can pass before the run starts.)"""
        action()
        if ready is not None:
            ready()
        self.wait_idle(self.page)
        self.check(where)

    def check(self, where: str) -> None:
        state = self.page.evaluate(PROBE, hostile.EVIL)
        assert state["injected"] == "undefined", where
        for key in ("fetching", "links", "handlers"):
            assert state[key] == [], (where, key, state[key])
        assert state["scripts"] == 0, where
        if state["shown"]:
            self.shown.append(where)
        if os.environ.get("SCORECARD_SCREENSHOT_DIR"):
            name = where.replace("/", "_").replace(" ", "_").replace(":", "")
            self.page.screenshot(
                path=os.path.join(os.environ["SCORECARD_SCREENSHOT_DIR"], f"hostile-{name}.png"))

    def open(self, href: str) -> str:
        """Open a page through the navigation; return its name (file stem, ``home``)."""
        name = urlsplit(href).path.strip("/") or "home"
        here = urlsplit(self.page.url)  # its query holds ?annotator=...
        if f"{here.scheme}://{here.netloc}{here.path}".rstrip("/") == href.rstrip("/"):
            self.check(name)  # already there
            return name
        before = self.page.locator(TITLE).first.inner_text()
        link = self.page.locator(f"[data-testid='stSidebarNav'] a[href='{href}']")
        self.act(link.click, name,
                 lambda: self.page.wait_for_function(NEW_TITLE, arg=[TITLE, before]))
        return name

    def tab(self, name: str, where: str) -> None:
        self.act(self.page.get_by_role("tab", name=name).click, where,
                 self.page.locator(TAB_READY[name]).first.wait_for)

    def choose(self, key: str, value: str, where: str,
               ready: Callable[[], object] | None = None) -> None:
        box = self.page.locator(f".st-key-{key} input").first
        # In the middle of the viewport, as a person scrolls to it: a selectbox cut by the
        # viewport's bottom edge (the drill-down's, since the Dashboard's layout changed) does
        # not open its list when typed into, so Enter would choose nothing.
        box.evaluate("(e) => e.scrollIntoView({block: 'center'})")
        box.fill(value)
        # Click the listed option once the list has filtered: Enter pressed before it has
        # (a loaded machine) chooses whichever option was first, not ``value``.
        option = self.page.get_by_role("option", name=value, exact=True).first
        option.wait_for()
        self.act(option.click, where, ready)

    def outside(self) -> list[str]:
        """Requests to any origin but the app's, and web sockets to any host but the app's. A
        ``blob:`` URL is data the page made itself (a component's script): it counts as the
        origin it names."""
        host = urlsplit(self.origin).netloc

        def origin(url: str) -> str:
            parts = urlsplit(url.removeprefix("blob:"))
            return f"{parts.scheme}://{parts.netloc}"

        return [url for url in self.requests if origin(url) != self.origin
                ] + [url for url in self.sockets if urlsplit(url).netloc != host]


def test_hostile_text_is_text_and_nothing_leaves_the_machine(browser, hostile_app, wait_idle):
    context = browser.new_context(viewport={"width": 1280, "height": 1400},
                                  accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit = Visit(page, wait_idle, hostile_app)
    visit.start()
    name = page.locator("[data-testid='stSidebar'] input[aria-label='Annotator']")
    name.fill(hostile.ANNOTATORS[0])  # typed names are untrusted too
    visit.act(partial(name.press, "Enter"), "home, named")

    links = page.locator("[data-testid='stSidebarNav'] a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) >= 10, hrefs
    for href in hrefs:
        stem = visit.open(href)
        if stem == "dashboard":
            visit.choose("dash_run", hostile.RUN, "dashboard: hostile run")  # on the first tab
            for tab in DASHBOARD_TABS[1:]:
                visit.tab(tab, f"dashboard: {tab}")
            visit.tab("Worst queries", "dashboard: Worst queries again")
            drilled = page.get_by_text(f"Query {hostile.QUERY}").first.wait_for
            visit.choose("dash_drill_query", hostile.QUERY, "dashboard: drill-down", drilled)
        if stem == "data":
            upload = page.locator(".st-key-upload_chunks_0 input[type='file']")
            bad_file = {"name": hostile.FILE_NAME, "mimeType": "text/csv",
                        "buffer": b'id,text\nc1,"never closed\n'}
            file_part = hostile.FILE_NAME.split("//")[1]  # text free of the word joiner
            chip = page.locator(".st-key-upload_chunks_0 [data-testid='stFileChip']"
                                f"[aria-label^='{hostile.FILE_NAME}']")
            visit.act(partial(upload.set_input_files, files=[bad_file]), "data: file chosen",
                      chip.first.wait_for)
            message = page.locator("[data-testid^='stAlertContent']", has_text=file_part)
            visit.act(page.get_by_role("button", name="Import chunks").click, "data: bad upload",
                      message.first.wait_for)
            with page.expect_download() as download:
                page.get_by_role("button", name="Judgments (CSV)").click()
            exported = Path(download.value.path()).read_text(encoding="utf-8")

    assert visit.outside() == []
    assert len(visit.requests) > 20  # the recorder saw the page load: scripts, fonts, media
    assert visit.sockets  # and the app's own web socket
    # where the hostile text is page text (elsewhere it sits in tables, drawn on a canvas)
    for where in ("home", "label", "judge_by_query", "review",
                  "dashboard: drill-down", "data: bad upload"):
        assert where in visit.shown, (where, visit.shown)
    # the judgments export carries the text verbatim, and a formula as text
    assert hostile.SCRIPT in exported
    assert "'" + hostile.FORMULA.replace('"', '""') in exported
    context.close()
