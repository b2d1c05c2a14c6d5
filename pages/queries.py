"""Queries: add a query, search, edit segment attributes in bulk, assign a seeded split."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from labeling import escape_inline
from labeling.workspace import query_store
from pages import _auth, _common

WHERE_ADD, WHERE_EDIT, WHERE_SPLIT = "queries_add", "queries_edit", "queries_split"
NO_SPLIT = "(none)"


def add_query(attribute_names: list[str]) -> None:
    state = st.session_state
    attributes = {name: state.get(f"new_attr_{name}") for name in attribute_names}
    extra_name = (state.get("new_attr_name") or "").strip()
    if extra_name:
        attributes[extra_name] = state.get("new_attr_value")
    split = state.get("new_query_split")
    try:
        qid = query_store.add_query(
            _common.get_db(), state.get("new_query_text") or "",
            query_id=state.get("new_query_id") or None,
            source=state.get("new_query_source") or "real",
            split=None if split == NO_SPLIT else split,
            attributes=attributes,
            narrative=state.get("new_query_narrative") or None,
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_ADD)
        return
    _common.flash("success", f"Added query {qid}.", WHERE_ADD)
    for key in ("new_query_text", "new_query_narrative", "new_query_id", "new_attr_name",
                "new_attr_value"):
        state[key] = ""


def save_edits(edited: pd.DataFrame) -> None:
    try:
        changed = query_store.update_queries(_common.get_db(), edited)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_EDIT)
        return
    _common.flash("success", f"Saved {changed} changed queries.", WHERE_EDIT)
    st.session_state["editor_nonce"] = st.session_state.get("editor_nonce", 0) + 1


def assign_split(stratify_options: list[str]) -> None:
    state = st.session_state
    stratify = state.get("split_stratify")
    try:
        result = query_store.assign_split(
            _common.get_db(), float(state.get("split_share", 0.5)), int(state.get("split_seed", 0)),
            stratify_by=None if stratify not in stratify_options else stratify,
            only_unassigned=bool(state.get("split_only_unassigned", False)),
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE_SPLIT)
        return
    _common.flash("success", f"Split assigned: {result.summary()}.", WHERE_SPLIT)
    state["editor_nonce"] = state.get("editor_nonce", 0) + 1


db = _common.page_setup()
names = query_store.attribute_names(db)
st.title("Queries")

# --- Add --------------------------------------------------------------------------------------
with st.expander("Add a query", expanded=False):
    st.text_area("Query text", key="new_query_text", height=80)
    st.text_area("Narrative (optional)", key="new_query_narrative", height=80,
                 placeholder="What the person asking wants to know: shown to the judges")
    columns = st.columns(3)
    columns[0].text_input("Id (optional)", key="new_query_id", placeholder="generated: u001 ...")
    columns[1].selectbox("Source", query_store.SOURCES, key="new_query_source")
    columns[2].selectbox("Split", [NO_SPLIT, *query_store.SPLITS], key="new_query_split")
    if names:
        columns = st.columns(len(names))
        for column, name in zip(columns, names, strict=True):
            column.text_input(escape_inline(name), key=f"new_attr_{name}")
    columns = st.columns(2)
    columns[0].text_input("New attribute (optional)", key="new_attr_name", placeholder="e.g. team")
    columns[1].text_input("Its value", key="new_attr_value")
    st.button("Add query", key="add_query", type="primary", on_click=add_query, args=(names,),
              disabled=not _auth.can(db, "add_query"),
              help=_auth.refusal_help(db, "add_query"))
    _common.show_flash(WHERE_ADD)

# --- Search and edit --------------------------------------------------------------------------
st.subheader("Search and edit")
search = st.text_input("Search", key="query_search", placeholder="words in the id or text")
table = query_store.queries_table(db, search)
st.caption(
    f"{len(table)} queries shown. Edit the narrative (what the person asking wants to know, "
    "shown on the judging card), source, split or segment attributes in the table, then save. "
    "Empty a cell to remove it. A narrative can also come from a `narrative` column of an "
    "imported queries file."
)
digest = hashlib.sha1(search.encode()).hexdigest()[:8]
config: dict = {
    "id": st.column_config.TextColumn("id", disabled=True),
    "text": st.column_config.TextColumn("text", disabled=True, width="large"),
    "narrative": st.column_config.TextColumn("narrative", width="large"),
    "placeholder": st.column_config.CheckboxColumn("placeholder", disabled=True),
    "source": st.column_config.SelectboxColumn("source", options=list(query_store.SOURCES)),
    "split": st.column_config.SelectboxColumn("split", options=list(query_store.SPLITS)),
}
config.update({name: st.column_config.TextColumn(name) for name in names})
edited = st.data_editor(
    table, hide_index=True, column_config=config, num_rows="fixed",
    disabled=not _auth.can(db, "edit_queries"),
    key=f"queries_editor_{st.session_state.get('editor_nonce', 0)}_{digest}",
)
st.button("Save changes", key="save_queries", on_click=save_edits, args=(edited,),
          disabled=table.empty or not _auth.can(db, "edit_queries"),
          help=_auth.refusal_help(db, "edit_queries"))
_common.show_flash(WHERE_EDIT)

# --- Split ------------------------------------------------------------------------------------
st.subheader("Dev/test split")
counts = query_store.split_counts(db)
st.caption(f"Now: {counts['dev']} dev, {counts['test']} test, {counts['none']} without a split.")
columns = st.columns(4)
columns[0].number_input("Dev share", 0.0, 1.0, 0.5, 0.05, key="split_share")
columns[1].number_input("Seed", 0, 2**31 - 1, 13, 1, key="split_seed")
columns[2].selectbox("Stratify by", [NO_SPLIT, *names], key="split_stratify",
                     help="Split each segment of this attribute separately.")
columns[3].checkbox("Only queries without a split", key="split_only_unassigned")
st.button("Assign split", key="assign_split", on_click=assign_split, args=(names,),
          disabled=not _auth.can(db, "assign_split"),
          help=_auth.refusal_help(db, "assign_split"))
_common.show_flash(WHERE_SPLIT)
