"""Live runs on the Data page: admins store a retriever connection (Elasticsearch, OpenSearch,
Solr or a Python callable); anyone allowed runs one, with a progress bar, and sees the failed
queries and the hits the workspace does not know. Stored and run by
``labeling.workspace.connections`` and ``labeling.files.live_runs``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling import escape_inline
from labeling.evaluation import tuning
from labeling.files import live_runs
from labeling.workspace import connections, contents, split_counts
from pages import _auth, _common

WHERE = "live_runs"
SHAPES = {"Elasticsearch _search": "elasticsearch", "OpenSearch _search": "opensearch",
          "Solr select": "solr", "PostgreSQL full-text search": "postgres_fts",
          "Python module:callable": "python"}


def _retrievers(db) -> list[connections.Connection]:
    return [c for kind in connections.RETRIEVERS for c in connections.list_connections(db, kind)]


def _save() -> None:
    state = st.session_state
    shape = SHAPES[state.get("lr_shape") or next(iter(SHAPES))]
    try:
        options, kind, key_env = None, connections.HTTP_JSON, ""
        if shape == "python":
            kind = connections.PYTHON
        elif shape == "postgres_fts":
            kind, key_env = connections.POSTGRES, str(state.get("lr_key_env") or "")
            options = {"table": str(state.get("lr_table") or "chunks"),
                       "text_column": str(state.get("lr_text_field") or "text"),
                       "id_column": str(state.get("lr_id_field") or "id")}
        else:
            options = connections.preset_options(
                shape, text_field=str(state.get("lr_text_field") or "text"),
                id_field=str(state.get("lr_id_field") or ""))
            header = str(state.get("lr_header") or "").strip()
            if header:
                options["headers"] = {header: str(state.get("lr_header_value") or "")}
        saved = connections.save_connection(
            _common.get_db(), kind, str(state.get("lr_name") or ""),
            str(state.get("lr_url") or ""), "", key_env,
            int(state.get("lr_ceiling", 1000)), who=_common.annotator() or None,
            options=options)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Stored the retriever {saved.describe()}.", WHERE)


def admin_form(db) -> None:
    """The form to add or change a retriever connection: admins only."""
    if not _auth.can(db, "manage_connections"):
        return
    found = _retrievers(db)
    with st.expander("Retriever connections (admins)", expanded=not found):
        for connection in found:
            st.caption(escape_inline(connection.describe()))
        with st.form("lr_form", enter_to_submit=False):
            row = st.columns([2, 2, 4])
            row[0].text_input("Name", key="lr_name")
            row[1].selectbox("Service", list(SHAPES), key="lr_shape")
            row[2].text_input("Endpoint, or module:callable", key="lr_url",
                              placeholder="http://127.0.0.1:9200/INDEX/_search")
            row = st.columns(5)
            row[0].text_input("Text field searched", "text", key="lr_text_field")
            row[1].text_input("Id field (empty: the hit's id)", key="lr_id_field")
            row[2].text_input("Header name", key="lr_header", placeholder="Authorization")
            row[3].text_input("Header value", key="lr_header_value",
                              placeholder="ApiKey ${SEARCH_API_KEY}",
                              help="A secret only as ${VARIABLE}: read from the app's "
                              "environment, never stored.")
            row[4].number_input("Most queries a run", 1, connections.MAX_CEILING, 1000,
                                key="lr_ceiling")
            row = st.columns(2)
            row[0].text_input("Table (PostgreSQL)", "chunks", key="lr_table")
            row[1].text_input("Environment variable holding the password (PostgreSQL)",
                              key="lr_key_env", help="Its name only; never the password.")
            st.form_submit_button("Store the retriever", key="lr_save", on_click=_save)


def _run(db, connection: connections.Connection) -> None:
    state = st.session_state
    split = state.get("lr_split")
    bar = st.progress(0.0, text="Starting")

    def progress(done: int, total: int, failed: int) -> None:
        bar.progress(done / total, text=f"{done}/{total} queries asked, {failed} failed")

    try:
        params = live_runs.parse_params(
            [line for line in str(state.get("lr_params") or "").splitlines() if line.strip()],
            source="parameters")
        result = live_runs.live_run(db, connection, str(state.get("lr_run_name") or ""),
                                    params=params, k=int(state.get("lr_k", 100)),
                                    split=None if split in (None, "all") else split,
                                    progress=progress)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("warning" if result.incomplete else "success", result.summary(), WHERE)
    state["lr_failed"] = sorted(result.failed.items())
    state["lr_unknown"] = result.unknown_ids
    state["lr_last"] = result.run_name


def _queue(run_name: str) -> None:
    try:
        queued = tuning.queue_new_results(_common.get_db(), run_name)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Queued {queued} new unjudged result(s) of {run_name} for "
                  "labeling.", WHERE)


def tuning_block(db, run_name: str) -> None:
    """The last run against its previous version (paired test, interval of the difference)
    and the button sending its new unjudged results to the labeling queue."""
    previous = tuning.previous_version(db, run_name)
    if previous is not None:
        changed = tuning.setup_change(db, previous, run_name)
        st.caption(escape_inline(
            f"{run_name} against the previous version {previous} (changed: "
            + (", ".join(f"{k} {a} → {b}" for k, (a, b) in changed.items()) or "nothing")
            + "); the difference's 95% bootstrap interval and the randomization test's p over "
            "the queries both runs answer, on people's labels."))
        frame = tuning.compare_with_previous(db, run_name)
        st.dataframe(frame[["measure", "n", "baseline", "candidate_mean", "difference",
                            "diff_low", "diff_high", "p_randomization", "significant"]],
                     hide_index=True, key="lr_compare")
    unjudged = len(tuning.new_unjudged_results(db, run_name))
    st.button(f"Queue {unjudged} new unjudged result(s) of {run_name}", key="lr_queue",
              disabled=not unjudged or not _auth.can(db, "enqueue"),
              help=_auth.refusal_help(db, "enqueue"), on_click=_queue, args=(run_name,))


def section(db) -> None:
    """The Live runs section: the admin form, then the run form and the last run's outcome."""
    st.subheader("Live runs")
    st.caption("Run a retriever on every query (of a split) and store its results as a run. "
               "A query that fails is listed and the run is marked incomplete; running the "
               "same name again asks only the queries not done yet.")
    admin_form(db)
    found = _retrievers(db)
    if not found:
        st.info("No retriever connection yet: an admin adds one.")
        _common.show_flash(WHERE)
        return
    row = st.columns([2, 2, 1, 1])
    chosen = row[0].selectbox("Retriever", [c.name for c in found], key="lr_connection")
    row[1].text_input("Run name (a new one per version)", key="lr_run_name")
    row[2].number_input("k", 1, 10_000, 100, key="lr_k")
    row[3].selectbox("Split", ["all", *[s for s, n in split_counts(db).items() if n]],
                     key="lr_split")
    st.text_area("Parameters (NAME=VALUE, one a line)", key="lr_params", height=68)
    if st.button("Run live", key="lr_run", type="primary",
                 disabled=not _auth.can(db, "live_run"),
                 help=_auth.refusal_help(db, "live_run")):
        _run(db, next(c for c in found if c.name == chosen))
    _common.show_flash(WHERE)
    admin = _auth.can(db, "manage_connections")
    failed = [(query, live_runs.error_shown(error, admin=admin))
              for query, error in st.session_state.get("lr_failed") or []]
    if failed:
        st.dataframe(pd.DataFrame(failed, columns=["query", "error"]), hide_index=True,
                     key="lr_failed_table")
    unknown = st.session_state.get("lr_unknown") or []
    if unknown:
        st.caption("Hits naming no chunk of the workspace: " + escape_inline(", ".join(unknown)))
    last = st.session_state.get("lr_last")
    if last and last in contents.run_names(db):
        tuning_block(db, last)
