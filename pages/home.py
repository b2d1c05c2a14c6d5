"""Overview: what the workspace holds and what the app will do next."""

from __future__ import annotations

import streamlit as st

from labeling import escape_inline
from labeling.workspace import chunk_sets, contents, provenance, query_store
from pages import _common

# One line per page of the navigation (app.py), in its order.
PAGE_LINES = {
    "Label": "grade the pooled results of your runs one pair at a time, blind, by keyboard; "
             "the demo's queue is ready.",
    "Judge by query": "one query with all its queued chunks in a keyboard grid.",
    "Agreement": "kappa, alpha and the disagreements to adjudicate.",
    "Review": "accept or reject synthetic questions generated from passages.",
    "Dashboard": "metrics by segment with intervals, run comparison, coverage and the worst "
                 "queries.",
    "Machine judges": "label pairs with a language model, check it against people, audit it.",
    "Queries": "add queries, edit their segments, assign dev and test splits.",
    "Data": "import chunks, queries, runs and labels; download exports.",
    "Chunking": "compare chunkings and carry labels over to a new one.",
    "Metric guide": "what each measure means, and the dashboard's default measures.",
    "Metric simulator": "reorder a ranked list and watch the measures move.",
}

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
        _common.dataframe(runs, "home_runs", hide_index=True)
    splits = query_store.split_counts(db)
    people = query_store.annotators(db)
    st.caption(
        f"Queries: {splits['dev']} dev, {splits['test']} test, {splits['none']} without a split. "
        f"Annotators: {', '.join(map(escape_inline, people)) if people else 'none yet'}."
    )
with right:
    st.subheader("Where things are")
    st.markdown("\n".join(f"- **{title}**: {what}" for title, what in PAGE_LINES.items()))
    st.caption("Share a scorecard with `scorecard report DB --run NAME --out card.html`.")
