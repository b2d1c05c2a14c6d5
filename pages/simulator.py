"""Metric simulator: reorder a ranked list, mark what is relevant, watch the six measures move."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling.files import exporters as exports
from labeling.teaching import simulator
from pages import _common

ORDER_KEY, GRADES_KEY = "_sim_order", "_sim_grades"
MODE_KEY, K_KEY, N_KEY, EXAMPLE_KEY = "sim_mode", "sim_k", "sim_n", "sim_example"
MODES = {"binary": "Binary (relevant or not)", "graded": "Graded (0-3)"}
GRADE_OPTIONS = [0, 1, 2, 3]


def load_example(name: str | None = None) -> None:
    """Put a worked example (default: the selected one) into the simulator's state."""
    state = st.session_state
    example = simulator.EXAMPLES[name or state.get(EXAMPLE_KEY) or "screen"]
    docs = simulator.doc_names(simulator.STACK_SIZE)
    state[ORDER_KEY] = docs
    state[GRADES_KEY] = dict(zip(docs, simulator.example_grades(example), strict=True))
    state[MODE_KEY], state[K_KEY], state[N_KEY] = example.mode, example.k, example.n


def toggle(doc: str) -> None:
    st.session_state[GRADES_KEY][doc] = 1 if st.session_state[f"sim_rel_{doc}"] else 0


def set_grade(doc: str) -> None:
    chosen = st.session_state.get(f"sim_grade_{doc}")
    st.session_state[GRADES_KEY][doc] = 0 if chosen is None else int(chosen)


def move(doc: str, step: int) -> None:
    st.session_state[ORDER_KEY] = simulator.move(st.session_state[ORDER_KEY], doc, step)


_common.page_setup()
state = st.session_state
if ORDER_KEY not in state:
    load_example("screen")

st.title("Metric simulator")
st.write(
    "Move documents, mark them relevant (or grade them) and change the depth K and the number "
    "N of relevant documents in the database: the six measures are recomputed by the scorecard's "
    "metric engine, under trec_eval's conventions and under the simulator's, side by side."
)

with st.container(border=True):
    top = st.columns([3, 1])
    top[0].selectbox(
        "Worked example", list(simulator.EXAMPLES), key=EXAMPLE_KEY,
        format_func=lambda name: simulator.EXAMPLES[name].title,
    )
    top[1].button("Load example", key="sim_load_example", on_click=load_example,
                  width="stretch")
    st.caption(simulator.EXAMPLES[state.get(EXAMPLE_KEY) or "screen"].says)

left, right = st.columns([1, 1], gap="large")
order: list[str] = state[ORDER_KEY]
grades: dict[str, int] = state[GRADES_KEY]

with left:
    st.subheader("Ranked list")
    mode = st.radio("Relevance", list(MODES), key=MODE_KEY, format_func=MODES.get,
                    horizontal=True)
    k = st.slider("Depth K", 1, len(order), key=K_KEY)
    n = st.slider("Relevant documents in the database (N)", 0, 20, key=N_KEY)
    for rank, doc in enumerate(order, start=1):
        row = st.columns([0.4, 0.7, 3, 0.8, 0.8], vertical_alignment="center")
        row[0].markdown(f"**{rank}**" if rank <= k else f"{rank}")
        row[1].text(doc)
        if mode == "binary":
            state[f"sim_rel_{doc}"] = grades[doc] >= 1
            row[2].checkbox("relevant", key=f"sim_rel_{doc}", on_change=toggle, args=(doc,))
        else:
            state[f"sim_grade_{doc}"] = grades[doc]
            row[2].segmented_control(
                "grade", GRADE_OPTIONS, key=f"sim_grade_{doc}", on_change=set_grade,
                args=(doc,), label_visibility="collapsed",
            )
        row[3].button("", icon=":material/arrow_upward:", key=f"sim_up_{doc}", on_click=move,
                      args=(doc, -1), disabled=rank == 1, help=f"Move {doc} up")
        row[4].button("", icon=":material/arrow_downward:", key=f"sim_down_{doc}",
                      on_click=move, args=(doc, 1), disabled=rank == len(order),
                      help=f"Move {doc} down")
        if rank == k and k < len(order):
            st.caption(f"— cut-off K = {k}: documents below are not evaluated by @K measures —")

result = simulator.simulate(
    [grades[d] for d in order], k, n, order, binary=mode == "binary"
)

with right:
    st.subheader("Measures")
    if result.n_relevant != n:
        st.info(
            f"N counts at least the {result.n_relevant} relevant documents in the list; "
            f"scored with N = {result.n_relevant}."
        )
    head = st.columns(2)
    head[0].markdown(f"**{simulator.CONVENTIONS['trec_eval']}**")
    head[1].markdown(f"**{simulator.CONVENTIONS['simulator']}**")
    for family, title in simulator.FAMILIES.items():
        st.caption(title)
        row = st.columns(2)
        for column, convention in zip(row, simulator.CONVENTIONS, strict=True):
            line = result.line(family, convention)
            with column.container(border=True):
                st.metric(line.measure, line.shown)
                st.text(line.arithmetic)
    st.caption(f"Cumulative gain CG@{k} (order-insensitive): {result.cg_arithmetic}")

st.subheader("Every measure")
table = result.frame()
st.dataframe(table, hide_index=True, key="sim_results",
             column_config={"value": st.column_config.NumberColumn(format="%.4f")})
st.download_button(
    "Download the measures (CSV)", exports.csv_bytes(table),
    file_name="simulator_measures.csv", mime="text/csv", key="sim_download",
)

st.subheader("Rank by rank")
st.caption("Precision at each rank (AP averages it over the relevant ranks) and nDCG's discount "
           "1 / log2(rank + 1), as the engine computed them.")
st.dataframe(result.ranked, hide_index=True, key="sim_ranked")

st.subheader("Means over a query set")
rows = []
for title, measure, stacks in simulator.QUERY_SET_EXAMPLES:
    outcome = simulator.simulate_queries(stacks, measure)
    rows.append({
        "example": title, "measure": measure,
        "stacks": " | ".join(str(s) for s in stacks),
        "per query": ", ".join(f"{v:.2f}" for v in outcome.per_query),
        "mean": outcome.mean, "arithmetic": outcome.arithmetic,
    })
means = pd.DataFrame(rows)
st.dataframe(means, hide_index=True, key="sim_means",
             column_config={"mean": st.column_config.NumberColumn(format="%.2f")})
st.download_button(
    "Download the query-set examples (CSV)", exports.csv_bytes(means),
    file_name="simulator_query_sets.csv", mime="text/csv", key="sim_means_download",
)
