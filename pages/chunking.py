"""Chunking: documents and chunk sets, labels carried over to a new chunking, the transfer
report, its suggestions, and the scorecards before and after."""

from __future__ import annotations

import json

import streamlit as st

from labeling import escape_inline, escape_markdown
from labeling.evaluation import Controls, chunk_set_scores, segment_options
from labeling.files import baseline, chunk_uploads, exporters
from labeling.judging import queue
from labeling.rechunking import plan, report, splitter, suggestions, transfer
from labeling.workspace import RUN_VERSION_FIELDS, chunk_sets, contents, grading
from pages import _auth, _common

WHERE = "chunking"
NONE = "(none)"
REVEALED = "chunking_revealed"  # (transfer id, query, chunk) the annotator just judged
COMPARE_MEASURES = ("R@10", "nDCG@10", "RR")


def _nonce(kind: str) -> int:
    return int(st.session_state.get(f"chunking_nonce_{kind}", 0))


def _bump(kind: str) -> None:
    st.session_state[f"chunking_nonce_{kind}"] = _nonce(kind) + 1


def _done(result, what: str, where: str) -> None:
    _common.flash("success", f"{what}: {result.summary()}", where)
    for warning in result.warnings:
        _common.flash("warning", warning, where)


# ---------------------------------------------------------------------------------------------
# Callbacks (every write happens here)


def import_documents() -> None:
    files = st.session_state.get(f"chunking_docs_{_nonce('docs')}") or []
    try:
        result = chunk_uploads.import_documents_bytes(
            _common.get_db(), [(f.name, f.getvalue()) for f in files])
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_docs")
        return
    _done(result, "Documents", f"{WHERE}_docs")
    _bump("docs")


def import_chunk_set() -> None:
    state = st.session_state
    upload = state.get(f"chunking_set_{_nonce('set')}")
    if upload is None:
        _common.flash("error", "Choose a chunk set file first.", f"{WHERE}_set")
        return
    try:
        result = chunk_uploads.import_chunk_set_bytes(
            _common.get_db(), upload.name, upload.getvalue(), state.get("chunk_set_name") or "",
            splitter=state.get("chunk_set_splitter"), size=state.get("chunk_set_size"),
            overlap=state.get("chunk_set_overlap"))
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_set")
        return
    _done(result, upload.name, f"{WHERE}_set")
    _bump("set")


def split_documents() -> None:
    state = st.session_state
    try:
        result = splitter.rechunk_documents(
            _common.get_db(), str(state.get("split_name") or "").strip(),
            int(state.get("split_size") or 0), int(state.get("split_overlap") or 0))
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_split")
        return
    _done(result, "Split", f"{WHERE}_split")


def save_run_fields() -> None:
    state = st.session_state
    run = state.get("version_run")
    fields = {field: state.get(f"version_{field}_{run}") for field in RUN_VERSION_FIELDS}
    if fields["chunk_set"] == NONE:
        fields["chunk_set"] = None
    try:
        chunk_sets.set_run_versioning(_common.get_db(), run, **fields)
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_runs")
        return
    _common.flash("success", f"Saved the fields of run {state.get('version_run')}.",
                  f"{WHERE}_runs")


def make_baseline() -> None:
    state = st.session_state
    name, chunk_set = str(state.get("baseline_name") or "").strip(), state.get("baseline_set")
    try:
        result = baseline.bm25_run(_common.get_db(), name, k=20, chunk_set=chunk_set,
                                   replace=False)
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_runs")
        return
    _common.flash("success", f"Stored BM25 run {name} over {chunk_set}: {result.rows} results.",
                  f"{WHERE}_runs")


def judge_suggestion(transfer_id: int, query_id: str, chunk_id: str, grade: int) -> None:
    try:
        queue.save_judgment(_common.get_db(), query_id, chunk_id, grade, _common.annotator())
    except Exception as error:  # shown as one line
        _common.report_failure(error, f"{WHERE}_suggest")
        return
    st.session_state[REVEALED] = (transfer_id, query_id, chunk_id)


# ---------------------------------------------------------------------------------------------
# Sections


def contents_section(db) -> None:
    st.subheader("Documents and chunk sets")
    documents = chunk_sets.documents_table(db)
    st.caption(f"{len(documents)} documents. A chunk set is one chunking of them; each chunk "
               "knows the characters of its document it covers, so labels can follow the text "
               "when the chunking changes.")
    _common.dataframe(chunk_sets.chunk_sets_table(db), "chunk_sets_table", hide_index=True)
    admin = _auth.can(db, "import")
    why = _auth.refusal_help(db, "import")
    tabs = st.tabs(["Documents", "Chunk set", "Split the documents"], key="chunking_import_tab",
                   on_change="rerun")
    with tabs[0]:
        st.caption("Text or markdown files (one document each; the id is the file name without "
                   "its suffix), or one JSONL/CSV file with id, text, optional title and "
                   "version. The text is kept exactly: chunk offsets count its characters.")
        st.file_uploader("Document files", accept_multiple_files=True,
                         key=f"chunking_docs_{_nonce('docs')}", disabled=not admin, help=why)
        st.button("Import documents", key="import_documents", on_click=import_documents,
                  disabled=not admin, help=why)
        _common.show_flash(f"{WHERE}_docs")
    with tabs[1]:
        st.caption("One chunk per row: id, doc_id, text, and start/end character offsets if "
                   "you have them. Without offsets each chunk's text is found in its document "
                   "(runs of whitespace may differ); a chunk that is not there is named and "
                   "nothing is imported.")
        st.file_uploader("Chunk set file", key=f"chunking_set_{_nonce('set')}",
                         disabled=not admin, help=why)
        columns = st.columns(4)
        columns[0].text_input("Name", key="chunk_set_name", placeholder="e.g. tokens-256")
        columns[1].text_input("Splitter", key="chunk_set_splitter")
        columns[2].text_input("Size", key="chunk_set_size")
        columns[3].text_input("Overlap", key="chunk_set_overlap")
        st.button("Import chunk set", key="import_chunk_set", type="primary",
                  on_click=import_chunk_set, disabled=not admin, help=why)
        _common.show_flash(f"{WHERE}_set")
    with tabs[2]:
        st.caption(f"Split the stored documents with the built-in splitter "
                   f"({escape_inline(splitter.SPLITTER_NAME)}) into a new chunk set.")
        columns = st.columns(3)
        columns[0].text_input("Name", key="split_name", placeholder="e.g. chars-500")
        columns[1].number_input("Size (characters)", min_value=20, value=500, step=50,
                                key="split_size")
        columns[2].number_input("Overlap (characters)", min_value=0, value=0, step=10,
                                key="split_overlap")
        st.button("Split", key="split_documents", on_click=split_documents,
                  disabled=not admin, help=why)
        _common.show_flash(f"{WHERE}_split")


def runs_section(db, set_names: list[str]) -> None:
    st.subheader("Runs and what they were made with")
    st.caption("A run is scored against the labels of the chunk set it names (and of chunks in "
               "no chunk set), never against another chunking's units.")
    _common.dataframe(chunk_sets.runs_versioning(db), "runs_versioning", hide_index=True)
    runs = contents.run_names(db)
    if not runs:
        return
    admin = _auth.can(db, "edit_runs")
    with st.expander("Edit a run's fields", expanded=False):
        run = st.selectbox("Run", runs, key="version_run")
        stored = contents.get_run(db, run)
        columns = st.columns(len(RUN_VERSION_FIELDS))
        for column, (field, label) in zip(columns, RUN_VERSION_FIELDS.items(), strict=True):
            value = stored.get(field)
            if field == "chunk_set":
                options = [NONE, *set_names]
                column.selectbox(label, options, key=f"version_{field}_{run}",
                                 index=options.index(value) if value in options else 0)
            else:
                column.text_input(label, value="" if value is None else str(value),
                                  key=f"version_{field}_{run}")
        st.button("Save run fields", key="save_run_version", on_click=save_run_fields,
                  disabled=not admin, help=_auth.refusal_help(db, "edit_runs"))
    if set_names:
        with st.expander("BM25 baseline on a chunk set", expanded=False):
            columns = st.columns(2)
            columns[0].selectbox("Chunk set", set_names, key="baseline_set")
            columns[1].text_input("Run name", key="baseline_name", placeholder="e.g. bm25-small")
            st.button("Store BM25 run", key="make_baseline", on_click=make_baseline,
                      disabled=not _auth.can(db, "baseline"),
                      help=_auth.refusal_help(db, "baseline"))
    _common.show_flash(f"{WHERE}_runs")


def transfer_section(db, set_names: list[str]) -> None:
    st.subheader("Carry labels over to another chunk set")
    st.caption(
        "Each judged text (an old chunk's span) is matched to the new chunks it overlaps. A new "
        "chunk inherits a label when it holds at least the threshold share of a judged text, or "
        "is at least that share made of one (a piece of a text the new chunking split), and no "
        "more relevant text only partly in it; otherwise the pair goes to the labeling queue. "
        "A pair someone already labelled is never touched.")
    if len(set_names) < 2:
        st.info("Import or split a second chunk set to carry labels over to it.")
        return
    columns = st.columns(3)
    old = columns[0].selectbox("From", set_names, key="transfer_from")
    new = columns[1].selectbox("To", [s for s in set_names if s != old], key="transfer_to")
    threshold = columns[2].slider("Overlap threshold", 0.5, 1.0, plan.DEFAULT_THRESHOLD, 0.05,
                                  key="transfer_threshold")
    allowed = _auth.can(db, "transfer_labels")
    if st.button("Transfer labels", key="transfer", type="primary", disabled=not allowed,
                 help=_auth.refusal_help(db, "transfer_labels")):
        bar = st.progress(0.0, text="Starting")
        try:
            result = transfer.transfer_labels(
                db, old, new, threshold=threshold, by=_auth.user() or _common.annotator() or None,
                progress=lambda share, what: bar.progress(share, text=what))
        except Exception as error:  # shown as one line
            _common.report_failure(error, f"{WHERE}_transfer")
        else:
            _common.flash("success", result.summary(), f"{WHERE}_transfer")
            st.session_state["report_transfer"] = f"{old} → {new}"
        bar.empty()
    _common.show_flash(f"{WHERE}_transfer")


def report_section(db) -> tuple[report.TransferReport | None, int | None]:
    st.subheader("Transfer report")
    done = report.transfers(db)
    if done.empty:
        st.info("No labels have been transferred yet.")
        return None, None
    names = [f"{a} → {b}" for a, b in zip(done["from_set"], done["to_set"], strict=True)]
    if st.session_state.get("report_transfer") not in names:
        st.session_state["report_transfer"] = names[-1]  # the latest transfer
    chosen = st.selectbox("Transfer", names, key="report_transfer")
    row = done.iloc[names.index(chosen)]
    segments = [s for s in segment_options(db) if s != "(none)"]
    segment = st.selectbox("Count by segment", segments, key="report_segment")
    card = report.transfer_report(db, row["from_set"], row["to_set"], segment=segment)
    st.markdown(escape_markdown(card.sentence()))
    columns = st.columns(len(plan.OUTCOMES))
    for column, outcome in zip(columns, plan.OUTCOMES, strict=True):
        column.metric(outcome.capitalize(), card.outcomes[outcome])
    left, right = st.columns(2)
    left.caption("Old judgments by their grade")
    left.dataframe(card.by_grade, hide_index=True, key="report_by_grade")
    right.caption(f"Old judgments by {escape_inline(segment)}")
    right.dataframe(card.by_segment, hide_index=True, key="report_by_segment")
    st.download_button("Report (JSON)", json.dumps(card.to_dict(), indent=2),
                       file_name="transfer-report.json", mime="application/json",
                       key="download_transfer_report", on_click="ignore")
    with st.expander("The transferred labels", expanded=False):
        sight = _common.sight(db)
        labels = report.transferred_labels(db, int(row["id"]), sight)
        shown = "" if len(labels) <= 5000 else " (the table shows the first 5,000)"
        st.caption(f"{len(labels)} labels of origin 'transferred' you may see{shown}: the "
                   "blind rule hides grades of pairs you have not judged yourself. Sort or "
                   "filter the table, or download it.")
        _common.dataframe(labels.head(5000), "transferred_labels", hide_index=True)
        st.download_button("Transferred labels (CSV)", lambda: exporters.csv_bytes(labels),
                           file_name="transferred-labels.csv", mime="text/csv",
                           key="download_transferred_labels", on_click="ignore")
    return card, int(row["id"])


def suggestions_section(db, card: report.TransferReport, transfer_id: int) -> None:
    st.subheader("Suggestions to judge")
    name = _common.annotator()
    scale = grading.get_scale(db)
    names = {g: n for g, n, _ in scale}
    revealed = st.session_state.get(REVEALED)
    if revealed and revealed[0] == transfer_id:
        grades = suggestions.old_grades(db, *revealed, name)
        if grades is not None:
            st.caption(escape_markdown(f"Before re-chunking ({revealed[1]}, {revealed[2]}):"))
            for grade in grades:
                st.markdown("\\- " + escape_inline(grade.describe(names)))
    if not name:
        st.info("Type your name in the sidebar to judge the suggestions.")
        return
    waiting = suggestions.open_suggestions(db, transfer_id, name, limit=1)
    st.caption(f"{card.suggestions} pairs were suggested; {card.suggestions_judged} judged. "
               "The old grades are shown once you have judged a pair.")
    if waiting.empty:
        st.success("No suggestion of this transfer is waiting for you.")
        return
    pair = waiting.iloc[0]
    with st.container(border=True):
        st.markdown("**Query:** " + escape_inline(pair["query_text"]))
        st.caption(escape_inline(pair["title"] or pair["chunk_id"]))
        st.markdown(escape_markdown(pair["chunk_text"]))
        columns = st.columns(len(scale))
        for column, (grade, grade_name, _) in zip(columns, scale, strict=True):
            column.button(escape_inline(f"{grade} {grade_name}"), key=f"suggest_grade_{grade}",
                          on_click=judge_suggestion,
                          args=(transfer_id, pair["query_id"], pair["chunk_id"], grade),
                          disabled=not _auth.can(db, "judge"),
                          help=_auth.refusal_help(db, "judge"))
    _common.show_flash(f"{WHERE}_suggest")


def compare_section(db, card: report.TransferReport) -> None:
    st.subheader("Scorecards before and after")
    old_runs, new_runs = chunk_sets.runs_of(db, card.from_set), chunk_sets.runs_of(db, card.to_set)
    if not old_runs or not new_runs:
        st.info("Scorecards need a run on each chunk set (name the chunk set on the run, or "
                "store a BM25 baseline on it above).")
        return
    columns = st.columns(2)
    old = columns[0].selectbox(f"Run on {escape_inline(card.from_set)}", old_runs,
                               key="compare_old")
    new = columns[1].selectbox(f"Run on {escape_inline(card.to_set)}", new_runs,
                               key="compare_new")
    controls = Controls(run=old, measures=COMPARE_MEASURES)
    side = chunk_set_scores.side_by_side(db, controls, old, new, card.carried_queries)
    n = int(side["n"].iloc[0]) if len(side) else 0
    st.caption(escape_markdown(
        f"On the {n} queries with at least one carried label; each run is scored against its "
        f"own chunk set's labels (consensus rule default; bootstrap 95% intervals; p from a "
        f"paired randomization test)."))
    st.dataframe(side, hide_index=True, key="compare_side")
    footing = chunk_set_scores.one_footing(db, controls, [old, new], card.from_set,
                                           card.carried_queries)
    st.caption(escape_markdown(
        f"On one footing: both runs against the labels of {card.from_set}. Document: a "
        f"retrieved chunk counts as its document. Span: a retrieved chunk counts as the "
        f"judged texts it covers (at least {chunk_set_scores.SPAN_SHARE:.0%} of one, or made "
        f"of at least that share of one), each judged text once."))
    st.dataframe(chunk_set_scores.footing_table(footing), hide_index=True,
                 key="compare_footing")


# ---------------------------------------------------------------------------------------------

db = _common.page_setup()
st.title("Chunking")
names = chunk_sets.chunk_set_names(db)
contents_section(db)
runs_section(db, names)
transfer_section(db, names)
chosen, chosen_id = report_section(db)
if chosen is not None:
    suggestions_section(db, chosen, chosen_id)
    compare_section(db, chosen)
