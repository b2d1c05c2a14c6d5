"""The model-server connections on a page: admins see a form to add, change or remove one;
everyone else only picks one by name (nobody else types an address). Stored and checked by
``labeling.workspace.connections``."""

from __future__ import annotations

import streamlit as st

from labeling import escape_inline
from labeling.workspace import connections
from pages import _auth, _common


def picker(db, key: str, where: str) -> connections.Connection | None:
    """A selectbox of the stored model servers; the chosen one, or None (with a note saying
    who can add one) when there is none."""
    found = connections.list_connections(db, connections.MODEL_SERVER)
    if not found:
        st.info("No model server yet: an admin adds one (name, address, model, the "
                "environment variable holding its key, a call ceiling)"
                + (" below." if _auth.can(db, "manage_connections") else "."))
        return None
    names = [c.name for c in found]
    chosen = st.selectbox("Model server", names, key=key,
                          help="Model servers are set up by admins; pick one by name.")
    return next(c for c in found if c.name == chosen)


def _save(prefix: str, where: str) -> None:
    state = st.session_state
    try:
        saved = connections.save_connection(
            _common.get_db(), connections.MODEL_SERVER, str(state.get(f"{prefix}_name") or ""),
            str(state.get(f"{prefix}_url") or ""), str(state.get(f"{prefix}_model") or ""),
            str(state.get(f"{prefix}_key_env") or ""), int(state.get(f"{prefix}_ceiling", 500)),
            who=_common.annotator() or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, where)
        return
    _common.flash("success", f"Stored the model server {saved.describe()}.", where)


def _remove(prefix: str, where: str) -> None:
    name = st.session_state.get(f"{prefix}_remove_name")
    try:
        connections.remove_connection(_common.get_db(), connections.MODEL_SERVER, str(name))
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, where)
        return
    _common.flash("success", f"Removed the model server {name}.", where)


def admin_form(db, prefix: str, where: str) -> None:
    """The form to add or change a model server and to remove one: admins only (shown to
    nobody else; the library refuses anyone else too)."""
    if not _auth.can(db, "manage_connections"):
        return
    found = connections.list_connections(db, connections.MODEL_SERVER)
    with st.expander("Model servers (admins)", expanded=not found):
        for connection in found:
            st.caption(escape_inline(connection.describe()))
        with st.form(f"{prefix}_form", enter_to_submit=False):
            row = st.columns([2, 3, 2])
            row[0].text_input("Name", key=f"{prefix}_name")
            row[1].text_input("Base URL (OpenAI-compatible)", key=f"{prefix}_url",
                              placeholder="http://127.0.0.1:8080/v1")
            row[2].text_input("Model", key=f"{prefix}_model")
            row = st.columns([3, 2])
            row[0].text_input("Environment variable holding the key", key=f"{prefix}_key_env",
                              placeholder="SCORECARD_LLM_API_KEY",
                              help="Its name only; the key stays in the environment of the "
                              "app and is never stored. Empty for a local server without one.")
            row[1].number_input("Call ceiling (a batch)", 1, connections.MAX_CEILING, 500,
                                key=f"{prefix}_ceiling")
            st.form_submit_button("Store the model server", key=f"{prefix}_save",
                                  on_click=_save, args=(prefix, where))
        if found:
            row = st.columns([3, 1])
            row[0].selectbox("Remove a model server", [c.name for c in found],
                             key=f"{prefix}_remove_name")
            row[1].button("Remove", key=f"{prefix}_remove", on_click=_remove,
                          args=(prefix, where))
