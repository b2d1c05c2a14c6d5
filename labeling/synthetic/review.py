"""The review queue of synthetic candidates: store with quality signals, list, accept, reject.

Storing a candidate computes its quality features (``labeling.synthetic.features``) and score
(``labeling.synthetic.quality_model``); the queue lists pending candidates best first and hides
those below the team's quality floor, saying how many. Accepting a candidate (optionally with
edited text) creates a ``source=synthetic`` query with the source chunk's segment attributes
and a top-grade judgment of the source chunk by annotator ``generator`` flagged
``{"generator": true, "confirm": true}`` (it counts until a person judges the pair, and the
labeling queue asks for confirmation); chunks BM25 ranked above the source go to the labeling
queue as possibly relevant. Rejecting keeps the reason; ``feedback`` reports reasons, edits and
accept rates by form, passage source and generator.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import InputError, ScorecardError
from labeling.judging import queue
from labeling.synthetic import calibration, features, forms, quality, quality_model, sampling
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.rubric import rubric
from labeling.synthetic.settings import get_settings
from labeling.workspace import synthetic_candidates as stored
from labeling.workspace.chunk_store import chunk_texts, chunk_title_text
from labeling.workspace.grading import get_scale
from labeling.workspace.judgments import add_judgment
from labeling.workspace.query_store import add_synthetic_query, next_query_id
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

GENERATOR_ANNOTATOR = "generator"
QUERY_PREFIX = "s"
REJECT_REASONS = (
    "not answerable from the passage",
    "vague or ambiguous",
    "copies the passage",
    "unnatural or ungrammatical",
    "too easy or trivial",
    "duplicate",
    "wrong answer span",
    "other",
)
STATUSES = ("pending", "accepted", "rejected")
log = logging.getLogger(__name__)


def new_batch_id() -> str:
    """A fresh batch id (UTC time and a random suffix)."""
    return f"{utc_now()[:19]}-{uuid.uuid4().hex[:6]}"


Scored = tuple[dict[str, float], quality.RoundTrip]


def score_candidates(
    db: sqlite_utils.Database,
    candidates: Sequence[Candidate],
    *,
    k: int = 10,
    space: features.Workspace | None = None,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[dict[str, float], quality.RoundTrip, float]]:
    """(features, round trip, quality score) of each candidate under ``weights`` (default:
    the workspace's model in force)."""
    space = space or features.Workspace.read(db)
    weights = weights if weights is not None else quality_model.current(db)[0]
    return [(values, trip, quality_model.score(values, weights))
            for values, trip in features.compute(candidates, space, k)]


def add_candidates(
    db: sqlite_utils.Database,
    candidates: Sequence[Candidate],
    *,
    batch: str | None = None,
    k: int = 10,
    index: quality.Bm25Index | None = None,
    space: features.Workspace | None = None,
    scored: Sequence[tuple[dict[str, float], quality.RoundTrip, float]] | None = None,
) -> list[int]:
    """Store ``candidates`` with their quality signals, features and score (one transaction,
    joined by a caller's open one); return their ids. ``scored`` (from ``score_candidates``)
    saves computing them again.

    Candidates whose chunk is not in the workspace raise ``InputError`` and nothing is stored.
    """
    if not candidates:
        return []
    batch = batch or new_batch_id()
    texts = chunk_texts(db)
    missing = sorted({c.chunk_id for c in candidates} - set(texts))
    if missing:
        raise InputError(f"unknown chunk ids {missing[:5]}", source="synthetic candidates")
    questions = [c.question for c in candidates]
    duplicates = quality.near_duplicates(questions, stored.open_questions(db))
    if scored is None:
        space = space or features.Workspace.read(db, index)
        scored = score_candidates(db, candidates, k=k, space=space)
    now = utc_now()
    ids: list[int] = []
    with write_transaction(db, action="add_candidates") as conn:
        for cand, (dup, sim), (values, trip, score) in zip(candidates, duplicates, scored,
                                                             strict=True):
            if dup and dup.startswith("#"):  # an earlier question of this same batch
                dup = f"c:{ids[int(dup[1:])]}"
            row = _candidate_row(cand, texts[cand.chunk_id], (dup, sim), (values, trip, score))
            ids.append(stored.add_candidate(conn, {**row, "batch": batch, "created_at": now}))
    return ids


def _candidate_row(cand: Candidate, text: str, duplicate: tuple[str | None, float],
                   scored: tuple[dict[str, float], quality.RoundTrip, float]) -> dict:
    """The stored columns of a candidate from chunk ``text`` but its batch and time."""
    (dup, sim), (values, trip, score) = duplicate, scored
    return {
        "chunk_id": cand.chunk_id, "question": cand.question,
        "generated_question": cand.question, "sentence": cand.sentence, "answer": cand.answer,
        "answer_start": cand.answer_start, "answer_end": cand.answer_end, "kind": cand.kind,
        "generator": cand.generator, "rubric_problems": json.dumps(cand.problems),
        "overlap": round(quality.overlap(cand.question, text), 4),
        "n_words": len(cand.question.split()),
        "duplicate_of": dup if sim >= quality.NEAR_DUPLICATE else None,
        "duplicate_similarity": round(sim, 4), "source_rank": trip.rank,
        "roundtrip_k": trip.k, "outranking": json.dumps(trip.outranking),
        "form": cand.form or forms.form_of(cand.question), "subject": cand.subject,
        "features": json.dumps(values), "quality": round(score, 6),
        "critic_score": cand.critic, "paragraph_key": features.paragraph_of(cand, text),
    }


# ---------------------------------------------------------------------------------------------
# Reading


def candidates_frame(db: sqlite_utils.Database, status: str | None = None) -> pd.DataFrame:
    """Candidates (in id order) with decoded signals; ``status`` filters.

    Columns include id, status, question, chunk_id, answer, answer_start, answer_end,
    generator, form, kind, subject, quality (0-1, NaN when written before scores),
    critic_score, features (dict), well_formed, rubric_problems (text), overlap, n_words,
    duplicate_of, duplicate_similarity, roundtrip (bool: source in the top k), source_rank,
    outranking (list), reject_reason, reviewer, query_id, edited (bool).
    """
    frame = stored.candidates_table(db, status)
    problems = frame["rubric_problems"].map(json.loads)
    frame["well_formed"] = problems.map(
        lambda p: not [x for x in p if not x.startswith("grammar: ")]
    ).astype(bool)
    frame["rubric_problems"] = problems.map("; ".join)
    frame["outranking"] = frame["outranking"].map(json.loads)
    frame["features"] = frame["features"].map(json.loads)
    frame["roundtrip"] = frame["source_rank"].notna()
    frame["source_rank"] = frame["source_rank"].astype("Int64")
    frame["quality"] = frame["quality"].astype(float)
    frame["edited"] = (frame["status"] == "accepted") & (
        frame["question"] != frame["generated_question"]
    )
    return frame


def review_queue(db: sqlite_utils.Database, frame: pd.DataFrame | None = None,
                 floor: float | None = None) -> tuple[pd.DataFrame, int]:
    """(candidates best first, how many the floor hid): ``frame`` (default: every candidate)
    ordered by quality score, highest first (unscored candidates last, then by id); those whose
    score is below ``floor`` (default: the team's setting) are left out and counted."""
    frame = candidates_frame(db) if frame is None else frame
    floor = get_settings(db)["quality_floor"] if floor is None else float(floor)
    below = frame["quality"].notna() & (frame["quality"] < floor)
    shown = frame[~below].sort_values(["quality", "id"], ascending=[False, True],
                                      na_position="last", kind="stable")
    return shown.reset_index(drop=True), int(below.sum())


def chunk_text(db: sqlite_utils.Database, chunk_id: str) -> tuple[str | None, str]:
    """(title, text) of a chunk."""
    return chunk_title_text(db, chunk_id) or (None, "")


def review_statistics(db: sqlite_utils.Database) -> pd.DataFrame:
    """Counts by generator and status, and rejections by reason: columns generator, status,
    reject_reason, candidates."""
    return stored.review_counts(db)


def feedback(db: sqlite_utils.Database) -> dict[str, pd.DataFrame]:
    """What reviewers' decisions say, as small tables:

    - ``reasons``: reason, rejected, share (of all rejections);
    - ``edits``: generated and accepted text of every candidate accepted after an edit;
    - ``by_form``, ``by_source``, ``by_generator``: the group (form; the passage's document,
      else its chunk id; the generator), decided, accepted, as_written (accepted unedited),
      accept_rate and as_written_rate (shares of decided; NaN when none decided), pending.
    """
    frame = stored.decisions_table(db)
    frame["form"] = frame["form"].where(frame["form"] != "", frame["generated_question"].map(
        forms.form_of))
    rejected = frame[frame["status"] == "rejected"]
    reasons = rejected["reject_reason"].fillna("").value_counts().rename_axis("reason")
    reasons = reasons.rename("rejected").reset_index()
    reasons["share"] = reasons["rejected"] / max(1, len(rejected))
    edited = frame[(frame["status"] == "accepted") & (frame["question"]
                                                       != frame["generated_question"])]
    out = {
        "reasons": reasons,
        "edits": edited[["generated_question", "question"]].rename(
            columns={"generated_question": "generated", "question": "accepted as"}
        ).reset_index(drop=True),
    }
    for name, column in (("by_form", "form"), ("by_source", "source"),
                         ("by_generator", "generator")):
        out[name] = _rates(frame, column)
    return out


def _rates(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    rows = []
    for group, part in frame.groupby(column, sort=True):
        decided = int((part["status"] != "pending").sum())
        accepted = int((part["status"] == "accepted").sum())
        as_written = int(((part["status"] == "accepted")
                          & (part["question"] == part["generated_question"])).sum())
        rows.append({
            column: group, "decided": decided, "accepted": accepted, "as_written": as_written,
            "accept_rate": accepted / decided if decided else float("nan"),
            "as_written_rate": as_written / decided if decided else float("nan"),
            "pending": int((part["status"] == "pending").sum()),
        })
    columns = [column, "decided", "accepted", "as_written", "accept_rate", "as_written_rate",
               "pending"]
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------------------------
# Decisions


def _pending(conn, candidate_id: int) -> dict:
    conn_row = stored.candidate_for_decision(conn, candidate_id)
    if conn_row is None:
        raise InputError(f"no candidate {candidate_id}", source="review")
    cid, chunk_id, question, status, outranking, form, generator = conn_row
    if status != "pending":
        raise ScorecardError(f"candidate {cid} is already {status}")
    return {"chunk_id": chunk_id, "question": question, "outranking": json.loads(outranking),
            "form": form, "generator": generator}


def accept(
    db: sqlite_utils.Database, candidate_id: int, reviewer: str, *, question: str | None = None
) -> str:
    """Accept a pending candidate (with ``question`` as edited text, if given); return the new
    query id. The query, its attributes, the generator judgment and the candidate's status are
    written in one transaction; the outranking chunks are then enqueued for labeling."""
    reviewer = (reviewer or "").strip()
    if not reviewer:
        raise InputError("enter your name (Annotator, in the sidebar) to review", source="review")
    attributes = sampling.chunk_attributes(db)
    scale = get_scale(db)
    if not scale:
        raise ScorecardError("the workspace has no relevance scale")
    top = max(g for g, _, _ in scale)
    with write_transaction(db, action="accept") as conn:
        row = _pending(conn, candidate_id)
        text = (question if question is not None else row["question"]).strip()
        if not text:
            raise InputError("the question is empty", source="review")
        keyword = forms.form_of(text) == "keyword" and row["form"] == "keyword"
        problems = rubric(text) if question is not None and not keyword else []
        if "does not end with a single '?'" in problems:
            text = text.rstrip("?. ") + "?"
        qid = next_query_id(conn, QUERY_PREFIX)
        add_synthetic_query(conn, qid, text, attributes.get(row["chunk_id"], {}))
        add_judgment(
            db, qid, row["chunk_id"], top, GENERATOR_ANNOTATOR,
            note=f"synthetic candidate {candidate_id}",
            flags={"generator": True, "confirm": True},
            origin="generator", origin_source=row["generator"],
        )
        stored.mark_accepted(conn, candidate_id, text, reviewer, qid, utc_now())
        pairs = [(qid, chunk) for chunk in row["outranking"]]
        if pairs:
            _enqueue(db, pairs)
    return qid


def _enqueue(db: sqlite_utils.Database, pairs: list[tuple[str, str]]) -> None:
    queue.enqueue_pairs(db, pairs, reason="synthetic")


def reject(db: sqlite_utils.Database, candidate_id: int, reviewer: str, reason: str) -> None:
    """Reject a pending candidate with a reason (kept for the team's statistics)."""
    reviewer, reason = (reviewer or "").strip(), (reason or "").strip()
    if not reviewer:
        raise InputError("enter your name (Annotator, in the sidebar) to review", source="review")
    if not reason:
        raise InputError("give a reason for rejecting", source="review")
    with write_transaction(db, action="reject") as conn:
        _pending(conn, candidate_id)
        stored.mark_rejected(conn, candidate_id, reason, reviewer, utc_now())


def accept_many(db: sqlite_utils.Database, ids: Iterable[int], reviewer: str) -> list[str]:
    """Accept each pending candidate of ``ids`` as generated; return the new query ids."""
    return [accept(db, int(i), reviewer) for i in ids]


def reject_many(db: sqlite_utils.Database, ids: Iterable[int], reviewer: str, reason: str) -> int:
    """Reject each candidate of ``ids`` with ``reason`` in one transaction; return the count."""
    ids = [int(i) for i in ids]
    with write_transaction(db, action="reject"):
        for cid in ids:
            reject(db, cid, reviewer, reason)
    return len(ids)


# ---------------------------------------------------------------------------------------------
# What the page shows


def quality_label(score: float | None) -> str:
    """A quality score as the page shows it: "87/100" (the predicted chance, in percent, that
    a reviewer accepts the question as written), or "not scored"."""
    if score is None or pd.isna(score):
        return "not scored"
    return f"{round(float(score) * 100)}/100"


def explain(values: Mapping[str, float], weights: Mapping[str, float]) -> pd.DataFrame:
    """What a score is made of: feature, value, weight and contribution (value x weight), the
    intercept first; the contributions sum to the score's log-odds."""
    rows = [{"feature": quality_model.INTERCEPT, "value": 1.0,
             "weight": float(weights.get(quality_model.INTERCEPT, 0.0))}]
    rows += [{"feature": name, "value": float(values.get(name, 0.0)),
              "weight": float(weights.get(name, 0.0))} for name in features.FEATURES]
    frame = pd.DataFrame(rows)
    frame["contribution"] = (frame["value"] * frame["weight"]).round(4)
    return frame


def floor_sentence(hidden: int, floor: float) -> str:
    """The caption of the queue under a floor ('' when the floor hides nothing)."""
    if not hidden:
        return ""
    noun = "candidate" if hidden == 1 else "candidates"
    return (f"{hidden} {noun} below the quality floor of {quality_label(floor)} are hidden "
            "(Settings, below, changes the floor).")


def expected_sentence(queue: pd.DataFrame, db: sqlite_utils.Database) -> str:
    """What the pending questions of ``queue`` are expected to yield
    (``calibration.expected_accept``: the mean quality score, corrected by the workspace's
    decisions while the weights are the defaults, and what the weights were fitted on). ''
    when nothing is pending."""
    pending = queue[(queue["status"] == "pending") & queue["quality"].notna()]
    about = quality_model.current(db)[1]
    decided = ((), ()) if about["source"] == "learned" else stored.decided_scores(db)
    expected = calibration.expected_accept(pending["quality"].tolist(), about, decided)
    return expected.sentence() if expected is not None else ""
