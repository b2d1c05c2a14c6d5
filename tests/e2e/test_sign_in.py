"""Sign-in in a real browser, on a server of its own whose workspace has accounts.

- Failed sign-ins pause the name in every browser session: the count survives a reload and a
  new browser context (no cookie, no Streamlit session in common).
- A sign-in survives a reload and a new tab of the same browser (the HttpOnly session cookie),
  and a sign-out in one tab ends the other tab's session on its next interaction.
- A viewer finds no enabled write control on any page: buttons, segmented controls, file
  uploaders, and the cells of the data editor.

The lockout checks run well inside the first pause
(``labeling.workspace.lockout.FIRST_PAUSE_SECONDS``,
60 s): a reload and one new browser context take a few seconds here.
"""

from __future__ import annotations

import pytest

from labeling.judging import pooling
from labeling.synthetic import batches
from labeling.workspace import contents, lockout, store
from pages import _auth

pytestmark = pytest.mark.e2e

ACCOUNTS = {"ada": "admin", "bob": "annotator", "vic": "viewer", "lou": "annotator"}
SIGNED_IN = "[data-testid='stSidebar'] [data-testid='stText']"
# Enabled controls a viewer may use: they write nothing to the workspace (keys by prefix).
READ_ONLY_CONTROLS = (
    "sign_out", "label_back", "review_previous", "review_next", "review_mode", "sim_", "guide_",
    "label_toggle_", "grid_next", "grid_previous", "grid_search", "grid_guideline",
)
DASHBOARD_TABS = ["Scorecard", "Coverage", "Compare", "Worst queries", "Failure tags", "History"]
# Every page by URL path, with what its render shows once done (so the walk never looks at a
# page still drawing). A page missing here fails the walk: add it.
PAGES = {
    "": "h1", "label": ".st-key-label_grade_2 button",
    "judge_by_query": "[class*='st-key-jbq_card_'] [data-testid=stButtonGroup] button",
    "agreement": ".st-key-rejudge_go button", "review": ".st-key-review_accept button",
    "dashboard": "[role=tab]", "queries": "[class*='st-key-queries_editor'] [role=gridcell]",
    "data": ".st-key-import_run button", "guide": "h1", "simulator": "h1",
    "machine_judges": "h1", "chunking": "h1",
}
# An element drawn before its content arrives is a skeleton placeholder.
NO_PLACEHOLDER = "() => !document.querySelector('[data-testid=stSkeleton]')"
ENABLED_CONTROLS = """() => {
  const keyOf = (element) => {
    const box = element.closest('[class*="st-key-"]');
    const name = box && [...box.classList].find((c) => c.startsWith('st-key-'));
    return name ? name.slice('st-key-'.length) : 'no key: ' + element.innerText;
  };
  // A file uploader's control is its Upload button (the dropzone's hidden input carries no
  // disabled attribute; the dropzone ignores it when disabled).
  const selector = ['[data-testid=stButton] button', '[data-testid=stFormSubmitButton] button',
    '[data-testid=stButtonGroup] button',
    '[data-testid=stFileUploader] button[data-testid^=stBaseButton]'].join(', ');
  const controls = [...document.querySelectorAll(selector)]
    .filter((c) => !c.closest('[data-testid=stTooltipIcon]'));  // a label's help icon
  return {enabled: controls.filter((c) => !c.disabled).map(keyOf),
          disabled: controls.filter((c) => c.disabled).map(keyOf)};
}"""


def password(name: str) -> str:
    return f"{name}-password-1"


@pytest.fixture
def accounts_server(serve_workspace, make_workspace):
    """The app serving this test's own workspace: an admin, an annotator, a viewer and ``lou``
    (whose sign-in the lockout test pauses; the failures also count against the loopback
    address, so no other test may share the file), a labeling queue and synthetic questions."""
    workspace = make_workspace.path(
        "demo", accounts={name: (role, password(name)) for name, role in ACCOUNTS.items()}
    )
    db = store.open_workspace(workspace)
    pooling.build_pool(db, contents.run_names(db))
    batches.run(db, 2, seed=1)
    db.close()
    return serve_workspace(workspace)


def open_page(context, url: str, wait_idle):
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    wait_idle(page)
    return page


def new_context(browser):
    return browser.new_context(viewport={"width": 1280, "height": 1400})


def attempt(page, name: str, secret: str, wait_idle) -> str:
    """Submit the sign-in form: the message shown, or "" when it signed in."""
    page.get_by_role("textbox", name="Name").fill(name)
    page.get_by_role("textbox", name="Password").fill(secret)
    page.get_by_role("button", name="Sign in").click()
    # Done when the app has emptied the password field (a refusal) or left the form.
    page.wait_for_function(
        "() => { const box = document.querySelector('input[type=password]');"
        " return !box || box.value === ''; }"
    )
    wait_idle(page)
    if page.locator(SIGNED_IN).count():
        return ""
    return page.locator("[data-testid='stAlert']").last.inner_text().strip()


def signed_in_as(page) -> str | None:
    """The "name · role" line of the sidebar, or None on the sign-in form."""
    line = page.locator(SIGNED_IN)
    return line.first.inner_text() if line.count() else None


def session_cookies(context) -> list[dict]:
    return [c for c in context.cookies() if c["name"].startswith("scorecard_")]


def is_cookie_request(method: str):
    return lambda response: (
        _auth.SESSION_ROUTE in response.url and response.request.method == method
    )


def sign_in(page, name: str, wait_idle) -> None:
    """Sign in and wait until the browser holds the session cookie."""
    with page.expect_response(is_cookie_request("POST")) as handed:
        assert attempt(page, name, password(name), wait_idle) == ""
    assert handed.value.status == 204


def test_lockout_survives_a_reload_and_a_new_browser_session(browser, accounts_server,
                                                             wait_idle):
    context = new_context(browser)
    page = open_page(context, accounts_server, wait_idle)
    for _ in range(lockout.ACCOUNT_LIMIT):
        assert attempt(page, "lou", "wrong-password", wait_idle) == "Wrong name or password."
    paused = "Too many failed sign-ins for this name: try again in"
    assert attempt(page, "lou", password("lou"), wait_idle).startswith(paused)
    page.reload()
    wait_idle(page)
    assert attempt(page, "lou", password("lou"), wait_idle).startswith(paused)
    other = new_context(browser)  # no cookie and no Streamlit session in common
    assert attempt(open_page(other, accounts_server, wait_idle), "lou", password("lou"),
                   wait_idle).startswith(paused)
    assert signed_in_as(page) is None
    other.close()
    context.close()


def test_a_session_survives_a_reload_and_a_new_tab(browser, accounts_server, wait_idle):
    context = new_context(browser)
    page = open_page(context, accounts_server, wait_idle)
    sign_in(page, "bob", wait_idle)
    assert signed_in_as(page) == "bob · annotator"
    (cookie,) = session_cookies(context)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert not cookie["secure"]  # served over plain HTTP here; Secure over HTTPS
    assert cookie["name"] not in page.evaluate("document.cookie")  # scripts cannot read it
    page.reload()
    wait_idle(page)
    assert signed_in_as(page) == "bob · annotator"
    tab = open_page(context, f"{accounts_server}/data", wait_idle)
    assert signed_in_as(tab) == "bob · annotator"
    assert tab.get_by_role("heading", name="Data").count() == 1
    context.close()


def test_a_sign_out_ends_every_tab(browser, accounts_server, wait_idle):
    context = new_context(browser)
    first = open_page(context, accounts_server, wait_idle)
    sign_in(first, "bob", wait_idle)
    second = open_page(context, f"{accounts_server}/data", wait_idle)
    assert signed_in_as(second) == "bob · annotator"
    with first.expect_response(is_cookie_request("DELETE")) as dropped:
        first.get_by_role("button", name="Sign out").click()
        first.get_by_role("button", name="Sign in").wait_for()
    assert dropped.value.status == 204
    assert not session_cookies(context)
    # The other tab still shows the Data page; its next interaction finds the session ended.
    assert signed_in_as(second) == "bob · annotator"
    second.get_by_role("link", name="Overview").click()
    second.get_by_role("button", name="Sign in").wait_for()
    wait_idle(second)
    assert "Your session has ended" in second.locator("[data-testid='stAlert']").inner_text()
    second.reload()
    wait_idle(second)
    assert signed_in_as(second) is None
    context.close()


def _settle(page, wait_idle) -> None:
    """Wait until the script is done and every element has its content."""
    wait_idle(page)
    page.wait_for_function(NO_PLACEHOLDER)


def _open_expanders(page, wait_idle) -> None:
    closed = page.locator("[data-testid='stExpander'] details:not([open]) summary")
    for _ in range(closed.count()):  # each click opens one: the list shrinks
        closed.first.click()
    _settle(page, wait_idle)


def _editable_cells(page) -> int:
    """How many cells of the Queries data editor take input: the grid's accessible table marks
    each cell ``aria-readonly`` true or false."""
    grid = "[class*='st-key-queries_editor'] [role=gridcell]"
    page.locator(grid).first.wait_for(state="attached")
    assert page.locator(f"{grid}[aria-readonly]").count() == page.locator(grid).count()
    return page.locator(f"{grid}[aria-readonly=false]").count()


def _views(page, path: str, wait_idle):
    """Show each view of the page at ``path`` in turn (dashboard tabs, review modes); yields
    the view's name once it is drawn."""
    if path == "dashboard":
        for tab in DASHBOARD_TABS:
            page.get_by_role("tab", name=tab).click()
            # A tab draws only when open: wait until its panel has content.
            panel = page.locator("[role=tabpanel]:visible [data-testid=stElementContainer]")
            panel.first.wait_for()
            _settle(page, wait_idle)
            yield tab
    elif path == "review":
        yield "One at a time"
        page.locator(".st-key-review_mode button", has_text="Table").click()
        page.locator(".st-key-batch_accept button").first.wait_for()
        _settle(page, wait_idle)
        yield "Table"
    else:
        yield ""


def test_a_viewer_sees_no_enabled_write_control(browser, accounts_server, wait_idle):
    context = new_context(browser)
    page = open_page(context, accounts_server, wait_idle)
    sign_in(page, "vic", wait_idle)
    links = page.locator("[data-testid='stSidebarNav'] a")
    paths = [links.nth(i).get_attribute("href").removeprefix(accounts_server + "/")
             for i in range(links.count())]
    assert sorted(paths) == sorted(PAGES), "walk every page: add new ones to PAGES"
    enabled: dict[str, list[str]] = {}
    disabled: set[str] = set()
    for path in paths:
        page.goto(f"{accounts_server}/{path}")  # a new page load: the cookie signs it in
        page.locator(PAGES[path]).first.wait_for(state="attached")
        _settle(page, wait_idle)
        assert signed_in_as(page) == "vic · viewer", path
        for view in _views(page, path, wait_idle):
            _open_expanders(page, wait_idle)
            found = page.evaluate(ENABLED_CONTROLS)
            disabled.update(found["disabled"])
            writes = [key for key in found["enabled"] if not key.startswith(READ_ONLY_CONTROLS)]
            if writes:
                enabled[f"/{path} {view}"] = writes
        if path == "queries":
            assert _editable_cells(page) == 0
    assert not enabled, f"enabled write controls for a viewer: {enabled}"
    # The walk saw the write controls (disabled), so it did look where they are. (Adjudication
    # is absent, not disabled: the blind rule shows a viewer no disagreement to adjudicate.)
    expected = {"pool_build", "overlap_save", "label_grade_2", "label_skip", "label_undo",
                "rejudge_go", "gen_button", "review_accept", "batch_accept",
                "dash_enqueue", "dash_judge_save", "dash_tag_save", "dash_save_history",
                "dash_lock", "add_query", "save_queries", "assign_split", "import_qrels",
                "upload_qrels_0"}
    assert expected <= disabled, expected - disabled
    assert any(key.startswith("jbq_") for key in disabled), " ".join(sorted(disabled))
    # A disabled control says why.
    page.goto(f"{accounts_server}/data")
    page.locator(PAGES["data"]).first.wait_for(state="attached")
    wait_idle(page)
    page.locator(".st-key-import_chunks [data-testid='stTooltipHoverTarget']").hover()
    tooltip = page.locator("[data-testid='stTooltipContent']")
    tooltip.wait_for()
    assert "vic is a viewer: importing needs the role admin." in tooltip.inner_text()
    context.close()


def test_an_admin_can_edit_the_cells_the_viewer_cannot(browser, accounts_server, wait_idle):
    """The data editor check above can tell: for an admin the same cell takes input."""
    context = new_context(browser)
    page = open_page(context, accounts_server, wait_idle)
    sign_in(page, "ada", wait_idle)
    page.get_by_role("link", name="Queries").click()
    wait_idle(page)
    assert _editable_cells(page) > 0
    context.close()
