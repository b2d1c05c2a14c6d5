"""What the judging pages (Label, Judge by query, the dashboard's judge form) show around a pair:
the chunk as its author wrote it with the query's terms marked, the query's narrative, the
chunks around it in its document, the workspace's guideline, and toggles opened by a key.

All text is user text: it is drawn through ``labeling.chunk_markup`` (a safe markdown subset)
or ``labeling.markdown`` escaping, never as markup of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlite_utils
import streamlit as st

from labeling import chunk_markup, escape_inline, escape_markdown
from labeling.judging import guideline
from labeling.workspace import contents


def chunk_text(text: str, query: str, evidence: Sequence[chunk_markup.Mark] = ()) -> None:
    """A chunk's text in the safe markdown subset, the query's terms marked, and ``evidence``
    (marks of where the answer is) over them."""
    marks = [*evidence, *chunk_markup.term_marks(text or "", query)]  # evidence wins overlaps
    st.markdown(chunk_markup.render(text, sorted(marks, key=lambda m: m.start)))


def narrative(text: str | None) -> None:
    """The query's narrative (what the person asking wants to know), when it has one."""
    if text and text.strip():
        st.caption("What the person asking wants to know")
        with st.container(border=True, key="narrative"):
            st.markdown(escape_markdown(text))


def toggle(state_key: str, label: str, widget_key: str, shortcut: str | None = None) -> bool:
    """A button that opens and closes a panel (its state in ``state_key``); True when open."""
    state = st.session_state

    def flip() -> None:
        state[state_key] = not state.get(state_key, False)

    shown = f"{label} ({shortcut})" if shortcut else label
    st.button(escape_inline(shown), key=widget_key, on_click=flip, shortcut=shortcut,
              type="primary" if state.get(state_key) else "secondary", width="stretch")
    return bool(state.get(state_key))


def context_panel(db: sqlite_utils.Database, chunk_id: str, query: str) -> None:
    """The chunk's document (title, place) and the chunks just before and after it."""
    around = contents.neighbours(db, chunk_id, around=1)
    with st.container(border=True, key="chunk_context"):
        if not around.doc_id:
            st.caption("This chunk has no document id: no neighbouring chunks to show.")
            return
        st.caption(escape_inline(
            f"Document {around.doc_id} · {around.title or 'untitled'} · chunk "
            f"{around.position} of {around.chunks}"))
        for side, items in (("Before", around.before), ("After", around.after)):
            for neighbour_id, title, text in items:
                st.caption(escape_inline(f"{side} · {neighbour_id}" + (f" · {title}" if title
                                                                        else "")))
                chunk_text(text, query)
        if not around.before and not around.after:
            st.caption("The document has no other chunk.")


def guideline_panel(db: sqlite_utils.Database, scale: list[tuple[int, str, str]]) -> None:
    """The workspace's judging guideline and what each grade means."""
    with st.container(border=True, key="judging_guideline"):
        text = guideline.guideline(db)
        if text:
            st.markdown(chunk_markup.render(text))
            st.caption(escape_inline(f"Saved by {guideline.saved_by(db)}"))
        else:
            st.caption("No judging guideline yet: an admin writes one on the Label page "
                       "(Build the queue).")
        for grade, name, meaning in scale:
            st.markdown(escape_inline(f"{grade} {name}") + (": " + escape_inline(meaning)
                                                            if meaning else ""))
