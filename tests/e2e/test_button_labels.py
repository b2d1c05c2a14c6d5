"""Browser check: at a 1280-pixel-wide window no button label on any page is cut off (issue 33:
"Find in the co…"), nor the label of a page link drawn as a button ("What these mean"). A label
is cut when the button or link, or an element inside it, holds more than it shows
(scrollWidth > clientWidth)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

PAGES = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "pages").glob("*.py")
               if not p.stem.startswith("_"))
# The text of every button whose label does not fit, with the widths seen.
CUT_LABELS = """() => {
  const cut = [];
  const labelled = "[data-testid='stApp'] button, "
    + "[data-testid='stMain'] [data-testid='stPageLink'] a";
  for (const button of document.querySelectorAll(labelled)) {
    if (!button.innerText.trim() || button.offsetParent === null) continue;
    for (const el of [button, ...button.querySelectorAll('*')]) {
      // Elements a few pixels wide are screen-reader text or icon glyphs, not the label.
      if (el.clientWidth > 4 && el.scrollWidth > el.clientWidth + 1) {
        cut.push(`${button.innerText.trim()} (${el.scrollWidth} > ${el.clientWidth})`);
        break;
      }
    }
  }
  return cut;
}"""


@pytest.fixture
def queued_app(make_workspace, serve_workspace):
    """The app on the demo as shipped (its queue filled), so the Label page shows a card."""
    return serve_workspace(make_workspace.path("demo-with-queue"))


def test_no_button_label_is_cut_at_1280_pixels(browser, queued_app, wait_idle):
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(60_000)
    cut = {}
    try:
        for stem in PAGES:
            page.goto(f"{queued_app}/{'' if stem == 'home' else stem}?annotator=layout")
            wait_idle(page)
            page.locator("[data-testid='stMain'] h1").first.wait_for()
            found = page.evaluate(CUT_LABELS)
            if found:
                cut[stem] = found
    finally:
        context.close()
    assert not cut, cut
