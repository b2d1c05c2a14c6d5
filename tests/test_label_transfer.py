"""Labels carried from one chunk set to another: the overlap arithmetic, the rule (carried,
suggested, split, kept, frozen, lost), the records, and transferred labels in the consensus."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labeling.errors import ScorecardError
from labeling.evaluation.inputs import locked_splits
from labeling.files import importers
from labeling.judging import consensus, queue, visibility
from labeling.rechunking import plan, report, suggestions, transfer
from labeling.rechunking.alignment import shared_blocks, surviving_pieces
from labeling.rechunking.mapping import chunk_overlaps
from labeling.rechunking.overlap import overlapping_pairs
from labeling.workspace import judgments
from tests.workspaces import add_rows

# Three paragraphs of one document; the old chunking has one chunk per paragraph.
ALPHA = "Alpha policy: staff may work remotely four days a week with approval."
BETA = "Beta rule: the stipend is 600 EUR, paid once, for a desk or a chair."
GAMMA = ("Gamma section: incidents are ranked SEV1 to SEV3. SEV1 pages the on-call engineer "
         "at once. SEV3 waits for the next working day.")
DOC = f"{ALPHA}\n\n{BETA}\n\n{GAMMA}\n"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def spans_of(text: str, *pieces: str) -> list[tuple[int, int]]:
    return [(text.index(p), text.index(p) + len(p)) for p in pieces]


# Evidence of gamma for q2 with an answer in each half of the split (``c1``, ``c2``).
GAMMA_EVIDENCE = spans_of(DOC, "incidents are ranked SEV1 to SEV3.",
                          "SEV1 pages the on-call engineer at once.")


@pytest.fixture
def small(make_workspace, tmp_path):
    """Old set ``old`` (a, b, c: the paragraphs); new set ``new``: ``ab`` (alpha and beta
    together), ``c1``/``c2`` (gamma split in two) and ``cx`` (straddling nothing judged but the
    end of gamma and nothing else: the text after it is the end of the document)."""
    db = make_workspace(queries=[{"id": "q1", "text": "remote work", "split": "dev"},
                                 {"id": "q2", "text": "incidents", "split": "test"}])
    importers.import_documents(db, write_jsonl(tmp_path / "d.jsonl",
                                               [{"id": "d", "text": DOC, "title": "Policy"}]))
    old = [{"id": i, "doc_id": "d", "text": t} for i, t in zip("abc", (ALPHA, BETA, GAMMA),
                                                                  strict=True)]
    importers.import_chunk_set(db, write_jsonl(tmp_path / "old.jsonl", old), "old")
    half = GAMMA.index("SEV1 pages")
    new = [{"id": "ab", "doc_id": "d", "text": f"{ALPHA}\n\n{BETA}"},
           {"id": "c1", "doc_id": "d", "text": GAMMA[:half].strip()},
           {"id": "c2", "doc_id": "d", "text": GAMMA[half:]}]
    importers.import_chunk_set(db, write_jsonl(tmp_path / "new.jsonl", new), "new")
    return db


def transferred(db) -> pd.DataFrame:
    return pd.read_sql_query(
        "SELECT query_id, chunk_id, annotator, grade, origin, origin_source, note"
        " FROM judgments WHERE origin = 'transferred' ORDER BY query_id, chunk_id, annotator",
        db.conn)


# ---------------------------------------------------------------------------------------------
# Arithmetic


def test_overlapping_pairs_equal_a_brute_force_count():
    rng = np.random.default_rng(7)
    for _ in range(30):
        a_lo = rng.integers(0, 500, 60)
        a_hi = a_lo + rng.integers(0, 80, 60)
        b_lo = rng.integers(0, 500, 50)
        b_hi = b_lo + rng.choice([0, 1, 5, 40, 300, 2000], 50)  # empty, tiny and huge ones
        left, right, shared = overlapping_pairs(a_lo, a_hi, b_lo, b_hi)
        found = {(int(i), int(j)): int(s) for i, j, s in zip(left, right, shared, strict=True)}
        expected = {}
        for i in range(60):
            for j in range(50):
                common = min(a_hi[i], b_hi[j]) - max(a_lo[i], b_lo[j])
                if common > 0:
                    expected[(i, j)] = int(common)
        assert found == expected


def test_spans_survive_an_edited_document_only_where_their_text_does():
    old = "Keep this line.\nDrop this sentence entirely.\nKeep the end too.\n"
    new = "Keep this line.\nA new line was written.\nKeep the end too.\n"
    blocks = shared_blocks(old, new)
    starts, ends = zip(*spans_of(old, "Keep this line.", "Drop this sentence entirely.",
                                 "Keep the end too."), strict=True)
    span, lo, hi = surviving_pieces(np.array(starts), np.array(ends), blocks)
    carried = {}
    for s, a, b in zip(span, lo, hi, strict=True):
        carried.setdefault(int(s), []).append(new[a:b])
    assert carried[0] == ["Keep this line."] and carried[2] == ["Keep the end too."]
    # Of the dropped sentence only letters the new line happens to share survive.
    assert sum(len(p) for p in carried.get(1, [])) < len("Drop this sentence entirely.") / 2


# ---------------------------------------------------------------------------------------------
# The rule


def test_merged_text_carries_the_most_relevant_label_and_a_split_text_both_halves(small):
    db = small
    judgments.add_judgment(db, "q1", "a", 3, "ann")
    judgments.add_judgment(db, "q1", "b", 0, "ann")
    judgments.add_judgment(db, "q1", "b", 1, "bob")
    judgments.add_judgment(db, "q2", "c", 2, "ann", evidence=GAMMA_EVIDENCE)
    result = transfer.transfer_labels(db, "old", "new", by="ada")
    rows = transferred(db)
    # ``ab`` holds all of a (3) and b (0/1): it inherits a's judgments, the most relevant text.
    assert rows.loc[rows["chunk_id"] == "ab", ["query_id", "annotator", "grade"]].values.tolist() \
        == [["q1", "ann via old", 3]]
    # ``c1`` and ``c2`` are pieces of c, each with a span of its evidence: both inherit, noted
    # as split.
    pieces = rows.loc[rows["chunk_id"].isin(["c1", "c2"])]
    assert pieces["grade"].tolist() == [2, 2] and pieces["note"].str.contains("split").all()
    assert (rows["origin_source"] == "old").all()
    assert result.outcomes == {"carried": 4, "suggested": 0, "kept": 0, "frozen": 0,
                               "dropped": 0, "lost": 0}
    assert result.split == 1
    qrels = consensus.consensus_qrels(db).set_index(["query_id", "doc_id"])["relevance"]
    assert qrels[("q1", "ab")] == 3 and qrels[("q2", "c1")] == qrels[("q2", "c2")] == 2


def test_a_chunk_holding_part_of_a_more_relevant_text_is_suggested_not_labelled(
        small, tmp_path):
    db = small
    judgments.add_judgment(db, "q1", "a", 0, "ann")
    judgments.add_judgment(db, "q1", "b", 3, "ann")
    # A chunk with all of a and only the first third of b: b's relevance may be in the rest.
    cut = ALPHA + "\n\n" + BETA[: len(BETA) // 3].strip()
    importers.import_chunk_set(db, write_jsonl(tmp_path / "s.jsonl", [
        {"id": "s1", "doc_id": "d", "text": cut}]), "shifted")
    result = transfer.transfer_labels(db, "old", "shifted")
    assert transferred(db).empty
    assert result.suggestions == 1 and result.outcomes["suggested"] == 2
    assert db.conn.execute("SELECT query_id, chunk_id, grade FROM transfer_suggestions"
                           ).fetchall() == [("q1", "s1", 3)]
    stored = json.loads(db.conn.execute("SELECT detail FROM transfer_suggestions").fetchone()[0])
    assert {(d["old_chunk"], d["grade"]) for d in stored} == {("a", 0), ("b", 3)}
    assert db.conn.execute(
        "SELECT reason FROM label_queue WHERE query_id = 'q1' AND chunk_id = 's1'"
    ).fetchone() == ("transfer",)
    # The old grades are shown to an expert only after they judged the pair.
    tid = result.transfer_id
    assert suggestions.old_grades(db, tid, "q1", "s1", "eve") is None
    assert suggestions.open_suggestions(db, tid, "eve")["chunk_id"].tolist() == ["s1"]
    queue.save_judgment(db, "q1", "s1", 1, "eve")
    grades = suggestions.old_grades(db, tid, "q1", "s1", "eve")
    assert {(g.old_chunk, g.grade) for g in grades} == {("a", 0), ("b", 3)}
    assert suggestions.open_suggestions(db, tid, "eve").empty
    assert report.transfer_report(db, "old", "shifted").suggestions_judged == 1


def test_slivers_say_nothing_and_unjudged_text_stays_unjudged(small, tmp_path):
    db = small
    judgments.add_judgment(db, "q1", "a", 3, "ann")  # alpha: relevant
    judgments.add_judgment(db, "q2", "b", 0, "ann")  # beta: not relevant
    # w1: alpha and the first 10% of beta; w2: the rest of beta (90% of it, all of w2);
    # w3: the second half of beta again, then half of gamma (unjudged for q2).
    ten = BETA.index(" ", len(BETA) // 10)
    rows = [{"id": "w1", "doc_id": "d", "text": f"{ALPHA}\n\n{BETA[:ten]}"},
            {"id": "w2", "doc_id": "d", "text": BETA[ten:].strip()},
            {"id": "w3", "doc_id": "d",
             "text": f"{BETA[BETA.index('paid once'):]}\n\n{GAMMA[:len(GAMMA) // 2]}"}]
    importers.import_chunk_set(db, write_jsonl(tmp_path / "w.jsonl", rows), "w")
    result = transfer.transfer_labels(db, "old", "w")
    grades = transferred(db).set_index(["query_id", "chunk_id"])["grade"].to_dict()
    # 10% of beta in w1 is a sliver: w1 carries alpha's 3 for q1 and nothing for q2.
    assert grades == {("q1", "w1"): 3, ("q2", "w2"): 0}
    # w3 holds half of beta (not relevant) and more unjudged text: neither label nor suggestion.
    assert result.suggestions == 0
    assert result.outcomes["carried"] == 2


def test_a_persons_label_is_never_replaced(small):
    db = small
    judgments.add_judgment(db, "q1", "a", 3, "ann")
    judgments.add_judgment(db, "q1", "ab", 1, "carl")  # judged in the new chunk set already
    judgments.add_judgment(db, "q2", "c", 2, "ann", evidence=GAMMA_EVIDENCE)
    result = transfer.transfer_labels(db, "old", "new")
    rows = transferred(db)
    assert "ab" not in rows["chunk_id"].tolist()  # kept: nothing added to carl's pair
    assert result.outcomes["kept"] == 1
    qrels = consensus.consensus_qrels(db).set_index(["query_id", "doc_id"])["relevance"]
    assert qrels[("q1", "ab")] == 1
    # After the transfer a person's judgment outranks the transferred labels of a pair.
    assert qrels[("q2", "c1")] == 2
    judgments.add_judgment(db, "q2", "c1", 0, "dora")
    qrels = consensus.consensus_qrels(db).set_index(["query_id", "doc_id"])["relevance"]
    assert qrels[("q2", "c1")] == 0 and qrels[("q2", "c2")] == 2
    for rule in ("strict", "lenient"):
        assert consensus.consensus_qrels(db, rule).set_index(
            ["query_id", "doc_id"])["relevance"][("q2", "c1")] == 0


def test_locked_queries_are_frozen_and_removed_text_is_lost(small, tmp_path):
    db = small
    judgments.add_judgment(db, "q1", "a", 3, "ann")
    judgments.add_judgment(db, "q1", "c", 1, "ann")
    judgments.add_judgment(db, "q2", "c", 2, "ann")
    locked_splits.lock_split(db, "ada", "test", rule="default")  # q2 is in the test split
    # A new version of the document without the gamma paragraph, chunked anew.
    importers.import_documents(db, write_jsonl(tmp_path / "v2.jsonl", [
        {"id": "d", "text": f"{ALPHA}\n\n{BETA}\n"}]))
    importers.import_chunk_set(db, write_jsonl(tmp_path / "v2c.jsonl", [
        {"id": "v2a", "doc_id": "d", "text": ALPHA}, {"id": "v2b", "doc_id": "d", "text": BETA}]),
        "v2")
    result = transfer.transfer_labels(db, "old", "v2")
    assert result.outcomes == {"carried": 1, "suggested": 0, "kept": 0, "frozen": 1,
                               "dropped": 0, "lost": 1}
    rows = transferred(db)
    assert rows[["query_id", "chunk_id", "grade"]].values.tolist() == [["q1", "v2a", 3]]
    card = report.transfer_report(db, "old", "v2", segment="split")
    by_grade = card.by_grade.set_index("grade")
    assert by_grade.loc[1, "lost"] == 1 and by_grade.loc[2, "frozen"] == 1
    assert card.by_segment.set_index("segment").loc["test", "frozen"] == 1


def test_every_transferred_label_is_linked_and_a_second_transfer_is_refused(small):
    db = small
    judgments.add_judgment(db, "q1", "a", 3, "ann", flags={"unsure": True})
    judgments.add_judgment(db, "q1", "a", 2, "bob")
    judgments.add_judgment(db, "q1", "a", 2, "carl", flags={"adjudicated": True})
    transfer.transfer_labels(db, "old", "new")
    links = pd.read_sql_query(
        "SELECT n.annotator, n.grade, n.flags, n.origin, o.annotator AS old_annotator,"
        " o.grade AS old_grade, o.flags AS old_flags, t.share_of_judged FROM transfer_labels t"
        " JOIN judgments n ON n.id = t.judgment_id JOIN judgments o ON o.id = t.source_judgment_id",
        db.conn)
    assert len(links) == 3 and (links["origin"] == "transferred").all()
    assert (links["annotator"] == links["old_annotator"] + " via old").all()
    assert (links["grade"] == links["old_grade"]).all()
    assert (links["flags"] == links["old_flags"]).all() and (links["share_of_judged"] == 1).all()
    with pytest.raises(ScorecardError, match="already transferred"):
        transfer.transfer_labels(db, "old", "new")
    with pytest.raises(ScorecardError, match="no chunk set named 'nope'"):
        transfer.transfer_labels(db, "old", "nope")


def test_the_threshold_decides_where_not_relevant_text_carries(small, tmp_path):
    db = small
    judgments.add_judgment(db, "q2", "c", 0, "ann")
    # A chunk of the end of beta (unjudged for q2) and 70% of gamma; then the rest of gamma.
    cut = GAMMA.rindex(" ", 0, int(len(GAMMA) * 0.7))
    tail = BETA[BETA.index("paid once"):]
    rows = [{"id": "{}1", "doc_id": "d", "text": f"{tail}\n\n{GAMMA[:cut]}"},
            {"id": "{}2", "doc_id": "d", "text": GAMMA[cut:].strip()}]
    for name in ("t", "u"):
        importers.import_chunk_set(db, write_jsonl(tmp_path / f"{name}.jsonl", [
            dict(r, id=r["id"].format(name)) for r in rows]), name)
    loose = transfer.transfer_labels(db, "old", "t", threshold=0.7)
    strict = transfer.transfer_labels(db, "old", "u")  # the default, 0.8
    # 70% of gamma is in t1 and makes up about three quarters of it: above 0.7, below 0.8.
    assert loose.labels == 2 and loose.suggestions == 0
    assert strict.labels == 1 and strict.suggestions == 0  # u2, a piece of gamma, carries
    assert transferred(db).set_index("chunk_id")["grade"].to_dict() == {"t1": 0, "t2": 0,
                                                                        "u2": 0}
    with pytest.raises(ScorecardError, match="threshold"):
        transfer.transfer_labels(db, "new", "old", threshold=1.5)


def test_transferred_labels_leave_the_queue_and_the_blind_rule_alone(small, fast_hashes):
    db = small
    add_rows(db, accounts={"ann": "annotator"})  # sign-in on: the blind rule applies
    judgments.add_judgment(db, "q1", "a", 3, "ann")
    judgments.add_judgment(db, "q1", "a", 2, "bob")
    queue.enqueue_pairs(db, [("q1", "ab")], "pool")  # waiting for a person already
    transfer.transfer_labels(db, "old", "new")
    assert db.conn.execute("SELECT judged FROM label_queue WHERE query_id = 'q1'"
                           " AND chunk_id = 'ab'").fetchone() == (0,)
    card = queue.next_card(db, "ann", lease=False)
    assert card is not None and card.pair == ("q1", "ab")  # still served, blind
    # ann judged the text of ``a``, not the chunk ``ab``: others' grades of it stay hidden.
    assert not visibility.sight(db, "ann", "annotator").sees_pair("q1", "ab")
    assert transfer.transferred_annotator("ann", "old") in set(transferred(db)["annotator"])


def test_the_transferred_labels_are_listed_under_the_blind_rule(small, fast_hashes):
    db = small
    add_rows(db, accounts={"eve": "annotator"})
    judgments.add_judgment(db, "q1", "a", 3, "ann")
    judgments.add_judgment(db, "q2", "c", 2, "ann", evidence=GAMMA_EVIDENCE)
    result = transfer.transfer_labels(db, "old", "new")
    everything = report.transferred_labels(db, result.transfer_id)
    assert set(everything["chunk_id"]) == {"ab", "c1", "c2"}
    assert everything.set_index("chunk_id").loc["c1", "split"]
    assert report.transferred_labels(db, result.transfer_id,
                                     visibility.sight(db, "eve", "annotator")).empty
    queue.save_judgment(db, "q2", "c1", 1, "eve")
    seen = report.transferred_labels(db, result.transfer_id,
                                     visibility.sight(db, "eve", "annotator"))
    assert seen[["query_id", "chunk_id", "grade"]].values.tolist() == [["q2", "c1", 2]]


# ---------------------------------------------------------------------------------------------
# The vectorised rule against a plain, one-pair-at-a-time reading of it


def _reference(judged, old, new, blocked, frozen, t):
    """The rule of ``labeling.rechunking.plan``, written as loops over texts and pairs."""
    votes = judged.assign(generator=False)
    agreed = consensus.consensus(votes, "default").set_index(["query_id", "chunk_id"])["grade"]
    texts = {}
    for row in judged.itertuples():
        texts.setdefault((row.query_id, row.chunk_id), []).append(row)
    span = {r.chunk_id: (r.start, r.end) for r in old.itertuples()}
    position = {chunk: i for i, chunk in enumerate(old["chunk_id"])}
    rows, sliver_only = {}, set()
    for (q, o), judgments_of in texts.items():
        lo, hi = span[o]
        for n in new.itertuples():
            shared = min(hi, n.end) - max(lo, n.start)
            if shared <= 0:
                continue
            sj, sc = shared / (hi - lo), shared / (n.end - n.start)
            if max(sj, sc) < plan.SLIVER - 1e-9:
                sliver_only.add((q, o))
                continue
            top = max(j.grade for j in judgments_of)
            rows.setdefault((q, n.chunk_id), []).append(
                (o, sj, sc, sj >= t - 1e-9 or sc >= t - 1e-9, top, agreed[(q, o)]))
    states, labels = {}, set()
    for (q, n), touching in rows.items():
        carrying = [r for r in touching if r[3]]
        others = [r for r in touching if not r[3]]
        highest = max(r[4] for r in touching)
        carried = bool(carrying) and max(r[4] for r in carrying) >= max(
            (r[4] for r in others), default=-99)
        carried |= highest < 1 and sum(r[2] for r in touching) >= t - 1e-9
        state = "carried" if carried else ("suggested" if highest >= 1 else "dropped")
        if (q, n) in blocked:
            state = "kept"
        if q in frozen:
            state = "frozen"
        states[(q, n)] = state
        if state == "carried":
            pool = carrying or touching
            source = max(pool, key=lambda r: (r[5], r[4], max(r[1], r[2]), -position[r[0]]))
            labels |= {(q, n, j.annotator, j.grade) for j in texts[(q, source[0])]}
    order = list(plan.OUTCOMES)
    outcomes = {}
    for (q, o), judgments_of in texts.items():
        mine = [states[(q2, n)] for (q2, n), touching in rows.items()
                if q2 == q and any(r[0] == o for r in touching)]
        outcome = min(mine, key=order.index) if mine else (
            "dropped" if (q, o) in sliver_only else "lost")
        if q in frozen:
            outcome = "frozen"
        outcomes.update({j.id: outcome for j in judgments_of})
    return labels, {p for p, s in states.items() if s == "suggested"}, outcomes


def test_the_vectorised_rule_matches_a_loop_over_pairs():
    rng = np.random.default_rng(3)
    for case in range(25):
        length = 300
        cuts = np.sort(rng.choice(np.arange(10, length - 10), size=rng.integers(2, 6),
                                  replace=False))
        bounds = [0, *cuts.tolist(), length]
        old = pd.DataFrame({"chunk_id": [f"o{i}" for i in range(len(bounds) - 1)],
                            "doc_id": "d", "doc_version": "v",
                            "start": bounds[:-1], "end": bounds[1:]})
        starts = rng.integers(0, length - 20, size=rng.integers(2, 8))
        ends = np.minimum(length, starts + rng.integers(15, 200, size=len(starts)))
        new = pd.DataFrame({"chunk_id": [f"n{i}" for i in range(len(starts))],
                            "doc_id": "d", "doc_version": "v", "start": starts, "end": ends})
        rows = []
        for q in ("q1", "q2", "q3"):
            for o in old["chunk_id"]:
                for annotator in ("ann", "bob"):
                    if rng.random() < 0.5:
                        rows.append({"id": len(rows) + 1, "query_id": q, "chunk_id": o,
                                     "annotator": annotator, "grade": int(rng.integers(0, 4)),
                                     "adjudicated": bool(rng.random() < 0.1),
                                     "unsure": False})
        if not rows:
            continue
        judged = pd.DataFrame(rows)
        blocked = {("q1", n) for n in new["chunk_id"] if rng.random() < 0.2}
        frozen = {"q3"} if case % 3 == 0 else set()
        t = float(rng.choice([0.5, 0.8, 1.0]))
        overlaps = chunk_overlaps(old, new, lambda keys: {})
        planned = plan.plan_transfer(
            judged, old, new, overlaps,
            blocked=pd.DataFrame(sorted(blocked), columns=["query_id", "chunk_id"]),
            frozen_queries=pd.Index(sorted(frozen)), threshold=t)
        labels, suggested, outcomes = _reference(judged, old, new, blocked, frozen, t)
        got = set(planned.labels[["query_id", "chunk_id", "annotator", "grade"]].itertuples(
            index=False, name=None))
        assert got == labels, case
        assert set(planned.suggestions[["query_id", "chunk_id"]].itertuples(
            index=False, name=None)) == suggested, case
        assert dict(zip(planned.outcomes["judgment_id"], planned.outcomes["outcome"],
                        strict=True)) == outcomes, case
