"""The review queue of synthetic candidates: store with quality signals, list, accept, reject.

Accepting a candidate (optionally with edited text) creates a ``source=synthetic`` query with
the source chunk's segment attributes and a top-grade judgment of the source chunk by annotator
``generator`` flagged ``{"generator": true, "confirm": true}`` (it counts until a person judges
the pair, and the labeling queue asks for confirmation); chunks BM25 ranked above the source go
to the labeling queue as possibly relevant. Rejecting keeps the reason for the statistics.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable, Sequence

import pandas as pd
import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.judging import queue
from labeling.synthetic import llm, offline, quality, sampling
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.rubric import rubric
from labeling.workspace.grading import get_scale
from labeling.workspace.judgments import add_judgment
from labeling.workspace.query_store import next_query_id
from labeling.workspace.store import utc_now, write_transaction

GENERATOR_ANNOTATOR = "generator"
QUERY_PREFIX = "s"
REJECT_REASONS = (
    "not answerable from the passage",
    "copies the passage",
    "unnatural or ungrammatical",
    "too easy or trivial",
    "duplicate",
    "wrong answer span",
    "vague or ambiguous",
    "other",
)
STATUSES = ("pending", "accepted", "rejected")
log = logging.getLogger(__name__)


def new_batch_id() -> str:
    """A fresh batch id (UTC time and a random suffix)."""
    return f"{utc_now()[:19]}-{uuid.uuid4().hex[:6]}"


def add_candidates(
    db: sqlite_utils.Database,
    candidates: Sequence[Candidate],
    *,
    batch: str | None = None,
    k: int = 10,
    index: quality.Bm25Index | None = None,
) -> list[int]:
    """Store ``candidates`` with their quality signals (one transaction); return their ids.

    Candidates whose chunk is not in the workspace raise ``InputError`` and nothing is stored.
    """
    if not candidates:
        return []
    batch = batch or new_batch_id()
    texts = dict(db.conn.execute("SELECT id, coalesce(text, '') FROM chunks"))
    missing = sorted({c.chunk_id for c in candidates} - set(texts))
    if missing:
        raise InputError(f"unknown chunk ids {missing[:5]}", source="synthetic candidates")
    questions = [c.question for c in candidates]
    others = [(f"q:{qid}", text) for qid, text in db.conn.execute(
        "SELECT id, text FROM queries WHERE text IS NOT NULL"
    )] + [(f"c:{cid}", text) for cid, text in db.conn.execute(
        "SELECT id, question FROM synthetic_candidates WHERE status != 'rejected'"
    )]
    duplicates = quality.near_duplicates(questions, others)
    trips = (index or quality.Bm25Index(db)).round_trip(
        questions, [c.chunk_id for c in candidates], k
    )
    now = utc_now()
    ids: list[int] = []
    with write_transaction(db, action="add_candidates") as conn:
        for cand, (dup, sim), trip in zip(candidates, duplicates, trips, strict=True):
            if dup and dup.startswith("#"):  # an earlier question of this same batch
                dup = f"c:{ids[int(dup[1:])]}"
            cursor = conn.execute(
                "INSERT INTO synthetic_candidates (batch, chunk_id, question, generated_question,"
                " sentence, answer, answer_start, answer_end, kind, generator, rubric_problems,"
                " overlap, n_words, duplicate_of, duplicate_similarity, source_rank, roundtrip_k,"
                " outranking, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    batch, cand.chunk_id, cand.question, cand.question, cand.sentence,
                    cand.answer, cand.answer_start, cand.answer_end, cand.kind, cand.generator,
                    json.dumps(cand.problems), round(
                        quality.overlap(cand.question, texts[cand.chunk_id]), 4
                    ),
                    len(cand.question.split()),
                    dup if sim >= quality.NEAR_DUPLICATE else None, round(sim, 4),
                    trip.rank, trip.k, json.dumps(trip.outranking), now,
                ),
            )
            ids.append(int(cursor.lastrowid))
    return ids


def generate(
    db: sqlite_utils.Database,
    n: int,
    *,
    generator: str = "offline",
    seed: int = 0,
    strategy: str = "random",
    segment: str | None = None,
    per_chunk: int = 2,
    k: int = 10,
    llm_client=None,
) -> tuple[list[int], list[str]]:
    """Sample ``n`` chunks, generate up to ``per_chunk`` questions each and store them.

    Offline: well-formed questions only. LLM (``llm_client``: a ``labeling.synthetic.llm``
    client, default from the environment): questions from the chunks that succeeded are
    stored even when later calls fail. Returns (candidate ids, error messages).
    """
    chunks = sampling.sample_chunks(db, n, strategy=strategy, seed=seed, segment=segment)
    candidates: list[Candidate] = []
    errors: list[str] = []
    if generator == "offline":
        for chunk in chunks:
            good = [c for c in offline.generate(chunk.id, chunk.text) if c.well_formed]
            candidates.extend(good[:per_chunk])
    elif generator == "llm":
        client = llm_client or llm.LlmClient.from_env()
        result = client.generate_batch(chunks, per_chunk=per_chunk)
        candidates, errors = result.candidates, result.errors
    else:
        raise ScorecardError(f"generator must be offline or llm, not {generator!r}")
    return add_candidates(db, candidates, k=k), errors


# ---------------------------------------------------------------------------------------------
# Reading


def candidates_frame(db: sqlite_utils.Database, status: str | None = None) -> pd.DataFrame:
    """Candidates (newest batch first) with decoded signals; ``status`` filters.

    Columns include id, status, question, chunk_id, answer, generator, kind, well_formed,
    rubric_problems (text), overlap, n_words, duplicate_of, duplicate_similarity,
    roundtrip (bool: source in the top k), source_rank, outranking (list), reject_reason,
    reviewer, query_id.
    """
    sql = "SELECT * FROM synthetic_candidates"
    params: list[str] = []
    if status:
        sql += " WHERE status = ?"
        params.append(status)
    frame = pd.read_sql_query(sql + " ORDER BY id", db.conn, params=params)
    problems = frame["rubric_problems"].map(json.loads)
    frame["well_formed"] = problems.map(lambda p: not p).astype(bool)
    frame["rubric_problems"] = problems.map("; ".join)
    frame["outranking"] = frame["outranking"].map(json.loads)
    frame["roundtrip"] = frame["source_rank"].notna()
    frame["source_rank"] = frame["source_rank"].astype("Int64")
    return frame


def chunk_text(db: sqlite_utils.Database, chunk_id: str) -> tuple[str | None, str]:
    """(title, text) of a chunk."""
    row = db.conn.execute(
        "SELECT title, coalesce(text, '') FROM chunks WHERE id = ?", [chunk_id]
    ).fetchone()
    return (row[0], row[1]) if row else (None, "")


def review_statistics(db: sqlite_utils.Database) -> pd.DataFrame:
    """Counts by generator and status, and rejections by reason: columns generator, status,
    reject_reason, candidates."""
    return pd.read_sql_query(
        "SELECT generator, status, coalesce(reject_reason, '') AS reject_reason,"
        " count(*) AS candidates FROM synthetic_candidates"
        " GROUP BY generator, status, reject_reason ORDER BY generator, status, candidates DESC",
        db.conn,
    )


# ---------------------------------------------------------------------------------------------
# Decisions


def _pending(conn, candidate_id: int) -> dict:
    conn_row = conn.execute(
        "SELECT id, chunk_id, question, status, outranking, generator"
        " FROM synthetic_candidates WHERE id = ?",
        [candidate_id],
    ).fetchone()
    if conn_row is None:
        raise InputError(f"no candidate {candidate_id}", source="review")
    cid, chunk_id, question, status, outranking, generator = conn_row
    if status != "pending":
        raise ScorecardError(f"candidate {cid} is already {status}")
    return {"chunk_id": chunk_id, "question": question, "outranking": json.loads(outranking),
            "generator": generator}


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
        problems = rubric(text) if question is not None else []
        if "does not end with a single '?'" in problems:
            text = text.rstrip("?. ") + "?"
        qid = next_query_id(conn, QUERY_PREFIX)
        conn.execute(
            "INSERT INTO queries (id, text, source) VALUES (?, ?, 'synthetic')", [qid, text]
        )
        conn.executemany(
            "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)",
            [(qid, k, v) for k, v in attributes.get(row["chunk_id"], {}).items()],
        )
        add_judgment(
            db, qid, row["chunk_id"], top, GENERATOR_ANNOTATOR,
            note=f"synthetic candidate {candidate_id}",
            flags={"generator": True, "confirm": True},
            origin="generator", origin_source=row["generator"],
        )
        conn.execute(
            "UPDATE synthetic_candidates SET status = 'accepted', question = ?, reviewer = ?,"
            " query_id = ?, reviewed_at = ? WHERE id = ?",
            [text, reviewer, qid, utc_now(), candidate_id],
        )
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
        conn.execute(
            "UPDATE synthetic_candidates SET status = 'rejected', reject_reason = ?,"
            " reviewer = ?, reviewed_at = ? WHERE id = ?",
            [reason, reviewer, utc_now(), candidate_id],
        )


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
