"""Metric guide: what each measure means, which ones care about order, and which to lead with."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling import escape_inline, readable_times
from labeling.evaluation import score_defaults
from labeling.files import exporters as exports
from labeling.teaching import guide
from labeling.workspace import grading
from pages import _auth, _common

WHERE = "guide_chooser"


def set_defaults(measures: list[str]) -> None:
    """Store the advice as the workspace's dashboard defaults (every new session reads them)."""
    try:
        stored = score_defaults.set_score_defaults(
            _common.get_db(), measures, by=_auth.user() or _common.annotator() or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Dashboard defaults set to {stored.shown()} (k = {stored.k}) "
                  "for everyone using this workspace.", WHERE)


db = _common.page_setup()

st.title("Metric guide")
st.info(guide.NOT_MEASURED, icon=":material/info:")

st.header("The measures")
matrix = pd.DataFrame(guide.definitions_table())
# A static table wraps its long cells (best use, definition) instead of cutting them.
st.table(matrix.assign(**{"order sensitive": matrix["order sensitive"].map({True: "yes",
                                                                             False: "no"})}),
         hide_index=True)
st.download_button(
    "Download the table (CSV)", exports.csv_bytes(matrix),
    file_name="metric_guide.csv", mime="text/csv", key="guide_download",
)
st.caption("Order sensitive: moving documents inside the top k changes the value. Try it on the "
           "Metric simulator page.")
columns = st.columns(2)
for index, definition in enumerate(guide.DEFINITIONS):
    with columns[index % 2].container(border=True):
        sensitivity = "order sensitive" if definition.order_sensitive else "order-insensitive"
        st.markdown(f"**{definition.title}** · `{definition.example}` · {definition.relevance} "
                    f"labels · {sensitivity}")
        st.latex(definition.formula)
        st.caption(definition.use)

st.header("Which measure should lead?")
scale = grading.get_scale(db)
stored = score_defaults.score_defaults(db)
left, right = st.columns([3, 2], gap="large")
with left:
    failure = st.radio(
        "What failure costs you most?", list(guide.FAILURES), key="guide_failure",
        format_func=guide.FAILURES.get,
    )
    k = st.number_input(
        "Chunks passed to the model (k)", min_value=1, max_value=100,
        value=min(stored.k, 100) if stored.set_at else 5, step=1,
        key="guide_k", help="Report at the cut-off your pipeline really uses.",
    )
    graded = st.toggle("We have graded labels", value=len(scale) > 2, key="guide_graded")
with right:
    advice = guide.recommend(failure, int(k), graded)
    st.metric("Lead measure", advice.lead)
    st.write("Also track: " + ", ".join(f"`{m}`" for m in advice.supporting))
    st.write(advice.why)
    st.button(
        "Use as the dashboard's defaults", key="guide_set_defaults", on_click=set_defaults,
        args=(advice.measures,), type="primary", disabled=not _auth.can(db, "set_score_defaults"),
        help=_auth.refusal_help(db, "set_score_defaults"),
    )
    _common.show_flash(WHERE)
    current = score_defaults.score_defaults(db)  # again: the button may have just set them
    who = (f", set by {current.set_by or 'someone'} "
           f"{readable_times.readable(current.set_at, _common.time_zone())}"
           if current.set_at else " (built in)")
    st.caption(escape_inline(f"Dashboard defaults now: {current.shown()} at k = {current.k}{who}. "
                             "Stored in the workspace: every new session's Dashboard starts "
                             "from them."),
               help=None if current.set_at is None else readable_times.exact(current.set_at))
st.caption("Then add one guardrail from the generation side, usually faithfulness: these "
           "retrieval measures cannot see it.")

st.header("Knowledge check")
for number, question in enumerate(guide.QUESTIONS, start=1):
    with st.container(border=True):
        choice = st.radio(
            f"{number}. {question.text}", range(len(question.options)), index=None,
            key=f"guide_q_{question.key}", format_func=lambda i, q=question: q.options[i],
        )
        if choice is not None:
            right, explanation = guide.check_answer(question.key, int(choice))
            (st.success if right else st.error)(("Correct. " if right else "Not quite. ")
                                                + explanation)
