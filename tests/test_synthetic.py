"""Synthetic questions: sampling, the offline generator and its rubric, quality signals, the
review store (accept / edit / reject / batch), importers and the generate command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.commands.cli import main
from labeling.errors import ScorecardError
from labeling.files import importers as file_importers
from labeling.files.demo import DEMO_DATA
from labeling.judging import queue
from labeling.synthetic import batches, importers, offline, quality, review, sampling
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.rubric import rubric
from labeling.synthetic.text import split_sentences
from labeling.workspace.judgments import judgment_history
from tests.queue_rows import queued_pairs


@pytest.fixture
def db(make_workspace):
    return make_workspace("demo")


def _chunks() -> list[dict]:
    return [json.loads(line) for line in (DEMO_DATA / "chunks.jsonl").read_text().splitlines()]


# --- offline generator ---------------------------------------------------------------------------


def test_at_least_70_percent_of_sampled_demo_chunks_get_a_well_formed_question(db):
    chunks = sampling.sample_chunks(db, 60, seed=7, min_words=1)
    passed = sum(
        any(c.well_formed for c in offline.generate(ch.id, ch.text, title=ch.title))
        for ch in chunks
    )
    assert passed / len(chunks) >= 0.70, f"{passed}/{len(chunks)}"


def test_every_answer_span_is_in_its_chunk():
    for chunk in _chunks():
        for cand in offline.generate(chunk["id"], chunk["text"]):
            assert chunk["text"][cand.answer_start:cand.answer_end] == cand.answer
            assert cand.answer.strip()


def test_question_kinds_on_known_sentences():
    text = ("Full-time employees get 26 days of annual leave per leave year. The leave year runs "
            "from 1 April to 31 March. A security incident is any event that may compromise data."
            " New joiners fill in the Display Screen Equipment (DSE) assessment.")
    questions = {c.question: c for c in offline.generate(
        "c1", text, title="Leave policy: Annual leave", max_per_chunk=20)}  # the heading binds
    # a quantity moved out of its clause graded 12 of 35 over rounds 1-15: not asked
    assert not [q for q in questions if q.startswith("How many")]
    assert questions["When does the leave year run?"].answer == "from 1 April to 31 March"
    assert questions["What is a security incident?"].well_formed
    assert questions["What does DSE stand for?"].answer == "Display Screen Equipment"


@pytest.mark.parametrize("question, problem", [
    ("What is the leave year", "single '?'"),
    ("The leave year runs from April?", "question word"),
    ("What is?", "words"),
    ("What do employees get and?", "dangling"),
    ("what is the leave year?", "casing"),
    ("Is the leave year (April?", "unbalanced"),
])
def test_rubric_rejects(question, problem):
    assert any(problem in p for p in rubric(question)), rubric(question)


def test_rubric_rejects_a_copy_of_the_sentence():
    sentence = "The leave year runs from 1 April to 31 March."
    assert "copies the sentence" in rubric(
        "The leave year runs from 1 April to 31 March?", sentence
    )
    assert rubric("When does the leave year run?", sentence) == []


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .?!\nA1:")), max_size=80))
def test_sentence_spans_cover_text_in_order(text):
    spans = split_sentences(text)
    assert all(a < b for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:], strict=False))
    for cand in offline.generate("x", text):
        assert text[cand.answer_start:cand.answer_end] == cand.answer


def test_sentence_splitter_keeps_abbreviations_and_decimals():
    text = "Use e.g. Okta for SSO. Version 4.2 ships soon! Ask J. Smith."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Use e.g. Okta for SSO.", "Version 4.2 ships soon!", "Ask J. Smith."
    ]


# --- sampling ------------------------------------------------------------------------------------


def test_sampling_is_seeded_and_stratified(db):
    first = [c.id for c in sampling.sample_chunks(db, 11, strategy="document", seed=3)]
    assert first == [c.id for c in sampling.sample_chunks(db, 11, strategy="document", seed=3)]
    docs = {c.doc_id for c in sampling.sample_chunks(db, 11, strategy="document", seed=3)}
    assert len(docs) == 11  # every document before any twice
    by_topic = sampling.sample_chunks(db, 4, strategy="segment", segment="topic", seed=1)
    attrs = sampling.chunk_attributes(db)
    assert len({attrs[c.id].get("topic") for c in by_topic}) == 4
    with pytest.raises(ScorecardError):
        sampling.sample_chunks(db, 3, strategy="segment")


def test_the_sampler_draws_only_passages_the_generator_asks_something_of(db):
    # Vim 9.0 usr_24.txt, "Abbreviations": the only draft ("What is there?") is screened, so
    # there is nothing to ask (issue 32: 10% of drawn passages had ended with no question)
    abbreviations = ("There is one thing to watch out for when defining an abbreviation: The\n"
                     "resulting string should not be mapped.  For example:\n\n"
                     "\t:abbreviate @a adder\n\t:imap dd disk-door\n")
    assert offline.drafts(abbreviations, "usr_24: Abbreviations")
    assert offline.fact_sentences(abbreviations, "usr_24: Abbreviations") == []
    drawn = sampling.sample_chunks(db, 30, seed=5)
    assert drawn and all(offline.generate(c.id, c.text, title=c.title) for c in drawn)


@pytest.mark.parametrize("strategy", ["random", "document"])
def test_the_sampler_counts_the_passages_it_read_to_find_those_it_drew(db, strategy: str):
    drawn = sampling.sample_chunks(db, 30, seed=5, strategy=strategy)
    everything = sampling.sample_chunks(db, 10_000, seed=5, strategy=strategy, every=True)
    read = everything[:drawn.looked_at]  # the same seeded order, every chunk kept
    assert len(everything) == everything.looked_at  # nothing passed over
    if strategy == "random":
        assert [c.id for c in read if offline.fact_sentences(c.text, c.title)] == \
            [c.id for c in drawn]
    passed_over = [c for c in read if not offline.fact_sentences(c.text, c.title)]
    assert drawn.looked_at == len(drawn) + len(passed_over)


def test_a_batch_says_what_share_of_the_passages_read_the_rules_could_ask_about(db, tmp_path):
    # passages with nothing to ask: the only draft of Vim's "Abbreviations" is screened
    nothing = ("There is one thing to watch out for when defining an abbreviation: The\n"
               "resulting string should not be mapped.  For example:\n\n"
               "\t:abbreviate @a adder\n\t:imap dd disk-door\n")
    assert offline.fact_sentences(nothing, "usr_24: Abbreviations") == []
    path = tmp_path / "nothing.jsonl"
    path.write_text("".join(json.dumps({"id": f"vim-{i}", "title": "usr_24: Abbreviations",
                                        "text": nothing}) + "\n" for i in range(5)))
    file_importers.import_chunks(db, path)
    result = batches.run(db, 10_000, seed=5)
    read, drawn = result.looked_at, result.drawn
    assert drawn == len(sampling.sample_chunks(db, 10_000, seed=5)) and read >= drawn
    assert read == len(sampling.eligible_chunks(db, every=True))  # all read: none left over
    sentence = result.coverage_sentence()
    assert read >= drawn + 5
    assert f"found something to ask in {drawn} of the {read} passages read" in sentence
    assert batches.BatchResult("b", drawn=4, looked_at=10).coverage_sentence().startswith(
        "The offline rules found something to ask in 4 of the 10 passages read (40%)")
    assert batches.BatchResult("b", drawn=4, looked_at=4).coverage_sentence() == ""


def test_sampling_skips_short_chunks(db):
    assert all(len(c.text.split()) >= 50 for c in sampling.eligible_chunks(db, min_words=50))


# --- quality signals -----------------------------------------------------------------------------


def test_quality_signals(db):
    assert quality.overlap("How many days of leave?", "26 days of annual leave") == 1.0
    assert quality.overlap("What is the stipend?", "26 days of annual leave") == 0.0
    dupes = quality.near_duplicates(
        ["how many days of annual leave do I get", "how many days of annual leave do I get?"],
        [("q:x", "something else entirely here")],
    )
    assert dupes[0] == (None, 0.0) and dupes[1] == ("#0", 1.0)
    index = quality.Bm25Index(db)
    trips = index.round_trip(
        ["How many days of annual leave do full-time employees get?", "the of and"],
        ["leave-01", "leave-01"], k=10,
    )
    assert trips[0].rank == 1 and trips[0].outranking == []
    assert trips[1].rank is None


# --- review --------------------------------------------------------------------------------------


@pytest.fixture
def queued(monkeypatch):
    """Records what the review hands to the labeling queue instead of queueing it."""
    calls: list = []
    monkeypatch.setattr(queue, "enqueue_pairs",
                        lambda db, pairs, reason: calls.append((list(pairs), reason)))
    return calls


def test_accept_creates_a_synthetic_query_with_attributes_and_generator_judgment(db, queued):
    ids = review.add_candidates(db, [Candidate("leave-01", "What do I get?", "offline")])
    # force an outranking chunk so the queue hand-off is exercised
    db.conn.execute("UPDATE synthetic_candidates SET outranking = '[\"leave-02\"]'")
    qid = review.accept(db, ids[0], "alice", question="How much annual leave do I get?")
    row = db.conn.execute("SELECT text, source FROM queries WHERE id = ?", [qid]).fetchone()
    assert row == ("How much annual leave do I get?", "synthetic")
    assert dict(db.conn.execute(
        "SELECT name, value FROM query_attributes WHERE query_id = ?", [qid]
    ).fetchall()) == {"topic": "hr"}
    [judgment] = judgment_history(db, qid)
    assert (judgment["chunk_id"], judgment["grade"], judgment["annotator"]) == (
        "leave-01", 3, "generator"
    )
    assert judgment["flags"] == {"confirm": True, "generator": True}
    assert queued == [([(qid, "leave-02")], "synthetic")]
    frame = review.candidates_frame(db)
    assert frame.loc[0, "status"] == "accepted" and frame.loc[0, "generated_question"] == (
        "What do I get?"
    )
    with pytest.raises(ScorecardError, match="already accepted"):
        review.accept(db, ids[0], "alice")


def test_reject_keeps_the_reason_and_batch_actions(db, queued):
    ids = review.add_candidates(db, [
        Candidate("leave-01", f"How many days of leave do I get in year {i}?", "offline")
        for i in range(4)
    ])
    with pytest.raises(ScorecardError, match="reason"):
        review.reject(db, ids[0], "bob", "")
    review.reject(db, ids[0], "bob", "too easy or trivial")
    assert review.reject_many(db, ids[1:3], "bob", "duplicate") == 2
    assert len(review.accept_many(db, ids[3:], "bob")) == 1
    stats = review.review_statistics(db)
    assert stats.set_index("reject_reason").loc["duplicate", "candidates"] == 2
    assert review.candidates_frame(db, "rejected")["reviewer"].eq("bob").all()


def test_generate_offline_is_reproducible_and_does_not_repeat_itself(db, make_workspace):
    result = batches.run(db, 8, seed=5)
    assert result.ids and not result.errors
    frame = review.candidates_frame(db)
    assert frame["well_formed"].all() and frame["roundtrip"].any()
    other = make_workspace("demo")
    batches.run(other, 8, seed=5)
    columns = ["chunk_id", "question", "quality"]
    assert review.candidates_frame(other)[columns].equals(frame[columns])  # same seed, same
    batches.run(db, 8, seed=5)  # again into the same workspace: nothing asked twice
    again = review.candidates_frame(db)
    assert not again["question"].str.lower().duplicated().any()


# --- importers -----------------------------------------------------------------------------------


def test_import_llamaindex_and_ragas(db, tmp_path):
    leave = next(c for c in _chunks() if c["id"] == "leave-01")["text"]
    llama = tmp_path / "qa.json"
    llama.write_text(json.dumps({
        "queries": {"a": "How much annual leave is there?", "b": "Unknown?", "c": "By id?"},
        "corpus": {"n1": leave.upper(), "n2": "nothing like any chunk at all in the demo"},
        "relevant_docs": {"a": ["n1"], "b": ["n2"], "c": ["leave-02"]},
    }))
    assert importers.import_llamaindex(db, llama).summary() == (
        "2 candidates queued for review, 1 not matched"
    )
    ragas = tmp_path / "ragas.jsonl"
    ragas.write_text(
        json.dumps({"user_input": "When does the leave year start?",
                    "reference_contexts": ["unrelated", leave[:120]], "reference": "1 April"})
        + "\n" + json.dumps({"user_input": "Lost?", "reference_contexts": ["no such text"]})
    )
    result = importers.import_ragas(db, ragas)
    assert (result.stored, result.unmatched) == (1, 1)
    frame = review.candidates_frame(db)
    assert set(frame["generator"]) == {"import:llamaindex", "import:ragas"}
    assert set(frame["chunk_id"]) == {"leave-01", "leave-02"}


# --- command -------------------------------------------------------------------------------------


def test_generate_command(db, capsys):
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    assert main(["generate", path, "--sample", "5", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "queued" in out
    frame = review.candidates_frame(db)
    assert len(frame) > 0
    shown, hidden = review.review_queue(db)  # issue 32: the queue's expected yield, as the page
    assert review.expected_sentence(shown, db) in out
    assert (f"{hidden} candidate" in out) == bool(hidden)
    assert main(["generate", path, "--sample", "2", "--generator", "llm"]) == 2  # no settings
    assert "SCORECARD_LLM_BASE_URL" in capsys.readouterr().err


def test_accept_hands_outranking_chunks_to_the_real_labeling_queue(db):
    [cid] = review.add_candidates(db, [Candidate("leave-01", "How much leave do I get?", "x")])
    db.conn.execute("UPDATE synthetic_candidates SET outranking = '[\"leave-02\"]'")
    qid = review.accept(db, cid, "alice")
    pairs = {(p["chunk_id"], p["reason"]) for p in queued_pairs(db, qid)}
    assert ("leave-02", "synthetic") in pairs
