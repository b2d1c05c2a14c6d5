"""Overview: what the workspace holds and what the app will do next."""

from __future__ import annotations

import streamlit as st

from labeling.markdown import escape_inline
from labeling.workspace import chunk_sets, contents, provenance, query_store
from pages import _common

db = _common.page_setup()
counts = contents.counts(db)

st.title("Retrieval Scorecard")
st.write(
    "Label query-chunk pairs, compare retrieval runs and share a scorecard. "
    "Everything lives in one workspace file."
)

columns = st.columns(4)
for column, (label, table) in zip(
    columns,
    [("Chunks", "chunks"), ("Queries", "queries"), ("Runs", "runs"), ("Judgments", "judgments")],
    strict=True,
):
    column.metric(label, f"{counts[table]:,}")
by_origin = provenance.judgments_by_origin(db.conn)
per_set = chunk_sets.describe_chunk_sets(db)
if per_set:
    st.caption(escape_inline(f"Chunks: every chunk set's together (a chunk in two sets counts "
                             f"once); by chunk set: {per_set}."))
st.caption(escape_inline(
    f"Judgments: every grade stored, a changed grade counting again, of every origin: "
    f"{provenance.describe_origins(by_origin)}. Scores use people's labels unless a machine "
    "source is chosen on the Dashboard."))

left, right = st.columns([3, 2])
with left:
    st.subheader("Runs")
    runs = query_store.runs_overview(db)
    if runs.empty:
        st.info("No runs yet: import one on the Data page.")
    else:
        st.dataframe(runs, hide_index=True, key="home_runs")
    splits = query_store.split_counts(db)
    people = query_store.annotators(db)
    st.caption(
        f"Queries: {splits['dev']} dev, {splits['test']} test, {splits['none']} without a split. "
        f"Annotators: {', '.join(map(escape_inline, people)) if people else 'none yet'}."
    )
with right:
    st.subheader("Where things are")
    st.markdown(
        "- **Label** and **Judge by query**: grade the pooled results of your runs, blind, "
        "with keyboard shortcuts.\n"
        "- **Agreement**: kappa, alpha and the disagreements to adjudicate.\n"
        "- **Review**: accept or reject synthetic questions generated from passages.\n"
        "- **Dashboard**: metrics by segment with intervals, run comparison, coverage and the "
        "worst queries.\n"
        "- **Queries** and **Data**: add and segment queries; import files, download exports.\n"
        "- **Metric guide** and **Metric simulator**: what each measure means, and how it moves.\n"
        "- Share a scorecard with `scorecard report DB --run NAME --out card.html`.\n"
    )
