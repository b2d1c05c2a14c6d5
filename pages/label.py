"""Label: the judging card. One pair at a time, blind (no run, rank or score), keyboard first."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling import escape_inline, escape_markdown, evidence_marks
from labeling.files import exporters as exports
from labeling.judging import (
    corpus_search,
    guideline,
    pooling,
    queue,
    shortcuts,
    standing,
    visibility,
)
from labeling.workspace import contents, grading, query_store
from pages import _auth, _common, _evidence, _judging, _keys, _search

WHERE = "label"
CURRENT, TRAIL, SAVED, NONCE = "label_current", "label_trail", "label_saved", "label_nonce"
QUEUE = "label_queue"  # which queue the cards come from (queue.QUEUES)
EVIDENCE = "label_evidence_step"  # the answer to pick after a relevant grade (pages/_evidence)
ALL = "(all)"
# Panels opened by a key: session flag -> (action of the shortcut registry, widget key).
PANELS = {"label_show_search": "search", "label_show_context": "context",
          "label_show_guideline": "guideline"}


def _state() -> dict:
    state = st.session_state
    state.setdefault(TRAIL, [])
    state.setdefault(SAVED, [])
    state.setdefault(NONCE, 0)
    return state


def _queue_name() -> str:
    return st.session_state.get(QUEUE) or queue.SHARED


def _advance(exclude: tuple[str, str] | None) -> None:
    """Show the next card at once (the rerun after this callback draws it)."""
    state = _state()
    card = queue.next_card(_common.get_db(), _common.annotator(),
                           exclude=[exclude] if exclude else (), queue_name=_queue_name())
    state[CURRENT] = card.pair if card else None
    state[NONCE] += 1  # fresh note and reason fields for the new card


def _note() -> str:
    state = _state()
    return str(state.get(f"label_note_{state[NONCE]}") or "")


def _record(write) -> None:
    """Save a judgment of the current pair with ``write(db, query_id, chunk_id)``, then move on."""
    state = _state()
    pair = state.get(CURRENT)
    if not pair:
        return
    try:
        judgment_id = write(_common.get_db(), pair[0], pair[1])
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    state[SAVED].append(judgment_id)
    state[TRAIL].append(pair)
    _advance(pair)


def grade(value: int) -> None:
    state = _state()
    pair, saved = state.get(CURRENT), len(state[SAVED])
    _record(lambda db, query_id, chunk_id: queue.save_judgment(
        db, query_id, chunk_id, value, _common.annotator(), note=_note()
    ))
    if pair and len(state[SAVED]) > saved and state.get(_evidence.ASK):  # where is the answer?
        _evidence.begin(EVIDENCE, _common.get_db(), state[SAVED][-1], pair, value)


def cant_judge() -> None:
    state = _state()
    reason = str(state.get(f"label_reason_{state[NONCE]}") or "").strip()
    _record(lambda db, query_id, chunk_id: queue.cant_judge(
        db, query_id, chunk_id, _common.annotator(), reason
    ))


def skip() -> None:
    state = _state()
    pair = state.get(CURRENT)
    if not pair:
        return
    try:
        queue.skip(_common.get_db(), pair[0], pair[1], _common.annotator())
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    state[TRAIL].append(pair)
    _advance(pair)


def back() -> None:
    state = _state()
    if not state[TRAIL]:
        _common.flash("warning", "Nothing to go back to in this session.", WHERE)
        return
    state[CURRENT] = state[TRAIL].pop()
    state[NONCE] += 1


def undo() -> None:
    state = _state()
    if not state[SAVED]:
        _common.flash("warning", "Nothing to undo in this session.", WHERE)
        return
    judgment_id = state[SAVED].pop()
    db = _common.get_db()
    try:
        queue.undo(db, judgment_id, _common.annotator())
        pair = queue.judgment_pair(db, judgment_id)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    if pair in state[TRAIL]:
        state[TRAIL].remove(pair)
    state[CURRENT] = pair
    state[NONCE] += 1
    _common.flash("success", "Undone: the pair is back on the card.", WHERE)


def build_pool(runs_key: str) -> None:
    state = st.session_state
    split = state.get("pool_split")
    attribute = state.get("pool_segment_attr")
    values = state.get("pool_segment_values") or []
    segment = (attribute, values) if attribute and attribute != ALL and values else None
    try:
        result = pooling.build_pool(
            _common.get_db(), state.get(runs_key) or [], int(state.get("pool_k") or 10),
            split=None if split in (None, ALL) else split, segment=segment,
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, "label_pool")
        return
    _common.flash("success", result.sentence(), "label_pool")
    if state.get(CURRENT) is None:
        _advance(None)


def save_guideline() -> None:
    try:
        guideline.set_guideline(_common.get_db(), str(st.session_state.get("guideline_text") or ""),
                                by=_common.annotator() or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, "label_guideline")
        return
    _common.flash("success", "Guideline saved: every judging page shows it (key G).",
                  "label_guideline")


def save_overlap() -> None:
    share = float(st.session_state.get("overlap_share_input") or 0) / 100
    try:
        pairs = queue.set_overlap_share(_common.get_db(), share)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, "label_pool")
        return
    _common.flash("success", f"Overlap set to {share:.0%}: {pairs} queued pairs need two people.",
                  "label_pool")


# ---------------------------------------------------------------------------------------------

db = _common.page_setup()
st.title("Label")
name = _common.judging_as("label_name")
scale = grading.get_scale(db)
grades = [g for g, _, _ in scale]
keys = shortcuts.grade_keys(grades)
may_judge = _auth.can(db, "judge")

with st.expander("Build the queue", expanded=False):
    runs = contents.run_names(db)
    st.caption("Pooling: the union of the top k of the chosen runs goes to the queue. Run names "
               "are used here only; judging stays blind.")
    columns = st.columns([3, 1, 1])
    columns[0].multiselect("Runs to pool", runs, default=runs[:2], key="pool_runs")
    columns[1].number_input("k", 1, 1000, pooling.DEFAULT_K, 1, key="pool_k")
    columns[2].selectbox("Split", [ALL, *query_store.SPLITS], key="pool_split")
    attributes = query_store.attribute_names(db)
    columns = st.columns([1, 3])
    attribute = columns[0].selectbox("Segment attribute", [ALL, *attributes],
                                     key="pool_segment_attr")
    if attribute and attribute != ALL:
        values = sorted({v for v in contents.query_segments(db, attribute).values() if v})
        columns[1].multiselect("Only these segments", values, key="pool_segment_values")
    st.button("Add pooled pairs to the queue", key="pool_build", on_click=build_pool,
              args=("pool_runs",), disabled=not _auth.can(db, "enqueue"), type="primary",
              help=_auth.refusal_help(db, "enqueue"))
    st.number_input(
        "Overlap: share of pairs judged by at least two people (%)", 0, 100,
        int(round(queue.overlap_share(db) * 100)), 5, key="overlap_share_input",
        help="Those pairs are served to a second annotator; agreement is measured on them.",
    )
    st.button("Save overlap", key="overlap_save", on_click=save_overlap,
              disabled=not _auth.can(db, "set_overlap"),
              help=_auth.refusal_help(db, "set_overlap"))
    _common.show_flash("label_pool")

with st.expander("Judging guideline", expanded=False):
    st.caption("Markdown for every judge: what counts as relevant here, borderline cases, "
               "examples. Judges open it with G. Tables, lists and code blocks render; nothing "
               "becomes a link or HTML.")
    if "guideline_text" not in st.session_state:
        st.session_state["guideline_text"] = guideline.guideline(db)
    may_write = _auth.can(db, "set_guideline")
    st.text_area("Guideline", key="guideline_text", height=160, disabled=not may_write)
    st.button("Save guideline", key="guideline_save", on_click=save_guideline,
              disabled=not may_write, help=_auth.refusal_help(db, "set_guideline"))
    _common.show_flash("label_guideline")

if not name:
    st.stop()  # the name field above starts judging

state = _state()
audit_left = queue.progress(db, name, queue.AUDIT).left_for_me
st.radio("Queue", list(queue.QUEUES), key=QUEUE, horizontal=True,
         format_func=lambda q: "Labeling queue" if q == queue.SHARED
         else f"Audit of machine judges ({audit_left} left for you)",
         on_change=_advance, args=(None,),
         help="The audit's pairs are served only from its own queue: a machine judge's grades "
         "stay hidden while you judge them.")
if CURRENT not in state:
    card = queue.next_card(db, name, lease=may_judge, queue_name=_queue_name())
    state[CURRENT] = card.pair if card else None


def draw_progress() -> None:
    """Fill the progress bars: drawn last (counting a large queue takes a moment) into a slot
    at the top, so the next card reaches the browser first."""
    done = queue.progress(db, name, _queue_name())
    if done.pooled == 0:
        bars.caption(f"{queue.QUEUES[_queue_name()].capitalize()} is empty: 0 pairs queued.")
        return
    columns = bars.columns(2)
    columns[0].progress(done.my_share,
                        text=f"You: {done.mine} judged · {done.left_for_me} left for you")
    columns[1].progress(done.team_share,
                        text=f"Team: {done.complete} of {done.pooled} pooled pairs complete")


def _percent(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.0%}"


def draw_standing() -> None:
    """Where the session stands: this person's pace and corrections, the team's hours left.
    Computed only while open (it reads every person's judgment times)."""
    box = st.expander("Where the session stands", key="label_standing", on_change="rerun")
    if not box.open:
        return
    with box:
        mine = standing.person_standing(db, name)
        team = standing.team_standing(db)
        pace = mine.pace
        columns = st.columns(4)
        columns[0].metric("Your judgments per hour", "n/a" if pace is None or pace.per_hour is None
                          else f"{pace.per_hour:.0f}",
                          help="Over your latest session (a break of 10 minutes or more starts a "
                          "new one).")
        columns[1].metric("Your median seconds per card",
                          "n/a" if pace is None or pace.seconds_per_card is None
                          else f"{pace.seconds_per_card:.1f}",
                          help="The time between two of your judgments within a session.")
        columns[2].metric("Your pairs corrected", _percent(mine.corrected_share),
                          help="Of the pairs you graded: those you graded again differently, "
                          "or that an adjudication decided otherwise.")
        columns[3].metric("Your pairs disputed", _percent(mine.disputed_share),
                          help="Of the pairs you graded: those another person graded "
                          "differently.")
        st.caption(escape_inline(
            f"{mine.pairs} pairs graded by {name}; {mine.corrected} corrected, {mine.disputed} "
            "disputed."))
        basis = ("the team's median time per card" if team.measured
                 else "a default of 30 s per card (nobody has a timed card yet)")
        st.caption(escape_inline(
            f"Team: {team.votes_needed} judgments still needed on {team.open_pairs} open pairs; "
            f"about {team.hours_left:.1f} hours at {team.seconds_per_card:.0f} s per card "
            f"({basis})."))


bars = st.container(key="label_progress")
_common.show_flash(WHERE)

step = state.get(EVIDENCE)
if step and _evidence.draw(EVIDENCE, "label", queue.card_for(db, *step["pair"]).query_text,
                           WHERE):
    st.stop()

pair = state.get(CURRENT)
if pair is None and _queue_name() == queue.AUDIT:
    st.success("Nothing left in the audit for you: draw an audit sample on the Machine judges "
               "page, or switch to the labeling queue.")
elif pair is None:
    if queue.progress(db, name).pooled == 0:
        st.info("The labeling queue is empty. Fill it: open *Build the queue* above, choose runs "
                "and press *Add pooled pairs to the queue*; or send unjudged pairs from the "
                "Dashboard (Coverage tab); accepted synthetic questions (Review) add theirs. "
                "Judge by query and the Dashboard's drill-down can also find any chunk in the "
                "corpus and judge it.")
    else:
        st.success("Nothing left in the queue for you: the open pairs wait for other people, "
                   "or are complete. Pool more runs above, or come back later.")
if pair is None:
    columns = st.columns(6)
    columns[0].button(shortcuts.LABELS["back"], key="label_back", on_click=back,
                      shortcut=shortcuts.key("back"))
    columns[1].button(shortcuts.LABELS["undo"], key="label_undo", on_click=undo,
                      shortcut=shortcuts.key("undo"), disabled=not _auth.can(db, "undo"),
                      help=_auth.refusal_help(db, "undo"))
    _keys.keyboard({"b": "label_back", "u": "label_undo"})
    draw_progress()
    draw_standing()
    st.stop()

card = queue.card_for(db, *pair)
mine = queue.current_grade(db, card.query_id, card.chunk_id, name)
history = queue.pair_history(db, card.query_id, card.chunk_id)

with st.container(border=True, key="label_card"):
    st.caption(f"Query · {escape_markdown(card.query_id)}")
    st.markdown(f"#### {escape_markdown(card.query_text)}")
    _judging.narrative(card.narrative)
    st.caption(f"Chunk · {escape_markdown(card.chunk_id)}"
               + (f" · {escape_markdown(card.title)}" if card.title else ""))
    with st.container(key="label_chunk"):
        _judging.chunk_text(card.chunk_text, card.query_text,
                            evidence_marks.own_marks(db, card.query_id, card.chunk_id, name))
    if mine is not None:
        st.info(f"Your current grade: {mine}. A new grade is appended as a correction.")

_evidence.ask_toggle()
columns = st.columns(len(scale))
for column, (value, grade_name, _) in zip(columns, scale, strict=True):
    column.button(
        escape_inline(f"{keys.get(value, '')} · {grade_name}" if value in keys else grade_name),
        key=f"label_grade_{value}", on_click=grade, args=(value,), shortcut=keys.get(value),
        width="stretch", disabled=not may_judge, help=_auth.refusal_help(db, "judge"),
        type="primary" if value == mine else "secondary",
    )
for column, (_, _, meaning) in zip(columns, scale, strict=True):
    if meaning:
        column.caption(escape_markdown(meaning))

nonce = state[NONCE]
columns = st.columns(2)
columns[0].text_input("Note (optional)", key=f"label_note_{nonce}",
                      placeholder="saved with the grade")
columns[1].text_input("Can't judge: why?", key=f"label_reason_{nonce}",
                      placeholder="e.g. needs legal knowledge")
action_buttons = [
    ("cant_judge", cant_judge), ("skip", skip), ("back", back), ("undo", undo),
]
# Actions on one row, panels on the next: in one row of seven, a 1280-pixel window cut the
# labels off ("Find in the co…").
columns = st.columns(len(action_buttons))
for column, (action, callback) in zip(columns, action_buttons, strict=True):
    column.button(
        shortcuts.LABELS[action], key=f"label_{action}",
        on_click=callback, shortcut=shortcuts.key(action), width="stretch",
        disabled=action != "back"
        and not _auth.can(db, "judge" if action == "cant_judge" else action),
        help=None if action == "back"
        else _auth.refusal_help(db, "judge" if action == "cant_judge" else action),
    )
opened = {}
for column, (flag, action) in zip(st.columns(len(PANELS)), PANELS.items(), strict=True):
    with column:
        opened[action] = _judging.toggle(flag, shortcuts.LABELS[action], f"label_toggle_{action}",
                                         shortcuts.key(action))
st.caption("Keys: " + escape_markdown(shortcuts.legend(grades, [n for _, n, _ in scale]))
           + ". The keypad's digits grade too, and letters work with Shift or Caps Lock. Keys "
           "do nothing while the cursor is in a text field (press Enter or Tab, or click "
           "outside it).")
if opened["guideline"]:
    _judging.guideline_panel(db, scale)
if opened["context"]:
    _judging.context_panel(db, card.chunk_id, card.query_text)
if opened["search"]:
    _search.search_panel(db, card.query_id, card.query_text, scale, prefix="label_find",
                         where="label_find")

# Counted after the blind rule: a hidden grade (a machine's, another person's) is not counted.
shown = visibility.visible_judgments(history, _common.sight(db, card.query_id))
plural = "" if len(shown) == 1 else "s"
with st.expander(f"History of this pair ({len(shown)} judgment{plural})", expanded=False):
    sources = corpus_search.pair_sources(db, card.query_id, card.chunk_id)
    if sources:
        st.caption(escape_inline("How this pair reached the judges: " + " · ".join(sources)))
    if any(r.get("origin") != "machine" for r in history if r not in shown):
        st.caption("Other people's grades appear after you judge the pair, so yours stays "
                   "independent.")
    history = shown
    frame = pd.DataFrame(history, columns=["id", "annotator", "origin", "origin_source", "grade",
                                           "created_at", "note", "flags"])
    frame["flags"] = frame["flags"].map(lambda f: ", ".join(sorted(f)) if f else "")
    _common.dataframe(frame, "label_history", hide_index=True)
    st.download_button("Download CSV", exports.csv_bytes(frame), "pair_history.csv",
                       "text/csv", key="label_history_csv")

bindings = {k: f"label_grade_{g}" for g, k in keys.items()}
bindings |= {shortcuts.key(a).lower(): f"label_{a}" for a in ("cant_judge", "skip", "back", "undo")}
bindings |= {shortcuts.key(a).lower(): f"label_toggle_{a}" for a in PANELS.values()}
_keys.keyboard(bindings)
draw_progress()
draw_standing()
