"""Streamlit-only helpers shared by the pages: page setup, the sidebar, the annotator, messages.

The pages take the session's workspace connection from here (``get_db``); it lives in
``pages._workspace``, which the sign-in module ``pages._auth`` uses too, so that neither of the
two imports this module.
"""

from __future__ import annotations

import logging
import os

import pandas as pd
import sqlite_utils
import streamlit as st

from labeling import describe_failure, escape_markdown, readable_times
from labeling.judging import visibility
from labeling.workspace import contents, roles
from pages import _auth, _keys, _time_table
from pages._workspace import get_db, workspace_path

ANNOTATOR_INPUT_KEY = "annotator_input"
# The annotator name in the page address (``?annotator=...``), so that it survives a reload in a
# workspace without accounts (a signed-in session uses the account name and no parameter).
NAME_PARAM = "annotator"
NAME_CHARS = 100
FLASH_KEY = "_flash"
THROUGH_APP_KEY = "_through_app"  # set by app.py on every run
PAGE_TITLE = "Retrieval Scorecard"
# An emoji favicon is drawn by the browser itself; a Material icon favicon (the default when
# pages have ``:material/...:`` icons) is fetched from a font host outside the machine.
PAGE_ICON = "📊"
# Tables up to this many rows show each exact time on hover (``dataframe``); longer ones are
# st.dataframe, whose virtual scrolling draws only the rows in view.
HOVER_ROWS = 300

log = logging.getLogger("scorecard.app")


def annotator() -> str:
    """The annotator name typed in the sidebar ('' when none)."""
    return str(st.session_state.get(_auth.ANNOTATOR_KEY) or "").strip()


def sight(db: sqlite_utils.Database, query_id: str | None = None) -> visibility.Sight:
    """What this session may see of other people's grades (``labeling.judging.visibility``; of one
    query's pairs when ``query_id`` is given): the signed-in account with its role, else (no
    accounts) the local user."""
    account = _auth.user()
    return visibility.sight(db, account or annotator(), roles.role_of(db, account),
                            query_id=query_id)


def page_setup() -> sqlite_utils.Database:
    """Start of every page: page config, the workspace (built if missing), the sidebar.

    Pages call this themselves rather than relying on ``app.py``: Streamlit runs a page file
    directly (without ``app.py``) when a session's first request names a page of ``pages/``,
    and AppTest does so on every rerun after the first.
    """
    if not st.session_state.get(THROUGH_APP_KEY):
        # A fresh server's first request for a page URL runs the page file alone: Streamlit
        # stays in its pages-folder mode until some run calls st.navigation. Leave that mode
        # and run again, through app.py, so the app's navigation shows.
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
        st.session_state[THROUGH_APP_KEY] = True
        st.rerun()
    st.set_page_config(page_title=PAGE_TITLE, page_icon=PAGE_ICON, layout="wide")
    try:
        db = get_db()
    except Exception as error:  # a workspace that cannot be opened: one sentence, no traceback
        message = failure_sentence(error, "opening the workspace")
        st.error(escape_markdown(f"The workspace cannot be opened. {message}"))
        st.stop()
    _auth.sign_in(db)  # stops the page until signed in when the workspace has accounts
    sidebar(db)
    return db


def sidebar(db: sqlite_utils.Database) -> None:
    """Workspace path and counts, and the annotator name (kept in session state and, without
    accounts, in the page address; signed in, the account name, and no name field)."""
    counts = contents.counts(db)
    with st.sidebar:
        st.caption("Workspace")
        # Plain text, not st.code: a code block loads the browser's 1.5 MB syntax highlighter on
        # every page's first render (benchmarks/results/first_render_profile.md).
        st.text(str(workspace_path()))
        st.caption(contents.describe_counts(counts, " · "))
        _keys.install()
        state = st.session_state
        if _auth.user() is not None:  # signed in: labels go under the account name
            if NAME_PARAM in st.query_params:
                del st.query_params[NAME_PARAM]
            return
        if _auth.ANNOTATOR_KEY not in state:
            state[_auth.ANNOTATOR_KEY] = _clean_name(
                st.query_params.get(NAME_PARAM) or os.environ.get("SCORECARD_ANNOTATOR", ""))
        # Widget state does not survive a page switch (pages render the sidebar themselves),
        # so the name lives in a plain session key and the input is refilled from it.
        state[ANNOTATOR_INPUT_KEY] = state[_auth.ANNOTATOR_KEY]
        st.text_input(
            "Annotator", key=ANNOTATOR_INPUT_KEY, placeholder="your name",
            help="Labels you add are recorded under this name; it stays in the page address, "
            "so a reload keeps it.", on_change=_keep_annotator, max_chars=NAME_CHARS,
        )
        _name_in_address(state[_auth.ANNOTATOR_KEY])


def _clean_name(name: object) -> str:
    return str(name or "").strip()[:NAME_CHARS]


def _name_in_address(name: str) -> None:
    """Keep ``?annotator=`` equal to the name (a page switch may drop the parameter)."""
    if name and st.query_params.get(NAME_PARAM) != name:
        st.query_params[NAME_PARAM] = name
    elif not name and NAME_PARAM in st.query_params:
        del st.query_params[NAME_PARAM]


def _keep_annotator() -> None:
    st.session_state[_auth.ANNOTATOR_KEY] = _clean_name(st.session_state[ANNOTATOR_INPUT_KEY])


def time_zone() -> str | None:
    """The browser's IANA time zone (None before the browser said it): readable times use it."""
    try:
        return st.context.timezone
    except Exception:  # no browser context (a bare script run)
        return None


def dataframe(frame: pd.DataFrame, key: str, **options) -> None:
    """A read-only table with timestamps (columns named ``*_at``) as people read them ("today
    14:02", "3 days ago", in the browser's time zone).

    Up to ``HOVER_ROWS`` rows it is the time table (``pages._time_table``): hovering a time shows
    the exact time, and there is no other column for it; ``options`` are for ``st.dataframe``
    and unused there. A longer table is ``st.dataframe`` (``options`` passed on; it sorts,
    searches and scrolls many rows without sending each cell as page elements), where a cell
    cannot have a tooltip: the exact time is then in a column beside
    (``readable_times.readable_frame``) and the header's tooltip says so. A table with no time
    column is always ``st.dataframe``.
    """
    if len(frame) <= HOVER_ROWS and any(map(readable_times.is_time_column, frame.columns)):
        _time_table.time_table(readable_times.hover_table(frame, time_zone()), key)
        return
    shown, helps = readable_times.readable_frame(frame, time_zone())
    config = {column: st.column_config.TextColumn(help=text) for column, text in helps.items()}
    config.update(options.pop("column_config", None) or {})
    st.dataframe(shown, key=key, column_config=config, **options)


def judging_as(key: str) -> str:
    """Who is judging, said on the page: "Judging as NAME" (and where to change it), or, with no
    name yet, a name field right here that starts judging when filled (the same name as the
    sidebar's). Returns the name ('' while none is typed)."""
    name = annotator()
    if name:
        where = "signed in" if _auth.user() is not None else "change it in the sidebar"
        st.caption(f"Judging as **{escape_markdown(name)}** ({where}).")
        return name
    st.text_input(
        "Who is judging? Type your name to start", key=key, placeholder="your name",
        max_chars=NAME_CHARS, on_change=_keep_page_name, args=(key,),
        help="Every judgment records this name; it is the sidebar's Annotator field too.",
    )
    return ""


def _keep_page_name(key: str) -> None:
    st.session_state[_auth.ANNOTATOR_KEY] = _clean_name(st.session_state.get(key))


def flash(kind: str, message: str, where: str) -> None:
    """Queue a message (success / info / warning / error; plain text, ``show_flash`` escapes
    it) for ``where`` to show on the next render."""
    st.session_state.setdefault(FLASH_KEY, {}).setdefault(where, []).append((kind, message))


def show_flash(where: str) -> None:
    """Show and forget the queued messages of ``where``. Messages are plain text (they quote
    names, ids, file names and error text, all untrusted): they are escaped here, never as
    they are queued."""
    for kind, message in st.session_state.get(FLASH_KEY, {}).pop(where, []):
        show = {"success": st.success, "info": st.info, "warning": st.warning,
                "error": st.error}[kind]
        show(escape_markdown(message))


def failure_sentence(error: Exception, where: str) -> str:
    """A failure as one sentence (``labeling.errors.describe_failure``); an unexpected one is
    logged with its traceback under the reference the sentence gives."""
    message, reference = describe_failure(error)
    if reference is not None:
        log.error("unexpected error in %s (reference %s)", where, reference, exc_info=error)
    return message


def report_failure(error: Exception, where: str) -> None:
    """Queue a failure for ``where`` as one sentence (``failure_sentence``)."""
    flash("error", failure_sentence(error, where), where)
