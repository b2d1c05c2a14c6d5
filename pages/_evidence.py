"""The evidence step of the judging pages: after a relevant grade (saved at once), the expert
picks the sentence(s) that answer the query, by digit keys or clicks, and saves them as the
judgment's evidence, or skips. The chunk text is drawn through ``labeling.chunk_markup`` with
the picked sentences marked (user text is never markup)."""

from __future__ import annotations

import sqlite_utils
import streamlit as st

from labeling import chunk_markup, escape_inline, escape_markdown, placed_chunk
from labeling.judging import shortcuts
from labeling.workspace import attach_evidence
from pages import _common, _keys

ASK = "ask_evidence"  # one session setting for every judging page
MAX_KEYED = 9  # sentences 1-9 have a digit key; the rest are clicked
SNIPPET = 90


def _remember() -> None:
    st.session_state[ASK] = bool(st.session_state.get(f"{ASK}_widget"))


def ask_toggle() -> None:
    """The session's choice: ask for the answering sentence after each relevant grade."""
    # The choice lives in its own session key: a widget's state is dropped on the runs that
    # do not draw it (the evidence step itself).
    st.session_state[f"{ASK}_widget"] = bool(st.session_state.get(ASK, False))
    st.toggle("Mark the answer after a relevant grade", key=f"{ASK}_widget",
              on_change=_remember,
              help="After you grade a chunk relevant, pick the sentence(s) that answer the "
                   "query (keys 1-9 or click) or skip. The answer's place lets a re-chunking "
                   "carry your label exactly to the piece that holds it.")


def begin(state_key: str, db: sqlite_utils.Database, judgment_id: int, pair: tuple[str, str],
          grade: int) -> None:
    """Open the evidence step for a relevant judgment of a chunk placed in a document."""
    if grade >= 1 and placed_chunk(db, pair[1]) is not None:
        st.session_state[state_key] = {"judgment": int(judgment_id), "pair": tuple(pair),
                                       "picked": []}


def _toggle(state_key: str, index: int) -> None:
    picked = st.session_state[state_key]["picked"]
    if index in picked:
        picked.remove(index)
    else:
        picked.append(index)


def _save(state_key: str, where: str) -> None:
    step = st.session_state.get(state_key)
    if not step:
        return
    db = _common.get_db()
    chunk = placed_chunk(db, step["pair"][1])
    sentences = chunk.sentences() if chunk else []
    spans = [sentences[i] for i in sorted(step["picked"]) if i < len(sentences)]
    if spans:
        try:
            attach_evidence(db, step["judgment"], spans, _common.annotator())
        except Exception as error:  # shown to the user as one line
            _common.report_failure(error, where)
            return
        _common.flash("success", f"Saved the answer: {len(spans)} sentence"
                      + ("" if len(spans) == 1 else "s") + ".", where)
    st.session_state.pop(state_key, None)


def _skip(state_key: str) -> None:
    st.session_state.pop(state_key, None)


def draw(state_key: str, prefix: str, query_text: str, where: str) -> bool:
    """Draw the open evidence step (True), or nothing (False)."""
    step = st.session_state.get(state_key)
    if not step:
        return False
    chunk = placed_chunk(_common.get_db(), step["pair"][1])
    if chunk is None:
        st.session_state.pop(state_key, None)
        return False
    sentences = chunk.sentences()
    picked = sorted(i for i in step["picked"] if i < len(sentences))
    with st.container(border=True, key=f"{prefix}_evidence"):
        st.markdown(f"#### {escape_markdown(query_text)}")
        st.caption("Saved. Where is the answer? Pick the sentence(s) that answer the query "
                   "(keys 1-9 or click), then save them (E), or skip (S).")
        with st.container(key=f"{prefix}_evidence_text"):
            st.markdown(chunk_markup.render(chunk.text, chunk.marks(
                [sentences[i] for i in picked])))
        bindings = {}
        for i, (start, end) in enumerate(sentences):
            text = " ".join(chunk.document[start:end].split())
            text = text if len(text) <= SNIPPET else text[:SNIPPET - 1] + "…"
            digit = str(i + 1) if i < MAX_KEYED else None
            label = f"{digit} · {text}" if digit else text
            st.button(escape_inline(label), key=f"{prefix}_sentence_{i}", on_click=_toggle,
                      args=(state_key, i), shortcut=digit,
                      type="primary" if i in picked else "secondary")
            if digit:
                bindings[digit] = f"{prefix}_sentence_{i}"
        columns = st.columns(2)
        columns[0].button(shortcuts.EVIDENCE_LABELS["save_evidence"],
                          key=f"{prefix}_save_evidence", on_click=_save,
                          args=(state_key, where), disabled=not picked,
                          shortcut=shortcuts.EVIDENCE_ACTIONS["save_evidence"])
        columns[1].button(shortcuts.EVIDENCE_LABELS["skip_evidence"],
                          key=f"{prefix}_skip_evidence", on_click=_skip, args=(state_key,),
                          shortcut=shortcuts.EVIDENCE_ACTIONS["skip_evidence"])
    bindings |= {k.lower(): f"{prefix}_{a}" for a, k in shortcuts.EVIDENCE_ACTIONS.items()}
    _keys.keyboard(bindings)
    return True
