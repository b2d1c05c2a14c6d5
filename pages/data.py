"""Data: import files into the workspace and download exports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling import escape_inline
from labeling.files import uploads
from labeling.workspace import chunk_sets, contents
from pages import _auth, _common, _live_runs

WHERE = "data"  # messages go to f"{WHERE}_{kind}", under that kind's import button
KINDS = {
    "chunks": ("Chunks",
               "One chunk per row: `id`, `text`, optional `title`, `doc_id`; other fields are kept "
               "as metadata. Re-importing an id updates it."),
    "queries": ("Queries",
                "One query per row: `id`, `text`, optional `source` (real/synthetic), `split` "
                "(dev/test); other fields become segment attributes."),
    "qrels": ("Labels (qrels)",
              "TREC qrels (`query 0 chunk grade`) or a table with query_id, doc_id, relevance. "
              "Rows are added as imported judgments (origin: import, from this file, now), "
              "recorded under the file's name unless you name the source below; never under "
              "your name. Agreement leaves them out; pick one as a reference there. JSON lines "
              "may give a relevant row's `evidence`: where in the chunk's document the answer "
              "is, `[{\"start\": 1040, \"end\": 1122}]` (character offsets, end exclusive)."),
    "run": ("Run",
            "TREC run (`query Q0 chunk rank score tag`) or a table with query_id, doc_id, score."),
}
RUN_META = [
    ("index_build", "Index build"),
    ("chunk_size", "Chunk size"),
    ("embedding_model", "Embedding model"),
    ("query_set_version", "Query set version"),
    ("notes", "Notes"),
]

INFER_CHUNK_SET = "(from its chunk ids)"
ALL_CHUNK_SETS = "(every chunk set, mixed)"


def uploader_key(kind: str) -> str:
    """The uploader's key; it changes after a successful import so the uploader empties."""
    return f"upload_{kind}_{st.session_state.get(f'upload_nonce_{kind}', 0)}"


def do_import(kind: str) -> None:
    upload = st.session_state.get(uploader_key(kind))
    if upload is None:
        _common.flash("error", "Choose a file first.", f"{WHERE}_{kind}")
        return
    state = st.session_state
    options: dict = {"strict": bool(state.get(f"strict_{kind}", False))}
    if kind == "qrels":
        options["annotator"] = str(state.get("qrels_annotator") or "").strip() or None
    if kind == "run":
        options["run_name"] = state.get("run_name") or ""
        options["meta"] = {field: state.get(f"run_{field}") for field, _ in RUN_META}
        options["replace"] = bool(state.get("run_replace", False))
        chosen = state.get("run_chunk_set")
        if chosen and chosen != INFER_CHUNK_SET:
            options["meta"]["chunk_set"] = chosen
    db = _common.get_db()
    before = contents.counts(db)
    try:
        result = uploads.import_bytes(db, kind, upload.name, upload.getvalue(), **options)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, f"{WHERE}_{kind}")
        return
    after = contents.counts(db)
    changes = ", ".join(
        f"{after[t] - before[t]:+d} {t}" for t in after if after[t] != before[t]
    )
    _common.flash(
        "success", f"{upload.name}: {result.summary()}" + (f" ({changes})" if changes else ""),
        f"{WHERE}_{kind}",
    )
    for warning in result.warnings:
        _common.flash("warning", f"{upload.name}: {warning}", f"{WHERE}_{kind}")
    state[f"upload_nonce_{kind}"] = state.get(f"upload_nonce_{kind}", 0) + 1


db = _common.page_setup()
st.title("Data")

st.subheader("Workspace contents")
counts = contents.counts(db)
st.dataframe(
    pd.DataFrame({"table": list(counts), "rows": list(counts.values())}),
    hide_index=True, key="table_counts", width=360,
)

st.subheader("Import")
tabs = st.tabs([label for label, _ in KINDS.values()], key="import_tab", on_change="rerun")
for tab, (kind, (label, help_text)) in zip(tabs, KINDS.items(), strict=True):
    with tab:
        st.caption(help_text)
        st.file_uploader(f"{label} file", key=uploader_key(kind),
                         disabled=not _auth.can(db, "import"),
                         help=_auth.refusal_help(db, "import"))
        if kind == "qrels":
            st.text_input("Recorded as (optional)", key="qrels_annotator",
                          placeholder="the file's name",
                          help="The name these labels go under, e.g. the team or tool that "
                          "made them. A person's name who judges here is refused.")
        if kind == "run":
            st.text_input("Run name", key="run_name", placeholder="e.g. hybrid-v2")
            columns = st.columns(len(RUN_META))
            for column, (field, field_label) in zip(columns, RUN_META, strict=True):
                column.text_input(field_label, key=f"run_{field}")
            names = chunk_sets.chunk_set_names(db)
            if names:
                st.selectbox(
                    "Chunk set", [INFER_CHUNK_SET, *names], key="run_chunk_set",
                    help="The chunk set the run retrieves from: it is scored on that chunk "
                    "set's labels only. From its chunk ids: the one chunk set holding every "
                    "retrieved chunk; when no single one does, the run names none and is "
                    "scored against every chunk set's labels (a warning says so).")
            st.checkbox("Replace a run with the same name", key="run_replace")
        if kind in ("qrels", "run"):
            st.checkbox(
                "Strict: reject ids the workspace does not know", key=f"strict_{kind}",
                help="Otherwise unknown ids are added as placeholders.",
            )
        st.button(f"Import {label.lower()}", key=f"import_{kind}", type="primary",
                  on_click=do_import, args=(kind,), disabled=not _auth.can(db, "import"),
                  help=_auth.refusal_help(db, "import"))
        _common.show_flash(f"{WHERE}_{kind}")

st.subheader("Export")
st.caption("Qrels and the BEIR folder use the consensus grade of each pair.")
sight = _common.sight(db)
if not sight.sees_all:
    st.caption("Blind judging: the qrels, the BEIR folder and the judgments hold your own "
               "judgments and the grades of pairs you have judged yourself (and that are not "
               "waiting for you in the queue), nothing of the rest.")
set_names = chunk_sets.chunk_set_names(db)
qrels_set = None
if len(set_names) > 1:
    qrels_set = st.selectbox(
        "Qrels of chunk set", [*set_names, ALL_CHUNK_SETS], key="qrels_chunk_set",
        help="A run is scored on its own chunk set's labels (and those of chunks in no chunk "
        "set); a file of every chunk set's labels mixes chunkings.")
every_set = qrels_set == ALL_CHUNK_SETS
columns = st.columns(3)
columns[0].download_button(
    "Qrels (TREC)",
    lambda: uploads.qrels_bytes(db, sight, None if every_set else qrels_set, every_set),
    file_name="qrels.txt" if qrels_set is None or every_set
    else f"qrels-{uploads.safe_filename(qrels_set)}.txt",
    mime="text/plain", key="download_qrels", on_click="ignore",
)
columns[1].download_button(
    "Judgments (CSV)", lambda: uploads.judgments_csv_bytes(db, sight),
    file_name="judgments.csv",
    mime="text/csv", key="download_judgments", on_click="ignore",
)
columns[2].download_button(
    "BEIR folder (zip)", lambda: uploads.beir_zip_bytes(db, sight=sight),
    file_name="beir.zip",
    mime="application/zip", key="download_beir", on_click="ignore",
)
names = contents.run_names(db)
if names:
    st.caption("Runs (TREC)")
    run_columns = st.columns(min(len(names), 4))
    for i, name in enumerate(names):
        run_columns[i % len(run_columns)].download_button(
            escape_inline(name), lambda name=name: uploads.run_bytes(db, name),
            file_name=f"{uploads.safe_filename(name)}.trec", mime="text/plain",
            key=f"download_run_{i}", on_click="ignore",
        )

_live_runs.section(db)
