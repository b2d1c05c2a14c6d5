"""In a real browser (1280 px wide, the Europe/Berlin time zone): the Chunking page's chunk-set
table shows a chunk set's time as people read it, hovering it shows the exact time (the
``title`` of a ``<time>`` element), and a chunk-set name made of HTML, a script and markdown
shows as that text: no image, no script run."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from labeling.workspace import chunk_sets, roles, store
from tests import hostile

pytestmark = pytest.mark.e2e

ZONE = "Europe/Berlin"
NAME = f"{hostile.IMG_TAG}{hostile.SCRIPT} **bold** {hostile.FORMULA}"
TABLE = ".st-key-chunk_sets_table"  # the element Streamlit draws for the table's key


@pytest.fixture
def hostile_set(make_workspace, serve_workspace) -> tuple[str, datetime]:
    """The demo with one more chunk set, named ``NAME``, made two hours ago; (URL, when)."""
    workspace = make_workspace.path("demo")
    made = (datetime.now(UTC) - timedelta(hours=2)).replace(microsecond=0)
    db = store.open_workspace(workspace)
    with roles.acting_as(None), store.write_transaction(db) as conn:
        chunk_sets.insert_chunk_set(conn, NAME, "hostile", 100, 0, None, made.isoformat())
    db.close()
    return serve_workspace(workspace), made


def test_a_time_shows_its_exact_time_on_hover_and_names_stay_text(browser, hostile_set,
                                                                   wait_idle) -> None:
    url, made = hostile_set
    context = browser.new_context(viewport={"width": 1280, "height": 1400}, timezone_id=ZONE)
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{url}/chunking")
        wait_idle(page)
        row = page.locator(f"{TABLE} tbody tr").filter(has_text="hostile")  # the splitter
        time = row.locator("time")
        time.hover()
        here = made.astimezone(ZoneInfo(ZONE))
        assert time.get_attribute("title") == (
            f"{made.isoformat()} ({here:%Y-%m-%d %H:%M:%S} {ZONE})")
        assert time.get_attribute("datetime") == made.isoformat()
        readable = time.inner_text()
        assert re.fullmatch(r"(today|yesterday) \d\d:\d\d", readable), readable
        assert readable.endswith(f"{here:%H:%M}")
        assert not page.locator(f"{TABLE} th").filter(has_text="(exact)").count()

        assert row.locator("td").first.inner_text() == NAME
        assert page.locator(f"{TABLE} img, {TABLE} script, {TABLE} strong").count() == 0
        assert page.evaluate("typeof window.__injected") == "undefined"
    finally:
        context.close()
