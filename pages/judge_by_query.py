"""Judge by query: one query with all its queued chunks, a keyboard grid (blind: the chunks are
listed by id, not in any run's order).

Keys: J or the down arrow moves to the next row, K or the up arrow to the previous one, a digit
grades the current row (the keypad's too) and moves on; F opens the corpus search, G the
guideline. The mouse grades any row in place. Every row starts with no grade for a pair the
person has not judged.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling import escape_inline, escape_markdown
from labeling.judging import pooling, queue, shortcuts
from labeling.workspace import grading, query_store
from pages import _auth, _common, _evidence, _judging, _keys, _search

WHERE = "judge_by_query"
SAVED = "jbq_saved"  # (query id, chunk id) -> grade saved in this session, for the row's note
PANELS = {"jbq_show_search": "search", "jbq_show_guideline": "guideline"}
EVIDENCE = "jbq_evidence_step"  # the answer to pick after a relevant grade (pages/_evidence)


def row_key(query_id: str) -> str:
    """Session key of the current row of a query's grid."""
    return f"jbq_row::{query_id}"


def _save(query_id: str, chunk_id: str, value: int) -> bool:
    db = _common.get_db()
    try:
        judgment_id = queue.save_judgment(db, query_id, chunk_id, int(value),
                                          _common.annotator())
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return False
    st.session_state.setdefault(SAVED, {})[(query_id, chunk_id)] = int(value)
    if st.session_state.get(_evidence.ASK):  # saved: now ask where the answer is
        _evidence.begin(EVIDENCE, db, judgment_id, (query_id, chunk_id), int(value))
    return True


def grade_in_place(query_id: str, chunk_id: str, widget: str, row: int) -> None:
    value = st.session_state.get(widget)
    if value is None:  # clicking the selected grade again clears the control: no judgment
        return
    if _save(query_id, chunk_id, value):
        st.session_state[row_key(query_id)] = row


def grade_current(query_id: str, chunks: list[str], widgets: list[str], value: int) -> None:
    """Grade the current row with ``value`` (its control shows it) and move to the next row."""
    state = st.session_state
    row = min(state.get(row_key(query_id), 0), len(chunks) - 1)
    if _save(query_id, chunks[row], value):
        state[widgets[row]] = int(value)
        state[row_key(query_id)] = min(row + 1, len(chunks) - 1)


def move(query_id: str, step: int, rows: int) -> None:
    state = st.session_state
    state[row_key(query_id)] = max(0, min(rows - 1, state.get(row_key(query_id), 0) + step))


db = _common.page_setup()
st.title("Judge by query")
name = _common.annotator()
if not name:
    st.info("Type your name in the sidebar to start judging. Every judgment records it.")
    st.stop()

queue_name = st.radio("Queue", list(queue.QUEUES), key="jbq_queue", horizontal=True,
                      format_func=lambda q: "Labeling queue" if q == queue.SHARED
                      else "Audit of machine judges",
                      help="The audit's pairs are served only from its own queue.")
queries = pooling.queries_to_judge(db, queue_name)
if queries.empty:
    st.info("The audit queue is empty: draw an audit sample on the Machine judges page."
            if queue_name == queue.AUDIT else "No queries yet: import them on the Data page.")
    st.stop()
labels = {
    row.query_id: (f"{row.query_id} · {row.complete}/{row.pairs} complete · {row.text[:80]}"
                   if row.pairs else f"{row.query_id} · nothing queued · {row.text[:80]}")
    for row in queries.itertuples()
}
query_id = st.selectbox("Query", list(labels), format_func=labels.get, key="jbq_query")
scale = grading.get_scale(db)
names = {g: n for g, n, _ in scale}
keys = shortcuts.grade_keys(list(names))
may_judge = _auth.can(db, "judge")
query_text = str(queries.set_index("query_id").loc[query_id, "text"])
st.markdown(f"#### {escape_markdown(query_text)}")
_judging.narrative(query_store.narrative(db, query_id))
_common.show_flash(WHERE)
step = st.session_state.get(EVIDENCE)
if step and _evidence.draw(EVIDENCE, "jbq", queue.card_for(db, *step["pair"]).query_text,
                           WHERE):
    st.stop()
_evidence.ask_toggle()

pairs = pooling.pairs_of_query(db, query_id, name, queue_name)
if pairs.empty:  # a new query: no run has returned results for it, nothing is queued
    st.caption("Nothing of this query is in the labeling queue (no run has returned results "
               "for it yet): find chunks in the corpus and judge them here.")
    _search.search_panel(db, query_id, query_text, scale, prefix="jbq_find", where="jbq_find")
    st.stop()
chunks = pairs["chunk_id"].astype(str).tolist()
widgets = [f"jbq_{query_id}_{chunk}" for chunk in chunks]
current = min(st.session_state.get(row_key(query_id), 0), len(chunks) - 1)
mine = int(pairs["my_grade"].notna().sum())
st.progress(mine / len(pairs), text=f"You graded {mine} of {len(pairs)} chunks of this query")

with st.container(border=True, key="grid_toolbar"):
    # Grades on one row, moves and panels on the next: in one row of nine, a 1280-pixel
    # window cut the grade names off.
    columns = st.columns(len(names))
    for column, (value, grade_name) in zip(columns, names.items(), strict=True):
        column.button(
            escape_inline(f"{keys.get(value, '')} · {grade_name}"), key=f"grid_grade_{value}",
            on_click=grade_current, args=(query_id, chunks, widgets, value),
            shortcut=keys.get(value), width="stretch", disabled=not may_judge,
            help=_auth.refusal_help(db, "judge"),
        )
    columns = st.columns(2 + len(PANELS))
    columns[0].button(
        f"{shortcuts.GRID_LABELS['row_previous']} (K ↑)", key="grid_previous", on_click=move,
        args=(query_id, -1, len(chunks)), shortcut=shortcuts.GRID_ACTIONS["row_previous"],
        width="stretch")
    columns[1].button(
        f"{shortcuts.GRID_LABELS['row_next']} (J ↓)", key="grid_next", on_click=move,
        args=(query_id, 1, len(chunks)), shortcut=shortcuts.GRID_ACTIONS["row_next"],
        width="stretch")
    opened = {}
    for column, (flag, action) in zip(columns[2:], PANELS.items(), strict=True):
        with column:
            opened[action] = _judging.toggle(flag, shortcuts.GRID_LABELS[action],
                                             f"grid_{action}", shortcuts.GRID_ACTIONS[action])
    st.caption(escape_inline(
        f"Row {current + 1} of {len(chunks)} is current: a digit grades it and moves on "
        "(the keypad's too); J or ↓ and K or ↑ move. Keys do nothing while the cursor is in a "
        "text field."))
if opened["guideline"]:
    _judging.guideline_panel(db, scale)
if opened["search"]:
    _search.search_panel(db, query_id, query_text, scale, prefix="jbq_find",
                         where="jbq_find")

saved = st.session_state.get(SAVED, {})
for row, (item, widget) in enumerate(zip(pairs.itertuples(), widgets, strict=True)):
    grade = None if pd.isna(item.my_grade) else int(item.my_grade)
    with st.container(border=True, key=f"jbq_card_{row}"):
        note = [f"{row + 1}. {item.chunk_id}", item.title or "untitled"]
        if row == current:
            note.insert(0, "▶ current row")
        st.caption(escape_inline(" · ".join(note)))
        _judging.chunk_text(item.text, query_text)
        columns = st.columns([3, 2], vertical_alignment="center")
        if widget not in st.session_state and grade is not None:
            st.session_state[widget] = grade
        columns[0].segmented_control(
            "Grade", list(names), format_func=lambda g: escape_inline(f"{g} {names[g]}"),
            key=widget, on_change=grade_in_place, args=(query_id, item.chunk_id, widget, row),
            disabled=not may_judge, label_visibility="collapsed",
            help=_auth.refusal_help(db, "judge"),
        )
        if (query_id, item.chunk_id) in saved:
            value = saved[(query_id, item.chunk_id)]
            columns[1].success(escape_inline(f"Saved: {value} {names.get(value, '')}"))
        elif grade is not None:
            columns[1].caption(escape_inline(f"Your grade: {grade} {names.get(grade, '')}"))

bindings = {k: f"grid_grade_{g}" for g, k in keys.items()}
bindings |= {shortcuts.GRID_ACTIONS[a].lower(): f"grid_{a.split('_')[1]}"
             for a in ("row_next", "row_previous")}
bindings |= {arrow: f"grid_{a.split('_')[1]}" for a, arrow in shortcuts.GRID_ARROWS.items()}
bindings |= {shortcuts.GRID_ACTIONS[a].lower(): f"grid_{a}" for a in PANELS.values()}
_keys.keyboard(bindings, scroll_to=f"jbq_card_{current}")
