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
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.workspace import contents, judgments, roles, store

OVERLAP_SETTING = "overlap_share"
DEFAULT_OVERLAP_SHARE = 0.1
OVERLAP_BUCKETS = 10_000  # overlap pairs: shuffle_key % OVERLAP_BUCKETS < share * OVERLAP_BUCKETS
LEASE_MINUTES = 10
GENERATOR = "generator"
UNDO_NOTE = "undo"
SHARED, AUDIT = "shared", "audit"  # the queues; AUDIT is also the audit pairs' reason
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
    row = db.conn.execute(
        "SELECT value FROM labeling_settings WHERE name = ?", [OVERLAP_SETTING]
    ).fetchone()
    return float(row[0]) if row else DEFAULT_OVERLAP_SHARE


def set_overlap_share(db: sqlite_utils.Database, share: float) -> int:
    """Set the overlap share and re-mark the queue; returns how many pairs now need two people.

    The overlap pairs are chosen by their shuffle key, so raising the share keeps the pairs
    already chosen and adds more.
    """
    share = float(share)
    if not 0.0 <= share <= 1.0:
        raise InputError("the overlap share is between 0 and 1", source="settings")
    with store.write_transaction(db, action="set_overlap") as conn:
        conn.execute(
            "INSERT OR REPLACE INTO labeling_settings (name, value) VALUES (?, ?)",
            [OVERLAP_SETTING, repr(share)],
        )
        conn.execute(
            "UPDATE label_queue SET needed = CASE WHEN shuffle_key % ? < ? THEN 2 ELSE 1 END"
            " WHERE reason <> 'confirm'",
            [OVERLAP_BUCKETS, _threshold(share)],
        )
        return conn.execute("SELECT count(*) FROM label_queue WHERE needed >= 2").fetchone()[0]


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
        try:
            cursor = conn.executemany(
                "INSERT OR IGNORE INTO label_queue"
                " (query_id, chunk_id, reason, needed, judged, shuffle_key, added_at)"
                " VALUES (?1, ?2, ?3, ?4, (SELECT count(*) FROM queue_done d"
                "  WHERE d.query_id = ?1 AND d.chunk_id = ?2 AND d.voted), ?5, ?6)",
                rows,
            )
        except sqlite3.IntegrityError as error:
            raise InputError(
                f"cannot queue pairs: an unknown query or chunk id ({error})", source="queue"
            ) from error
        # The rows this statement inserted: total_changes would also count the rows the
        # queue's triggers write (queue_done and the counts), more than the pairs queued.
        return cursor.rowcount


# ---------------------------------------------------------------------------------------------
# Serving cards

_OPEN_SQL = """
SELECT q.query_id, q.chunk_id
FROM label_queue q INDEXED BY {index}
WHERE q.judged < q.needed
  AND NOT EXISTS (SELECT 1 FROM queue_done d
                  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = :a)
  AND NOT EXISTS (SELECT 1 FROM queue_skips s
                  WHERE s.annotator = :a AND s.query_id = q.query_id AND s.chunk_id = q.chunk_id)
  AND (SELECT count(*) FROM queue_leases l
       WHERE l.query_id = q.query_id AND l.chunk_id = q.chunk_id AND l.annotator <> :a
         AND l.expires_at > :now) < q.needed - q.judged
  AND NOT EXISTS (SELECT 1 FROM queries qq JOIN split_locks sl ON sl.split = qq.split
                  WHERE qq.id = q.query_id)
  {extra}
ORDER BY q.shuffle_key
LIMIT 1
"""

_SKIPPED_SQL = """
SELECT q.query_id, q.chunk_id
FROM queue_skips s JOIN label_queue q USING (query_id, chunk_id)
WHERE s.annotator = :a AND q.judged < q.needed
  AND NOT EXISTS (SELECT 1 FROM queue_done d
                  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = :a)
  AND NOT EXISTS (SELECT 1 FROM queries qq JOIN split_locks sl ON sl.split = qq.split
                  WHERE qq.id = q.query_id)
  {extra}
ORDER BY s.skipped_at, q.shuffle_key
LIMIT 1
"""


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
    extra, index = queue_condition(queue_name)
    params = {"a": name, "now": now.isoformat()}
    if query_id is not None:
        extra += " AND q.query_id = :qid"
        params["qid"] = query_id
    if exclude:
        # Few pairs (the page's current card); a VALUES list keeps it one statement.
        values = ", ".join(f"(:xq{i}, :xc{i})" for i in range(len(exclude)))
        extra += f" AND (q.query_id, q.chunk_id) NOT IN (VALUES {values})"
        for i, (q, c) in enumerate(exclude):
            params[f"xq{i}"], params[f"xc{i}"] = q, c
    conn = db.conn
    row = conn.execute(_OPEN_SQL.format(extra=extra, index=index), params).fetchone()
    skipped = False
    if row is None:
        params.pop("now")
        row = conn.execute(_SKIPPED_SQL.format(extra=extra), params).fetchone()
        skipped = row is not None
    if row is None:
        return None
    if lease:
        _take_lease(db, name, row[0], row[1], now)
    card = card_for(db, row[0], row[1])
    return _with(card, skipped=skipped)


def queue_condition(queue_name: str) -> tuple[str, str]:
    """The SQL condition on ``q`` (label_queue) of a queue, and the index to walk: the audit's
    few pairs by reason, the shared queue's open pairs in shuffled order."""
    if queue_name not in QUEUES:
        raise ScorecardError(f"no queue {queue_name!r} (use {' or '.join(QUEUES)})")
    if queue_name == AUDIT:
        return f" AND q.reason = '{AUDIT}'", "label_queue_reason"
    return f" AND q.reason <> '{AUDIT}'", "label_queue_open"


def _with(card: Card, **changes: object) -> Card:
    return Card(**{**card.__dict__, **changes})


def _take_lease(db: sqlite_utils.Database, name: str, query_id: str, chunk_id: str,
                now: datetime) -> None:
    expires = (now + timedelta(minutes=LEASE_MINUTES)).isoformat()
    try:
        with store.write_transaction(db, action="judge") as conn:
            conn.execute("DELETE FROM queue_leases WHERE annotator = ?", [name])
            conn.execute(
                "INSERT INTO queue_leases (query_id, chunk_id, annotator, expires_at)"
                " VALUES (?, ?, ?, ?)",
                [query_id, chunk_id, name, expires],
            )
    except roles.AccessDenied:
        pass  # a viewer may look at cards; only people who may judge hold one


def card_for(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> Card:
    """The card of any pair (queued or not), e.g. to go back to a pair already judged."""
    row = db.conn.execute(
        "SELECT qu.text, c.text, coalesce(c.title, ''),"
        " coalesce(c.doc_id, ''), coalesce(l.reason, ''), coalesce(l.needed, 1),"
        " coalesce(l.judged, 0), coalesce(qu.narrative, '')"
        " FROM queries qu JOIN chunks c ON c.id = ?2"
        " LEFT JOIN label_queue l ON l.query_id = qu.id AND l.chunk_id = c.id"
        " WHERE qu.id = ?1",
        [query_id, chunk_id],
    ).fetchone()
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
        for table in ("queue_skips", "queue_leases"):
            _forget_pair(conn, table, name, query_id, chunk_id)
    return judgment_id


def _forget_pair(
    conn: sqlite3.Connection, table: str, annotator: str, query_id: str, chunk_id: str
) -> None:
    """Delete ``annotator``'s row of a pair from ``table`` (queue_skips, _leases or _done)."""
    conn.execute(
        f"DELETE FROM {table} WHERE annotator = ? AND query_id = ? AND chunk_id = ?",
        [annotator, query_id, chunk_id],
    )


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
        now = store.utc_now()
        conn.execute(
            "INSERT OR REPLACE INTO queue_skips (annotator, query_id, chunk_id, skipped_at)"
            " VALUES (?, ?, ?, ?)",
            [name, query_id, chunk_id, now],
        )
        conn.execute(  # kept for judging pace: a skipped card's time is not judging time
            "INSERT INTO skip_times (annotator, query_id, chunk_id, skipped_at)"
            " VALUES (?, ?, ?, ?)", [name, query_id, chunk_id, now])
        conn.execute("DELETE FROM queue_leases WHERE annotator = ?", [name])


def undo(db: sqlite_utils.Database, judgment_id: int, annotator: str) -> int:
    """Undo ``annotator``'s judgment ``judgment_id``: append what they had given the pair just
    before it (grade, note, flags), or a withdrawn judgment (grade NULL, note ``undo``) when
    there was nothing, in which case the pair is back in their queue. Returns the new id.

    Undoing a session's judgments newest first walks the pair back step by step."""
    name = _clean_annotator(annotator)
    conn = db.conn
    row = conn.execute(
        "SELECT query_id, chunk_id, annotator FROM judgments WHERE id = ?", [judgment_id]
    ).fetchone()
    if row is None or row[2] != name:
        raise ScorecardError(f"judgment {judgment_id} is not one of {name}'s")
    query_id, chunk_id, _ = row
    with store.write_transaction(db, action="undo") as conn:
        previous = list(db.query(
            "SELECT grade, note, flags FROM judgments WHERE query_id = ? AND chunk_id = ?"
            " AND annotator = ? AND id < ? ORDER BY id DESC LIMIT 1",
            [query_id, chunk_id, name, judgment_id],
        ))
        if previous:
            flags = json.loads(previous[0]["flags"])
            return judgments.add_judgment(
                db, query_id, chunk_id, previous[0]["grade"], name,
                note=previous[0]["note"], flags=flags,
            )
        new_id = judgments.add_judgment(db, query_id, chunk_id, None, name, note=UNDO_NOTE)
        for table in ("queue_done", "queue_skips"):
            _forget_pair(conn, table, name, query_id, chunk_id)
        return new_id


def judgment_pair(db: sqlite_utils.Database, judgment_id: int) -> tuple[str, str]:
    """The (query_id, chunk_id) of a judgment."""
    row = db.conn.execute(
        "SELECT query_id, chunk_id FROM judgments WHERE id = ?", [judgment_id]
    ).fetchone()
    if row is None:
        raise ScorecardError(f"no judgment {judgment_id}")
    return (row[0], row[1])


# ---------------------------------------------------------------------------------------------
# Progress and history


def progress(db: sqlite_utils.Database, annotator: str, queue_name: str = SHARED) -> Progress:
    """Progress of the team and of ``annotator`` on a queue (see ``Progress``)."""
    name = (annotator or "").strip()
    queue_condition(queue_name)  # a known queue
    audit = _audit_progress(db.conn, name)
    if queue_name == AUDIT:
        return audit
    every = _all_progress(db.conn, name)
    return Progress(every.pooled - audit.pooled, every.complete - audit.complete,
                    every.mine - audit.mine, every.left_for_me - audit.left_for_me)


def _audit_progress(conn: sqlite3.Connection, name: str) -> Progress:
    """``Progress`` of the audit queue (few pairs: read through the reason index)."""
    pooled, complete, mine, left = conn.execute(
        "SELECT count(*), coalesce(sum(q.judged >= q.needed), 0),"
        " coalesce(sum(d.annotator IS NOT NULL), 0),"
        " coalesce(sum(q.judged < q.needed AND d.annotator IS NULL), 0)"
        " FROM label_queue q INDEXED BY label_queue_reason"
        " LEFT JOIN queue_done d ON d.query_id = q.query_id AND d.chunk_id = q.chunk_id"
        "  AND d.annotator = ? AND d.queued"
        f" WHERE q.reason = '{AUDIT}'", [name]).fetchone()
    return Progress(int(pooled), int(complete), int(mine), int(left))


def _all_progress(conn: sqlite3.Connection, name: str) -> Progress:
    """``Progress`` of every queued pair, both queues."""
    # Counted on the partial indexes (open pairs; an annotator's queued pairs), not the tables.
    pooled = conn.execute("SELECT count(*) FROM label_queue").fetchone()[0]
    open_ = conn.execute(
        "SELECT count(*) FROM label_queue INDEXED BY label_queue_open WHERE judged < needed"
    ).fetchone()[0]
    complete = pooled - open_
    mine = conn.execute(
        "SELECT count(*) FROM queue_done INDEXED BY queue_done_mine"
        " WHERE annotator = ? AND queued",
        [name],
    ).fetchone()[0]
    # Open pairs minus those the annotator handled: walk the cheaper set (measured: a step of
    # the join costs about a third of a NOT EXISTS probe).
    if mine < 3 * open_:
        handled_open = conn.execute(
            "SELECT count(*) FROM queue_done d INDEXED BY queue_done_mine JOIN label_queue q"
            " ON q.query_id = d.query_id AND q.chunk_id = d.chunk_id"
            " WHERE d.annotator = ? AND d.queued AND q.judged < q.needed",
            [name],
        ).fetchone()[0]
        left = open_ - handled_open
    else:
        left = conn.execute(
            "SELECT count(*) FROM label_queue q INDEXED BY label_queue_open"
            " WHERE q.judged < q.needed AND NOT EXISTS (SELECT 1 FROM queue_done d"
            "  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = ?)",
            [name],
        ).fetchone()[0]
    return Progress(int(pooled), int(complete), int(mine), int(left))


def pair_history(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> list[dict]:
    """Every judgment of the pair, oldest first: id, annotator, grade, created_at, note, flags."""
    return judgments.judgment_history(db, query_id, chunk_id)


def current_grade(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, annotator: str
) -> int | None:
    """``annotator``'s current grade of the pair (None: not judged, withdrawn or can't judge)."""
    row = db.conn.execute(
        "SELECT grade FROM judgments WHERE query_id = ? AND chunk_id = ? AND annotator = ?"
        " ORDER BY id DESC LIMIT 1",
        [query_id, chunk_id, (annotator or "").strip()],
    ).fetchone()
    return None if row is None else row[0]


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
    human = "annotator <> 'generator'"
    if query_id is not None:
        scope, target = "query", query_id
        sql = (f"SELECT query_id, chunk_id FROM judgments WHERE query_id = ?1 AND {human}"
               " UNION SELECT query_id, chunk_id FROM label_queue WHERE query_id = ?1")
        params: list[str] = [query_id]
    elif segment is not None:
        scope, target = "segment", f"{segment[0]}={segment[1]}"
        inner = "SELECT query_id FROM query_attributes WHERE name = ?1 AND value = ?2"
        sql = (f"SELECT query_id, chunk_id FROM judgments WHERE query_id IN ({inner})"
               f" AND {human} UNION SELECT query_id, chunk_id FROM label_queue"
               f" WHERE query_id IN ({inner})")
        params = [segment[0], segment[1]]
    else:
        scope, target = "annotator", str(annotator)
        sql = "SELECT DISTINCT query_id, chunk_id FROM judgments WHERE annotator = ?1"
        params = [str(annotator)]
    with store.write_transaction(db, action="rejudge") as conn:
        pairs = conn.execute(sql, params).fetchall()
        conn.executemany(
            "INSERT OR IGNORE INTO label_queue"
            " (query_id, chunk_id, reason, needed, judged, shuffle_key, added_at)"
            " VALUES (?, ?, 'rejudge', 1, 0, ?, ?)",
            [(q, c, shuffle_key(q, c), store.utc_now()) for q, c in pairs],
        )
        conn.executemany(
            "DELETE FROM queue_done WHERE query_id = ? AND chunk_id = ?", pairs
        )
        conn.executemany(
            "DELETE FROM queue_skips WHERE query_id = ? AND chunk_id = ?", pairs
        )
        threshold = _threshold(overlap_share(db))
        conn.executemany(
            "UPDATE label_queue SET needed = CASE WHEN shuffle_key % ? < ? THEN 2 ELSE 1 END,"
            " judged = 0 WHERE query_id = ? AND chunk_id = ?",
            [(OVERLAP_BUCKETS, threshold, q, c) for q, c in pairs],
        )
        conn.execute(
            "INSERT INTO rejudge_requests (scope, target, pairs, requested_by, requested_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [scope, target, len(pairs), requested_by, store.utc_now()],
        )
    return len(pairs)
