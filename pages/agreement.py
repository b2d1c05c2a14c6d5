"""Agreement: how much the annotators agree, where they disagree, adjudication and re-judging."""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from labeling import escape_chart_text
from labeling.files import exporters as exports
from labeling.judging import agreement, queue
from labeling.workspace import contents, grading, query_store
from pages import _auth, _common

WHERE_ADJ, WHERE_REJUDGE = "agreement_adjudicate", "agreement_rejudge"
ADJ_NONCE = "adj_nonce"  # a fresh grade control (no grade chosen) after each adjudication
TEAM = "whole team"
WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}


def _fmt(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def adj_grade_key() -> str:
    nonce = st.session_state.get(ADJ_NONCE, 0)
    return "adj_grade" if nonce == 0 else f"adj_grade_{nonce}"


def adjudicate(options: dict[str, tuple[str, str]]) -> None:
    state = st.session_state
    pair = options.get(state.get("adj_pair"))
    if pair is None:
        return
    grade = state.get(adj_grade_key())
    if grade is None:
        _common.flash("warning", "Choose the grade that decides the pair first.", WHERE_ADJ)
        return
    try:
        agreement.adjudicate(_common.get_db(), pair[0], pair[1], int(grade),
                             _common.annotator(), note=state.get("adj_note") or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_ADJ)
        return
    _common.flash("success", f"Adjudicated {pair[0]} / {pair[1]} as {grade}.", WHERE_ADJ)
    state["adj_note"] = ""
    state[ADJ_NONCE] = state.get(ADJ_NONCE, 0) + 1


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
judges = agreement.annotators(db)
origin_of = dict(zip(judges["annotator"], judges["origin"], strict=True))
unknown = st.toggle(
    "Count judgments of unknown origin as people's", value=True, key="agreement_unknown",
    help="Judgments stored before origins were recorded: typed in the app or imported, which "
    "the workspace cannot tell apart.",
    disabled="unknown" not in ",".join(judges["origin"]))
votes = agreement.votes(db, unknown=unknown)
team = agreement.summary(db, unknown=unknown)

columns = st.columns(4)
columns[0].metric(f"Krippendorff's alpha ({team.level})", _fmt(team.alpha))
columns[1].metric("Annotators", len(team.annotators))
columns[2].metric("Pairs judged by 2+ people", team.overlap_pairs)
columns[3].metric("Pairs with a vote", team.voted_pairs)
st.caption("Agreement is between people: each person's latest grade. Imported labels, "
           "generator and machine labels, adjudications and \"can't judge\" are left out (compare "
           "people with an import or a machine below, as a reference). Alpha is ordinal for a "
           "graded scale, nominal for a binary one. Raise the overlap share on the Label page to "
           "measure more pairs.")

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
                             key=adj_grade_key(), index=None, placeholder="Choose a grade")
        columns[2].text_input("Note (optional)", key="adj_note")
        columns[3].button("Adjudicate", key="adj_save", on_click=adjudicate, args=(options,),
                          disabled=not _common.annotator() or not _auth.can(db, "judge"),
                          help=_auth.refusal_help(db, "judge"), type="primary")
        if not _common.annotator():
            st.caption("Type your name in the sidebar to adjudicate.")
_common.show_flash(WHERE_ADJ)

st.subheader("People against a reference")
st.caption("Compare each person's grades with those of one annotator taken as the reference: an "
           "imported qrels file, a machine, or a person.")
references = judges["annotator"].tolist()
reference = st.selectbox(
    "Reference", references, index=None, key="agreement_reference",
    placeholder="Choose a reference annotator",
    format_func=lambda a: f"{a} ({origin_of.get(a, '')})")
if reference is not None:
    against = agreement.reference_agreement(db, reference, grades, WEIGHTS[weighting],
                                            unknown=unknown)
    if against.empty:
        st.caption("No person graded a pair the reference graded.")
    else:
        st.dataframe(against, hide_index=True, key="reference_table",
                     column_config={"agreement": st.column_config.NumberColumn(format="percent"),
                                    "kappa": st.column_config.NumberColumn(format="%.3f")})
        st.download_button("Download CSV", exports.csv_bytes(against), "reference.csv",
                           "text/csv", key="reference_csv")

with st.expander("Who judged: people, imports, machines", expanded=False):
    st.dataframe(judges, hide_index=True, key="annotators_table")

st.subheader("Re-judge")
st.caption("Send every pair of a query, a segment or an annotator back to the queue, open to "
           "everyone again. Earlier judgments stay in the history.")
columns = st.columns([1, 3, 1], vertical_alignment="bottom")
scope = columns[0].selectbox("Scope", ["query", "segment", "annotator"], key="rejudge_scope")
if scope == "query":
    targets = query_store.queries_table(db, "")["id"].astype(str).tolist()
elif scope == "annotator":
    targets = judges["annotator"].tolist()
else:
    targets = [f"{name}={value}" for name in query_store.attribute_names(db)
               for value in sorted({v for v in contents.query_segments(db, name).values() if v})]
columns[1].selectbox("Which", targets, key="rejudge_target",
                     format_func=(lambda a: f"{a} ({origin_of.get(a, '')})") if scope == "annotator"
                     else str)
columns[2].button("Send back", key="rejudge_go", on_click=rejudge,
                  disabled=not targets or not _auth.can(db, "rejudge"),
                  help=_auth.refusal_help(db, "rejudge"))
_common.show_flash(WHERE_REJUDGE)
