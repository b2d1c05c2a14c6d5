"""Agreement: how much the annotators agree, where they disagree, adjudication and re-judging."""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from labeling.files import exporters as exports
from labeling.judging import agreement, queue
from labeling.markdown import escape_chart_text
from labeling.workspace import contents, grading, query_store
from pages import _auth, _common

WHERE_ADJ, WHERE_REJUDGE = "agreement_adjudicate", "agreement_rejudge"
TEAM = "whole team"
WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}


def _fmt(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def adjudicate(options: dict[str, tuple[str, str]]) -> None:
    state = st.session_state
    pair = options.get(state.get("adj_pair"))
    if pair is None:
        return
    try:
        agreement.adjudicate(_common.get_db(), pair[0], pair[1], int(state["adj_grade"]),
                             _common.annotator(), note=state.get("adj_note") or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_ADJ)
        return
    _common.flash("success", f"Adjudicated {pair[0]} / {pair[1]} as {state['adj_grade']}.",
                  WHERE_ADJ)
    state["adj_note"] = ""


def rejudge() -> None:
    state = st.session_state
    scope, target = state.get("rejudge_scope"), state.get("rejudge_target")
    if not target:
        return
    kwargs: dict = {"requested_by": _common.annotator() or None}
    if scope == "query":
        kwargs["query_id"] = target
    elif scope == "annotator":
        kwargs["annotator"] = target
    else:
        kwargs["segment"] = tuple(str(target).split("=", 1))
    try:
        pairs = queue.rejudge(_common.get_db(), **kwargs)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_REJUDGE)
        return
    _common.flash("success", f"Sent {pairs} pairs back to the queue.", WHERE_REJUDGE)


db = _common.page_setup()
st.title("Agreement")
st.info(agreement.CONSENSUS_RULE)
scale = grading.get_scale(db)
grades = [g for g, _, _ in scale]
names = {g: n for g, n, _ in scale}
votes = agreement.votes(db)
team = agreement.summary(db)

columns = st.columns(4)
columns[0].metric(f"Krippendorff's alpha ({team.level})", _fmt(team.alpha))
columns[1].metric("Annotators", len(team.annotators))
columns[2].metric("Pairs judged by 2+ people", team.overlap_pairs)
columns[3].metric("Pairs with a vote", team.voted_pairs)
st.caption("Agreement uses each person's latest grade; generator labels, adjudications and "
           "\"can't judge\" are left out. Alpha is ordinal for a graded scale, nominal for a "
           "binary one. Raise the overlap share on the Label page to measure more pairs.")

st.subheader("Cohen's kappa per annotator pair")
weighting = st.selectbox("Weights", list(WEIGHTS), key="kappa_weights")
kappa = agreement.pairwise_kappa(votes, grades, weights=WEIGHTS[weighting])
st.dataframe(kappa, hide_index=True, key="kappa_table",
             column_config={"agreement": st.column_config.NumberColumn(format="percent"),
                            "kappa": st.column_config.NumberColumn(format="%.3f")})
st.download_button("Download CSV", exports.csv_bytes(kappa), "kappa.csv", "text/csv",
                   key="kappa_csv")

st.subheader("Confusion of grades")
pairs_of_people = [TEAM] + [f"{a} × {b}" for a, b in zip(kappa["annotator_a"],
                                                          kappa["annotator_b"], strict=True)]
who = st.selectbox("Between", pairs_of_people, key="confusion_between")
first, second = (None, None) if who == TEAM else who.split(" × ", 1)
matrix = agreement.confusion(votes, grades, first, second)
labels = [escape_chart_text(f"{g} {names[g]}") for g in grades]
figure = go.Figure(go.Heatmap(
    z=matrix.to_numpy(), x=labels, y=labels, colorscale="Blues", text=matrix.to_numpy(),
    texttemplate="%{text}", hovertemplate="%{y} vs %{x}: %{z}<extra></extra>",
))
figure.update_layout(
    height=380, margin={"l": 10, "r": 10, "t": 30, "b": 10},
    xaxis_title=escape_chart_text(second or "grade (the other)"),
    yaxis_title=escape_chart_text(first or "grade (one)"),
    yaxis_autorange="reversed",
)
st.plotly_chart(figure, key="confusion_chart")
if who == TEAM:
    st.caption("Whole team: every two people's grades of the same pair, counted in both orders "
               "(so the matrix is symmetric).")
st.download_button("Download CSV", exports.csv_bytes(matrix, index=True), "confusion.csv",
                   "text/csv", key="confusion_csv")

st.subheader("Disagreeing pairs")
show_done = st.toggle("Include adjudicated pairs", key="disagree_all")
split = agreement.disagreements(db, include_adjudicated=show_done)
sight = _common.sight(db)
if not sight.sees_all:  # blind: only pairs whose grades this person may see
    split = split.loc[sight.pair_mask(split)].reset_index(drop=True)
    st.caption("Pairs you have judged yourself (and that are not waiting for you in the queue); "
               "other people's grades of the rest stay hidden until you judge them.")
st.dataframe(split, hide_index=True, key="disagree_table")
st.download_button("Download CSV", exports.csv_bytes(split), "disagreements.csv", "text/csv",
                   key="disagree_csv")
if not split.empty:
    options = {f"{r.query_id} / {r.chunk_id} ({r.votes})": (r.query_id, r.chunk_id)
               for r in split.itertuples()}
    with st.container(border=True):
        st.caption("Adjudicate: the grade you record decides the pair for the metrics.")
        columns = st.columns([3, 2, 3, 1.4], vertical_alignment="bottom")
        columns[0].selectbox("Pair", list(options), key="adj_pair")
        columns[1].selectbox("Grade", grades, format_func=lambda g: f"{g} {names[g]}",
                             key="adj_grade")
        columns[2].text_input("Note (optional)", key="adj_note")
        columns[3].button("Adjudicate", key="adj_save", on_click=adjudicate, args=(options,),
                          disabled=not _common.annotator() or not _auth.can(db, "judge"),
                          help=_auth.refusal_help(db, "judge"), type="primary")
        if not _common.annotator():
            st.caption("Type your name in the sidebar to adjudicate.")
_common.show_flash(WHERE_ADJ)

st.subheader("Re-judge")
st.caption("Send every pair of a query, a segment or an annotator back to the queue, open to "
           "everyone again. Earlier judgments stay in the history.")
columns = st.columns([1, 3, 1], vertical_alignment="bottom")
scope = columns[0].selectbox("Scope", ["query", "segment", "annotator"], key="rejudge_scope")
if scope == "query":
    targets = query_store.queries_table(db, "")["id"].astype(str).tolist()
elif scope == "annotator":
    targets = sorted(votes["annotator"].unique().tolist())
else:
    targets = [f"{name}={value}" for name in query_store.attribute_names(db)
               for value in sorted({v for v in contents.query_segments(db, name).values() if v})]
columns[1].selectbox("Which", targets, key="rejudge_target")
columns[2].button("Send back", key="rejudge_go", on_click=rejudge,
                  disabled=not targets or not _auth.can(db, "rejudge"),
                  help=_auth.refusal_help(db, "rejudge"))
_common.show_flash(WHERE_REJUDGE)
