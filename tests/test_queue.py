"""The labeling queue: serving order, overlap, skips, leases, undo, re-judging, confirmation."""

from __future__ import annotations

import pytest

from labeling.errors import InputError, ScorecardError
from labeling.judging import queue, shortcuts
from labeling.workspace import judgments
from tests.queue_rows import queued_pairs


@pytest.fixture
def db(make_workspace):
    return make_workspace("demo")


def unjudged_pairs(db, n: int) -> list[tuple[str, str]]:
    rows = db.conn.execute(
        "SELECT q.id, c.id FROM queries q, chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = q.id AND j.chunk_id = c.id) ORDER BY q.id, c.id LIMIT ?", [n]
    ).fetchall()
    return [tuple(r) for r in rows]


def drain(db, annotator: str) -> list[tuple[str, str]]:
    served = []
    while (card := queue.next_card(db, annotator)) is not None:
        served.append(card.pair)
        queue.save_judgment(db, *card.pair, 1, annotator)
        assert len(served) < 1000
    return served


def test_enqueue_counts_new_pairs_only(db):
    pairs = unjudged_pairs(db, 5)
    assert queue.enqueue_pairs(db, pairs, reason="coverage") == 5
    assert queue.enqueue_pairs(db, pairs + pairs[:1], reason="coverage") == 0
    assert queue.enqueue_pairs(db, [], reason="coverage") == 0
    assert len(queued_pairs(db)) == 5


def test_enqueue_unknown_id_changes_nothing(db):
    with pytest.raises(InputError):
        queue.enqueue_pairs(db, [unjudged_pairs(db, 1)[0], ("nope", "nada")], reason="x")
    assert queued_pairs(db) == []


def test_each_pair_served_once_then_empty(db):
    queue.set_overlap_share(db, 0.0)
    pairs = unjudged_pairs(db, 8)
    queue.enqueue_pairs(db, pairs, reason="pool")
    served = drain(db, "carol")
    assert sorted(served) == sorted(pairs)
    assert queue.next_card(db, "dave") is None  # every pair needs one person: all complete
    done = queue.progress(db, "carol")
    assert (done.pooled, done.complete, done.mine, done.left_for_me) == (8, 8, 8, 0)


def test_order_is_shuffled_not_by_query(db):
    queue.set_overlap_share(db, 0.0)
    pairs = unjudged_pairs(db, 40)
    queue.enqueue_pairs(db, pairs, reason="pool")
    served = drain(db, "carol")
    assert served != sorted(served)
    assert served == sorted(pairs, key=lambda p: queue.shuffle_key(*p))


def test_pairs_already_judged_are_complete(db):
    queue.set_overlap_share(db, 0.0)
    judged = db.conn.execute(
        "SELECT query_id, chunk_id FROM judgments WHERE annotator = 'alice' LIMIT 3"
    ).fetchall()
    queue.enqueue_pairs(db, judged, reason="pool")
    assert queue.next_card(db, "carol") is None


def test_overlap_serves_a_pair_to_a_second_annotator(db):
    queue.set_overlap_share(db, 1.0)
    pairs = unjudged_pairs(db, 3)
    queue.enqueue_pairs(db, pairs, reason="pool")
    assert sorted(drain(db, "carol")) == sorted(pairs)
    assert queue.next_card(db, "carol") is None
    assert sorted(drain(db, "dave")) == sorted(pairs)
    assert queue.next_card(db, "erin") is None
    assert queue.progress(db, "erin").complete == 3


def test_overlap_share_marks_a_stable_share(db):
    queue.set_overlap_share(db, 0.0)
    pairs = unjudged_pairs(db, 400)
    queue.enqueue_pairs(db, pairs, reason="pool")
    at_30 = queue.set_overlap_share(db, 0.3)
    assert 80 <= at_30 <= 160
    marked = {(r["query_id"], r["chunk_id"]) for r in queued_pairs(db) if r["needed"] == 2}
    queue.set_overlap_share(db, 0.5)
    again = {(r["query_id"], r["chunk_id"]) for r in queued_pairs(db) if r["needed"] == 2}
    assert marked <= again
    assert queue.overlap_share(db) == 0.5
    with pytest.raises(InputError):
        queue.set_overlap_share(db, 1.5)


def test_lease_keeps_two_people_apart(db):
    queue.set_overlap_share(db, 0.0)
    queue.enqueue_pairs(db, unjudged_pairs(db, 2), reason="pool")
    first = queue.next_card(db, "carol")
    second = queue.next_card(db, "dave")
    assert first.pair != second.pair
    assert queue.next_card(db, "erin") is None  # both leased
    assert queue.next_card(db, "carol").pair == first.pair  # the own lease does not block


def test_skip_goes_last_and_comes_back(db):
    queue.set_overlap_share(db, 0.0)
    pairs = unjudged_pairs(db, 3)
    queue.enqueue_pairs(db, pairs, reason="pool")
    first = queue.next_card(db, "carol")
    queue.skip(db, *first.pair, "carol")
    rest = []
    while (card := queue.next_card(db, "carol")) is not None and not card.skipped:
        assert len(rest) < len(pairs), f"served {card.pair} again after {rest}"
        rest.append(card.pair)
        queue.save_judgment(db, *card.pair, 0, "carol")
    assert first.pair not in rest and len(rest) == 2
    assert card is not None and card.skipped and card.pair == first.pair
    queue.skip(db, *card.pair, "carol")  # releases carol's hold on it
    assert queue.next_card(db, "dave").pair == first.pair  # others are not affected


def test_cant_judge_needs_a_reason_and_passes_the_pair_on(db):
    queue.set_overlap_share(db, 0.0)
    pair = unjudged_pairs(db, 1)[0]
    queue.enqueue_pairs(db, [pair], reason="pool")
    with pytest.raises(InputError):
        queue.cant_judge(db, *pair, "carol", "  ")
    queue.cant_judge(db, *pair, "carol", "needs a lawyer")
    assert queue.next_card(db, "carol") is None
    assert queue.next_card(db, "dave").pair == pair
    last = queue.pair_history(db, *pair)[-1]
    assert last["grade"] is None and last["flags"] == {"cant_judge": True}
    assert last["note"] == "needs a lawyer"


def test_correction_appends_and_keeps_history(db):
    pair = unjudged_pairs(db, 1)[0]
    queue.save_judgment(db, *pair, 1, "carol", note="first look")
    queue.save_judgment(db, *pair, 3, "carol")
    history = queue.pair_history(db, *pair)
    assert [h["grade"] for h in history] == [1, 3]
    assert history[0]["note"] == "first look"
    assert queue.current_grade(db, *pair, "carol") == 3


def test_undo_restores_the_previous_grade_or_requeues(db):
    queue.set_overlap_share(db, 0.0)
    pair = unjudged_pairs(db, 1)[0]
    queue.enqueue_pairs(db, [pair], reason="pool")
    first = queue.save_judgment(db, *pair, 1, "carol")
    second = queue.save_judgment(db, *pair, 2, "carol")
    with pytest.raises(ScorecardError):
        queue.undo(db, second, "dave")  # not dave's
    queue.undo(db, second, "carol")
    assert queue.current_grade(db, *pair, "carol") == 1
    assert queue.next_card(db, "carol") is None
    queue.undo(db, first, "carol")  # back past the first grade: withdrawn, queued again
    assert queue.current_grade(db, *pair, "carol") is None
    assert queue.next_card(db, "carol").pair == pair
    assert [h["grade"] for h in queue.pair_history(db, *pair)] == [1, 2, 1, None]
    assert queue.judgment_pair(db, first) == pair


def test_generator_pairs_are_served_for_confirmation(db):
    pair = unjudged_pairs(db, 1)[0]
    judgments.add_judgment(db, *pair, 3, "generator", flags={"generator": True})
    card = queue.next_card(db, "carol")
    assert card.pair == pair and card.reason == "confirm"
    queue.save_judgment(db, *pair, 3, "carol")
    assert queue.next_card(db, "dave") is None


def test_rejudge_opens_pairs_again(db):
    queue.set_overlap_share(db, 0.0)
    judged = {tuple(r) for r in db.conn.execute(
        "SELECT DISTINCT query_id, chunk_id FROM judgments WHERE query_id = 'q01'")}
    assert queue.rejudge(db, query_id="q01", requested_by="lead") == len(judged)
    served = set(drain(db, "carol"))
    assert served == judged
    history = queue.pair_history(db, *sorted(judged)[0])
    assert history[-1]["annotator"] == "carol" and len(history) >= 2
    with pytest.raises(InputError):
        queue.rejudge(db)
    topic = db.conn.execute(
        "SELECT value FROM query_attributes WHERE name = 'topic' LIMIT 1").fetchone()[0]
    assert queue.rejudge(db, segment=("topic", topic)) > 0
    assert queue.rejudge(db, annotator="bob") > 0
    scopes = [r[0] for r in db.conn.execute("SELECT scope FROM rejudge_requests ORDER BY id")]
    assert scopes == ["query", "segment", "annotator"]


def test_next_card_filters_and_exclusions(db):
    queue.set_overlap_share(db, 0.0)
    pairs = unjudged_pairs(db, 30)
    queue.enqueue_pairs(db, pairs, reason="pool")
    first = queue.next_card(db, "carol", lease=False)
    other = queue.next_card(db, "carol", exclude=[first.pair], lease=False)
    assert other.pair != first.pair
    only = queue.next_card(db, "carol", query_id=pairs[-1][0], lease=False)
    assert only.query_id == pairs[-1][0]
    assert "run" not in " ".join(vars(only))  # blind: no run, rank or score on a card


def test_annotator_name_is_required(db):
    pair = unjudged_pairs(db, 1)[0]
    with pytest.raises(InputError):
        queue.save_judgment(db, *pair, 1, "  ")
    with pytest.raises(InputError):
        queue.next_card(db, "generator")


def test_shortcut_registry_has_no_clash():
    for grades in ([0, 1], [0, 1, 2, 3], [-1, 0, 1, 2], list(range(12))):
        keys = [*shortcuts.grade_keys(grades).values(), *shortcuts.ACTIONS.values()]
        assert len(keys) == len(set(keys))
        assert not {k.upper() for k in keys} & shortcuts.RESERVED
    assert shortcuts.grade_keys([0, 1, 2, 3]) == {0: "0", 1: "1", 2: "2", 3: "3"}
    assert shortcuts.grade_keys([-1, 0, 1]) == {-1: "1", 0: "2", 1: "3"}


def test_progress_counts_only_queued_pairs(db):
    queue.set_overlap_share(db, 0.0)
    first, second = unjudged_pairs(db, 2)
    queue.save_judgment(db, *first, 1, "carol")  # not queued: no progress
    assert queue.progress(db, "carol").mine == 0
    queue.enqueue_pairs(db, [first, second], reason="pool")  # queued later: counts
    done = queue.progress(db, "carol")
    assert (done.pooled, done.complete, done.mine, done.left_for_me) == (2, 1, 1, 1)
    assert done.my_share == 0.5 and done.team_share == 0.5


def test_locked_split_pairs_are_not_served(db):
    from labeling.evaluation.inputs import locked_splits

    queue.set_overlap_share(db, 0.0)
    test_query = db.conn.execute("SELECT id FROM queries WHERE split = 'test'").fetchone()[0]
    chunk = db.conn.execute(
        "SELECT id FROM chunks WHERE id NOT IN (SELECT chunk_id FROM judgments"
        " WHERE query_id = ?) LIMIT 1", [test_query]).fetchone()[0]
    queue.enqueue_pairs(db, [(test_query, chunk)], reason="pool")
    locked_splits.lock_split(db, "lead", "test", rule="default")
    assert queue.next_card(db, "carol") is None
    locked_splits.unlock_split(db, "test")
    assert queue.next_card(db, "carol").pair == (test_query, chunk)
