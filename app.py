"""Retrieval Scorecard: the Streamlit app. Run with ``scorecard app`` (installed, or in a
checkout), or ``streamlit run app.py`` in a checkout.

The workspace is ``$SCORECARD_WORKSPACE`` (``scorecard app --workspace`` sets it; default
``workspace/scorecard.db`` in the checkout); when the file does not exist the demo workspace is
built there first. The wheel installs this file, ``pages/`` and ``.streamlit/`` as the package
``scorecard_app`` (see ``labeling.product_files``).
Every ``pages/*.py`` not starting with ``_`` is a page; known pages come first, in this order.

This file is read twice. ``streamlit run app.py`` finds the ``st.App`` below and imports the
file as the module ``app`` to serve it: Streamlit's server plus the route that sets the session
cookie (``pages._auth.routes``), which a websocket message cannot do. For every browser session
Streamlit then runs the same file as ``__main__``: the pages.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from pages import _auth, _common, _warmup

PAGES_DIR = Path(__file__).resolve().parent / "pages"
# file stem -> (title, icon); pages not listed here follow, alphabetically, with default titles.
KNOWN_PAGES = {
    "home": ("Overview", ":material/home:"),
    "label": ("Label", ":material/rule:"),
    "judge_by_query": ("Judge by query", ":material/checklist:"),
    "agreement": ("Agreement", ":material/group:"),
    "review": ("Review", ":material/fact_check:"),
    "dashboard": ("Dashboard", ":material/monitoring:"),
    "machine_judges": ("Machine judges", ":material/smart_toy:"),
    "queries": ("Queries", ":material/search:"),
    "data": ("Data", ":material/database:"),
    "chunking": ("Chunking", ":material/splitscreen:"),
    "guide": ("Metric guide", ":material/menu_book:"),
    "simulator": ("Metric simulator", ":material/tune:"),
}


def page_list() -> list[st.Page]:
    stems = sorted(p.stem for p in PAGES_DIR.glob("*.py") if not p.stem.startswith("_"))
    ordered = [s for s in KNOWN_PAGES if s in stems] + [s for s in stems if s not in KNOWN_PAGES]
    pages = []
    for stem in ordered:
        title, icon = KNOWN_PAGES.get(stem, (stem.replace("_", " ").capitalize(), None))
        pages.append(
            st.Page(f"pages/{stem}.py", title=title, icon=icon, default=stem == "home")
        )
    return pages


if __name__ == "__main__":  # a browser session's run (AppTest runs it the same way)
    st.set_page_config(page_title=_common.PAGE_TITLE, page_icon=_common.PAGE_ICON, layout="wide")
    st.session_state[_common.THROUGH_APP_KEY] = True
    # Each page starts with _common.page_setup() (workspace, demo build, sign-in, sidebar).
    st.navigation(page_list()).run()
else:  # imported by `streamlit run` to serve the app
    app = st.App(__file__, routes=_auth.routes())
    # Every session runs this file (its st.navigation picks the page from the address). Left
    # unset, Streamlit sees the pages/ folder and serves a fresh server's first request for a
    # page address from the page file alone, which then reruns through here (_common.page_setup):
    # one whole extra run of that page, imports included, before its first render.
    PagesManager.uses_pages_directory = False
    _warmup.start()  # the pages' libraries load while the server waits for its first browser
