"""Judge by query: one query with all its queued chunks, each graded in place (blind: the chunks
are listed by id, not in any run's order)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling.judging import pooling, queue
from labeling.markdown import escape_inline, escape_markdown
from labeling.workspace import grading
from pages import _auth, _common, _highlight

WHERE = "judge_by_query"


def grade_in_place(query_id: str, chunk_id: str, widget: str) -> None:
    value = st.session_state.get(widget)
    if value is None:  # clicking the selected grade again clears the control: no judgment
        return
    try:
        queue.save_judgment(_common.get_db(), query_id, chunk_id, int(value),
                            _common.annotator())
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Saved grade {value} for {chunk_id}.", WHERE)


db = _common.page_setup()
st.title("Judge by query")
name = _common.annotator()
if not name:
    st.info("Type your name in the sidebar to start judging. Every judgment records it.")
    st.stop()

queries = pooling.queued_queries(db)
if queries.empty:
    st.info("The queue is empty: build it on the Label page (Build the queue).")
    st.stop()
labels = {
    row.query_id: f"{row.query_id} · {row.complete}/{row.pairs} complete · {row.text[:80]}"
    for row in queries.itertuples()
}
query_id = st.selectbox("Query", list(labels), format_func=labels.get, key="jbq_query")
scale = grading.get_scale(db)
names = {g: n for g, n, _ in scale}
may_judge = _auth.can(db, "judge")
query_text = str(queries.set_index("query_id").loc[query_id, "text"])
st.markdown(f"#### {escape_markdown(query_text)}")
st.caption(" · ".join(f"{g} {escape_markdown(n)}" for g, n in names.items()))
_common.show_flash(WHERE)

pairs = pooling.pairs_of_query(db, query_id, name)
mine = int(pairs["my_grade"].notna().sum())
st.progress(mine / len(pairs), text=f"You graded {mine} of {len(pairs)} chunks of this query")
for row in pairs.itertuples():
    widget = f"jbq_{query_id}_{row.chunk_id}"
    current = None if pd.isna(row.my_grade) else int(row.my_grade)
    with st.container(border=True, key=f"jbq_card_{query_id}_{row.chunk_id}"):
        st.caption(escape_markdown(f"{row.chunk_id} · {row.title}"))
        st.markdown(_highlight.highlighted_markdown(row.text, query_text))
        st.segmented_control(
            "Grade", list(names), format_func=lambda g: escape_inline(f"{g} {names[g]}"),
            key=widget,
            default=current, on_change=grade_in_place, args=(query_id, row.chunk_id, widget),
            disabled=not may_judge, label_visibility="collapsed",
            help=_auth.refusal_help(db, "judge"),
        )
