"""The offline generator against the rejects of issue 32's round-17 held-out sample, the Cargo
book (``benchmarks/synthetic_grading/round17/heldout``, graded blind by an independent grader;
development data since), passages read from the committed sheet:

- an answer cut before the preposition that ends its sentence ("... this package belongs");
- a perfect tense moved around "When does" ("When does the compile-progress feature have been
  stabilized?");
- an option's argument as a referent ("How do I install only the specified binary?") and a
  table's entries as a subject ("What is each key in the replace table?");
- an answer that is only a pointing word ("this");
- a how-to answered by a command's option that does not name the command: the page after a
  document set's name ("The Cargo Book: cargo test: ...") is the topic, named as a man page's
  command is ("... with cargo test?").
"""

from __future__ import annotations

from labeling.synthetic import offline
from labeling.synthetic.passage import read_passage
from labeling.synthetic.subject import topic_of
from tests import grading_sheets

CARGO = "round17/heldout"


def test_an_answer_runs_to_the_preposition_that_ends_its_sentence():
    answers = grading_sheets.answers(CARGO, "reference/manifest-15-01")
    assert answers["What is the categories field?"].endswith("this package belongs to.")


def test_a_perfect_tense_is_asked_in_the_past():
    asked = grading_sheets.questions(CARGO, "reference/unstable-89-01")
    assert "When was the compile-progress feature stabilized?" in asked
    assert not [q for q in asked if " have been " in q]


def test_an_unbound_referent_is_not_asked():
    assert "How do I install only the specified binary?" not in grading_sheets.questions(
        CARGO, "commands/cargo-install-06-02")
    assert "What is each key in the replace table?" not in grading_sheets.questions(
        CARGO, "reference/overriding-dependencies-08-01")


def test_a_pointing_word_is_no_answer():
    assert "How do I find session IDs for other report commands?" not in \
        grading_sheets.questions(CARGO, "reference/unstable-83-01")


def test_the_page_after_a_document_set_is_the_topic():
    title = "The Cargo Book: cargo test: Target Selection"  # the page's <title>: "cargo test"
    topic = topic_of(title, read_passage("", title))
    assert topic is not None and topic.name == "cargo test"
    assert topic_of("The Cargo Book: NAME: Clean Options").name == "The Cargo Book"  # a heading
    _, text = grading_sheets.passages(CARGO)["commands/cargo-test-08-03"]
    asked = [c.question for c in offline.generate("t", text, title=title, max_per_chunk=0)]
    assert "How do I test all binary targets with cargo test?" in asked
    assert "How do I test all binary targets?" not in asked
