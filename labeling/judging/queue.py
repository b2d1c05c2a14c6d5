"""The labeling queue: which pair an annotator judges next, and the writes of a judging session.

Conventions
- The queue holds (query, chunk) pairs, never run names, ranks or scores: judging is blind.
  Pairs come from pooling (``labeling.judging.pooling``), the dashboard (unjudged pairs), the
  synthetic review (``generator`` judgments awaiting confirmation queue themselves) and
  re-judge requests.
- A pair is *complete* once ``needed`` people have a vote on it since it was (re-)queued;
  ``needed`` is 2 for the overlap share of pairs (``set_overlap_share``), else 1. "Can't judge"
  (grade NULL) marks the pair handled by that person without a vote, so it goes to someone else.
- An annotator is served open pairs they have not handled, in a fixed shuffled order (the same
  for everyone, so an overlap pair reaches a second person soon), skipping pairs another person
  has open right now (a 10-minute lease), pairs of a locked split (their labels are frozen) and
  pairs they skipped; skipped pairs come back last.
- Writes are appends: a correction is a new judgment, undo appends the grade that was current
  before (or a withdrawn, NULL-grade judgment) and puts the pair back in the queue.
- Two queues share the table: the pairs of a machine judge's audit sample (reason ``audit``)
  are served only from the audit queue (``AUDIT``), every other pair from the labeling queue
  (``SHARED``), so people finish an audit without wading through the shared queue, and the
  audit's size is the work it takes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from labeling.errors import InputError, ScorecardError
from labeling.workspace import contents, judgments, label_queue, roles, store

if TYPE_CHECKING:
    import sqlite_utils

OVERLAP_SETTING = "overlap_share"
DEFAULT_OVERLAP_SHARE = 0.1
OVERLAP_BUCKETS = 10_000  # overlap pairs: shuffle_key % OVERLAP_BUCKETS < share * OVERLAP_BUCKETS
LEASE_MINUTES = 10
GENERATOR = "generator"
UNDO_NOTE = "undo"
# The queues; AUDIT is also the audit pairs' reason.
SHARED, AUDIT = "shared", label_queue.AUDIT_REASON
QUEUES = {SHARED: "the labeling queue", AUDIT: "the audit of machine judges"}


@dataclass(frozen=True)
class Card:
    """One pair to judge, with what the judging card shows (no run, rank or score); ``narrative``
    is what the person asking wants to know ('' when the query has none)."""

    query_id: str
    chunk_id: str
    query_text: str
    chunk_text: str
    title: str
    doc_id: str
    reason: str
    needed: int
    judged: int
    skipped: bool = False
    narrative: str = ""

    @property
    def pair(self) -> tuple[str, str]:
        return (self.query_id, self.chunk_id)


@dataclass(frozen=True)
class Progress:
    """Counts of queued pairs: ``pooled`` in the queue, ``complete`` judged by as many people as
    they need; ``mine`` handled by the annotator, ``left_for_me`` still open to them."""

    pooled: int
    complete: int
    mine: int
    left_for_me: int

    @property
    def my_share(self) -> float:
        """mine / (mine + left_for_me), 1.0 when there was nothing to do."""
        total = self.mine + self.left_for_me
        return self.mine / total if total else 1.0

    @property
    def team_share(self) -> float:
        """complete / pooled, 1.0 for an empty queue."""
        return self.complete / self.pooled if self.pooled else 1.0


def _now() -> datetime:
    return datetime.now(UTC)


def shuffle_key(query_id: str, chunk_id: str) -> int:
    """A stable pseudo-random 56-bit order key of a pair (the queue's shuffled order)."""
    digest = hashlib.blake2b(f"{query_id}\x1f{chunk_id}".encode(), digest_size=7).digest()
    return int.from_bytes(digest, "big")


def _threshold(share: float) -> int:
    return round(share * OVERLAP_BUCKETS)


def _clean_annotator(annotator: str) -> str:
    name = (annotator or "").strip()
    if not name:
        raise InputError("type your name in the sidebar before judging", source="judgment")
    if name == GENERATOR:
        raise InputError(f"{GENERATOR!r} is reserved for generated labels", source="judgment")
    return name


# ---------------------------------------------------------------------------------------------
# Settings


def overlap_share(db: sqlite_utils.Database) -> float:
    """Share of queued pairs (0-1) that must be judged by at least two people."""
    value = contents.setting(db, OVERLAP_SETTING)
    return float(value) if value is not None else DEFAULT_OVERLAP_SHARE


def set_overlap_share(db: sqlite_utils.Database, share: float) -> int:
    """Set the overlap share and re-mark the queue; returns how many pairs now need two people.

    The overlap pairs are chosen by their shuffle key, so raising the share keeps the pairs
    already chosen and adds more.
    """
    share = float(share)
    if not 0.0 <= share <= 1.0:
        raise InputError("the overlap share is between 0 and 1", source="settings")
    with store.write_transaction(db, action="set_overlap") as conn:
        contents.save_setting(conn, OVERLAP_SETTING, repr(share))
        return label_queue.set_overlap_needs(conn, OVERLAP_BUCKETS, _threshold(share))


# ---------------------------------------------------------------------------------------------
# Filling the queue


def enqueue_pairs(
    db: sqlite_utils.Database, pairs: Iterable[tuple[str, str]], reason: str
) -> int:
    """Put (query_id, chunk_id) pairs in the labeling queue; returns how many were new.

    A pair already queued keeps its place and reason. Votes given before it was queued count
    (a pair someone already judged is complete unless it falls in the overlap share). Unknown
    ids raise ``InputError`` and nothing is queued.
    """
    reason = (reason or "").strip() or "manual"
    unique = list(dict.fromkeys((str(q), str(c)) for q, c in pairs))
    if not unique:
        return 0
    threshold = _threshold(overlap_share(db))
    rows = []
    added_at = store.utc_now()
    for query_id, chunk_id in unique:
        key = shuffle_key(query_id, chunk_id)
        needed = 2 if key % OVERLAP_BUCKETS < threshold else 1
        rows.append((query_id, chunk_id, reason, needed, key, added_at))
    with store.write_transaction(db, action="enqueue") as conn:
        return label_queue.add_queue_rows(conn, rows)


# ---------------------------------------------------------------------------------------------
# Serving cards

def next_card(
    db: sqlite_utils.Database,
    annotator: str,
    *,
    exclude: Sequence[tuple[str, str]] = (),
    query_id: str | None = None,
    lease: bool = True,
    queue_name: str = SHARED,
) -> Card | None:
    """The next pair for ``annotator`` (None when nothing is left for them).

    ``exclude``: pairs not to serve now (e.g. the card on screen). ``query_id``: only that
    query's pairs. ``lease``: hold the pair for this annotator for ``LEASE_MINUTES`` so that a
    colleague working at the same time gets another one (skipped silently for a role that may
    not judge). ``queue_name``: ``SHARED`` or ``AUDIT`` (see the module conventions).
    """
    name = _clean_annotator(annotator)
    now = _now()
    pair, skipped = label_queue.next_open_pair(
        db, name, now.isoformat(), audit=is_audit(queue_name), query_id=query_id,
        exclude=exclude)
    if pair is None:
        return None
    if lease:
        _take_lease(db, name, pair[0], pair[1], now)
    return _with(card_for(db, pair[0], pair[1]), skipped=skipped)


def is_audit(queue_name: str) -> bool:
    """Whether ``queue_name`` is the audit queue (``ScorecardError`` for an unknown queue)."""
    if queue_name not in QUEUES:
        raise ScorecardError(f"no queue {queue_name!r} (use {' or '.join(QUEUES)})")
    return queue_name == AUDIT


def _with(card: Card, **changes: object) -> Card:
    return Card(**{**card.__dict__, **changes})


def _take_lease(db: sqlite_utils.Database, name: str, query_id: str, chunk_id: str,
                now: datetime) -> None:
    expires = (now + timedelta(minutes=LEASE_MINUTES)).isoformat()
    try:
        with store.write_transaction(db, action="judge") as conn:
            label_queue.take_lease(conn, name, query_id, chunk_id, expires)
    except roles.AccessDenied:
        pass  # a viewer may look at cards; only people who may judge hold one


def card_for(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> Card:
    """The card of any pair (queued or not), e.g. to go back to a pair already judged."""
    row = label_queue.card_row(db, query_id, chunk_id)
    if row is None:
        raise ScorecardError(f"no pair ({query_id!r}, {chunk_id!r}) in this workspace")
    query_text, chunk_text, *rest, narrative = row  # a placeholder reads "text not imported"
    return Card(query_id, chunk_id, contents.shown_text(query_text, query_id),
                contents.shown_text(chunk_text, chunk_id), *rest, narrative=narrative)


# ---------------------------------------------------------------------------------------------
# Session writes


def save_judgment(
    db: sqlite_utils.Database,
    query_id: str,
    chunk_id: str,
    grade: int | None,
    annotator: str,
    note: str | None = None,
    flags: dict[str, bool] | None = None,
) -> int:
    """Append a judgment (the one write the pages call) and return its id.

    ``grade=None`` means "can't judge" (give the reason as ``note``). The pair leaves the
    annotator's queue; their skip and lease on it are cleared in the same transaction.
    """
    name = _clean_annotator(annotator)
    note = (note or "").strip() or None
    with store.write_transaction(db, action="judge") as conn:
        judgment_id = judgments.add_judgment(
            db, query_id, chunk_id, grade, name, note=note, flags=flags
        )
        label_queue.forget_pair(conn, ("queue_skips", "queue_leases"), name, query_id, chunk_id)
    return judgment_id


def cant_judge(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str, reason: str
) -> int:
    """Record that ``annotator`` cannot judge the pair, with the reason (required)."""
    if not (reason or "").strip():
        raise InputError("say why you cannot judge this pair", source="judgment")
    return save_judgment(
        db, query_id, chunk_id, None, annotator, note=reason, flags={"cant_judge": True}
    )


def skip(db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str) -> None:
    """Put the pair at the end of ``annotator``'s queue (others still get it as usual)."""
    name = _clean_annotator(annotator)
    with store.write_transaction(db, action="skip") as conn:
        label_queue.record_skip(conn, name, query_id, chunk_id, store.utc_now())


def undo(db: sqlite_utils.Database, judgment_id: int, annotator: str) -> int:
    """Undo ``annotator``'s judgment ``judgment_id``: append what they had given the pair just
    before it (grade, note, flags), or a withdrawn judgment (grade NULL, note ``undo``) when
    there was nothing, in which case the pair is back in their queue. Returns the new id.

    Undoing a session's judgments newest first walks the pair back step by step."""
    name = _clean_annotator(annotator)
    row = judgments.judgment_owner(db, judgment_id)
    if row is None or row[2] != name:
        raise ScorecardError(f"judgment {judgment_id} is not one of {name}'s")
    query_id, chunk_id, _ = row
    with store.write_transaction(db, action="undo") as conn:
        previous = judgments.previous_judgment(db, query_id, chunk_id, name, judgment_id)
        if previous:
            return judgments.add_judgment(
                db, query_id, chunk_id, previous["grade"], name,
                note=previous["note"], flags=previous["flags"],
            )
        new_id = judgments.add_judgment(db, query_id, chunk_id, None, name, note=UNDO_NOTE)
        label_queue.forget_pair(conn, ("queue_done", "queue_skips"), name, query_id, chunk_id)
        return new_id


def judgment_pair(db: sqlite_utils.Database, judgment_id: int) -> tuple[str, str]:
    """The (query_id, chunk_id) of a judgment."""
    row = judgments.judgment_owner(db, judgment_id)
    if row is None:
        raise ScorecardError(f"no judgment {judgment_id}")
    return (row[0], row[1])


# ---------------------------------------------------------------------------------------------
# Progress and history


def progress(db: sqlite_utils.Database, annotator: str, queue_name: str = SHARED) -> Progress:
    """Progress of the team and of ``annotator`` on a queue (see ``Progress``)."""
    name = (annotator or "").strip()
    audit_queue = is_audit(queue_name)
    audit = Progress(*label_queue.audit_progress_counts(db.conn, name))
    if audit_queue:
        return audit
    every = Progress(*label_queue.all_progress_counts(db.conn, name))
    return Progress(every.pooled - audit.pooled, every.complete - audit.complete,
                    every.mine - audit.mine, every.left_for_me - audit.left_for_me)


def pair_history(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> list[dict]:
    """Every judgment of the pair, oldest first: id, annotator, grade, created_at, note, flags."""
    return judgments.judgment_history(db, query_id, chunk_id)


def current_grade(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str
) -> int | None:
    """``annotator``'s current grade of the pair (None: not judged, withdrawn or can't judge)."""
    return judgments.latest_grade(db, query_id, chunk_id, (annotator or "").strip())


# ---------------------------------------------------------------------------------------------
# Re-judging


def rejudge(
    db: sqlite_utils.Database,
    *,
    query_id: str | None = None,
    segment: tuple[str, str] | None = None,
    annotator: str | None = None,
    requested_by: str | None = None,
) -> int:
    """Send every judged or queued pair of a query, a segment (attribute, value) or an
    annotator back to the queue, open to everyone again; returns how many pairs.

    Exactly one scope is given. Earlier judgments stay in the history and keep counting in the
    consensus until new ones are appended.
    """
    scopes = [s for s in (query_id, segment, annotator) if s is not None]
    if len(scopes) != 1:
        raise InputError("re-judge one query, one segment or one annotator", source="re-judge")
    if query_id is not None:
        scope, target = "query", query_id
    elif segment is not None:
        scope, target = "segment", f"{segment[0]}={segment[1]}"
    else:
        scope, target = "annotator", str(annotator)
    with store.write_transaction(db, action="rejudge") as conn:
        pairs = label_queue.rejudge_scope_pairs(
            conn, query_id=query_id, segment=segment, annotator=annotator)
        label_queue.requeue_pairs(
            conn, [(q, c, shuffle_key(q, c), store.utc_now()) for q, c in pairs],
            OVERLAP_BUCKETS, _threshold(overlap_share(db)))
        label_queue.add_rejudge_request(conn, scope, target, len(pairs), requested_by,
                                        store.utc_now())
    return len(pairs)
