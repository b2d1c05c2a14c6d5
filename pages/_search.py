"""Find in the corpus: search every chunk for a query (the query's text prefilled) and judge any
hit in place. Used by the Label card, Judge by query and the dashboard's drill-down.

A hit judged here is recorded "found by search" (``labeling.judging.corpus_search``). Every
grade control starts with no grade for a pair the person has not judged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import sqlite_utils
import streamlit as st

from labeling import chunk_markup, escape_inline
from labeling.judging import corpus_search, hit_context, queue
from pages import _auth, _common


def key_part(text: str) -> str:
    """A short digest of user text, for widget keys (keys name DOM classes)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def _judge(query_id: str, chunk_id: str, widget: str, text_key: str, where: str) -> None:
    state = st.session_state
    grade = state.get(widget)
    if grade is None:  # the selected grade clicked again clears the control: no judgment
        return
    try:
        corpus_search.judge_found(_common.get_db(), query_id, chunk_id, int(grade),
                                  _common.annotator(), search_text=str(state.get(text_key) or ""))
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, where)
        return
    _common.flash("success", f"Saved grade {grade} for {chunk_id} (found by search).", where)


def search_panel(
    db: sqlite_utils.Database,
    query_id: str,
    query_text: str,
    scale: list[tuple[int, str, str]],
    *,
    prefix: str,
    where: str,
    run_ranks: Mapping[str, int] | None = None,
    run_name: str | None = None,
) -> None:
    """The search box and its hits, each with a grade control, the labels it has that this
    session may see, and, where runs may be shown (``run_ranks`` given: the dashboard, never a
    blind page), every run that retrieved it; ``run_ranks`` (chunk id -> rank in ``run_name``)
    names the picked run first."""
    digest = key_part(query_id)
    text_key = f"{prefix}_search_{digest}"
    names = {g: n for g, n, _ in scale}
    name = _common.annotator()
    with st.container(border=True, key=f"{prefix}_search_panel"):
        text = st.text_input(
            "Find in the corpus", value=query_text, key=text_key,
            help="Every chunk of the workspace, ranked by BM25 over titles and texts; a chunk "
            "you judge here is marked found by search.")
        results = corpus_search.search(db, text)
        hits = results.hits
        _common.show_flash(where)
        left_out = (f" Left out, held by too many chunks: {' '.join(results.left_out)}."
                    if results.left_out else "")
        if not hits:
            st.caption(escape_inline("No chunk holds these words." + left_out))
            return
        found = corpus_search.found_by_search(db, query_id, [h.chunk_id for h in hits])
        known = hit_context.hit_contexts(db, query_id, [h.chunk_id for h in hits],
                                         _common.sight(db, query_id))
        terms = " ".join(results.words)
        st.caption(escape_inline(
            f"Top {len(hits)} of the corpus for: {terms}. BM25, higher is better.{left_out}"))
        for hit in hits:
            widget = f"{prefix}_hit_{digest}_{key_part(hit.chunk_id)}"
            mine = queue.current_grade(db, query_id, hit.chunk_id, name) if name else None
            notes = [f"{hit.rank}. {hit.chunk_id}", hit.title or "untitled",
                     f"BM25 {hit.score:.2f}"]
            if run_ranks is not None:
                rank = run_ranks.get(hit.chunk_id)
                notes.append(f"rank {rank} in {run_name}" if rank is not None
                             else f"not retrieved by {run_name}")
            notes += known[hit.chunk_id].notes(show_runs=run_ranks is not None)
            if hit.chunk_id in found:
                notes.append("found by search")
            if mine is not None:
                notes.append(f"your grade {mine} {names.get(mine, '')}".rstrip())
            with st.container(border=True, key=f"{widget}_box"):
                st.caption(escape_inline(" · ".join(notes)))
                st.markdown(hit.snippet)
                with st.expander("Whole chunk"):
                    st.markdown(chunk_markup.render_terms(hit.text, terms))
                if widget not in st.session_state and mine is not None:
                    st.session_state[widget] = mine
                st.segmented_control(
                    "Grade", list(names), format_func=lambda g: escape_inline(f"{g} {names[g]}"),
                    key=widget, on_change=_judge,
                    args=(query_id, hit.chunk_id, widget, text_key, where),
                    disabled=not name or not _auth.can(db, "judge"),
                    help=_auth.refusal_help(db, "judge"), label_visibility="collapsed",
                )
