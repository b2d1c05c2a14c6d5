"""The offline generator against the rejects of issue 32's round-4 held-out sample, graded blind
by an independent grader: passages of the POD of Perl 5.36's core modules as
``benchmarks/synthetic_corpora.py pod`` cut them, read from the committed blind sheet
``benchmarks/synthetic_grading/round4/heldout/sheet.md`` (the passage id names the module).

Each rejected question must no longer be asked: a qualified module name cut down ("with
Math" for ``Math::BigRat``), a question with no subject, a version fragment or a capitalised
word copied from mid-sentence, a note marker read as a term, an answer cut mid-phrase, a code
fragment or advice as the answer, an answer that points back ("these options"), a copied
sentence with its verb blanked ("What can the SelfLoader load?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic.subject import topic_of
from tests import grading_sheets

ROUND = "round4/heldout"


def passages() -> dict[str, tuple[str, str]]:
    return grading_sheets.passages(ROUND)


def questions(chunk_id: str) -> list[str]:
    return grading_sheets.questions(ROUND, chunk_id)


def test_a_qualified_module_name_is_kept_whole():
    assert topic_of("Math::BigRat: METHODS").name == "Math::BigRat"
    assert topic_of("ExtUtils::MakeMaker: Additional lowercase attributes").name == \
        "ExtUtils::MakeMaker"
    assert topic_of("os.path: Functions").name == "os.path"
    for chunk_id in ("Math::BigRat-05-10", "Math::BigFloat-08-02", "Math::BigInt-10-08"):
        assert not [q for q in questions(chunk_id) if q.endswith(" with Math?")]


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("Test2::API-08-01", "What happens if there is already a context active?"),  # no subject
    ("Test2::API-08-01", "What happens if there is not an active context?"),
    ("Net::SMTP-05-06", "What happens if $data is not specified?"),  # a parameter, no API
    ("Test2::API-19-01",  # a capital copied from mid-sentence
     "What does test2_add_callback_post_load() do If Test2 has already finished loading?"),
    ("ExtUtils::Install-15-02", "What does as of 1.37_02 install() support?"),  # a version
    ("HTTP::Tiny-10-01", "What is $ok used for?"),  # a code fragment as the answer
    ("Unicode::UCD-30-01", "How do I convert from new-style to old-style?"),  # code answer
    ("ExtUtils::Mksymlists-03-03", "What happens when calling Mksymlists?"),  # advice
    ("Pod::Simple::XHTML-20-01",  # the answer points back: "set these options"
     "What should I do if I want no headers or footers output in the HTML?"),
    ("Devel::SelfStubber-03-02", "What can the SelfLoader load?"),  # copied, verb blanked
    ("Digest-04-03", "What will the two argument form of add_bits() add?"),
    ("TAP::Parser::Scheduler-04-01", "What is the rules data structure?"),  # "the the"
    ("CPAN-26-01", "Where do I try o conf init prefs_dir?"),  # a pointer, not a task
    ("Memoize-10-01",  # "another use": points at the sentence before
     "Where is another use for MERGE when I want both kinds of return values stored?"),
    ("Math::BigInt-10-08", "How do I calculate the N'th root of $x with Math::BigInt?"),
])
def test_a_rejected_question_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in questions(chunk_id)


def test_a_note_marker_is_not_a_term():
    assert not [q for q in questions("ExtUtils::MakeMaker-17-02") if "NB" in q.split()]


def test_accepted_questions_are_still_asked():
    # accepted as "What is the add_bits() method?"; it now names its owner (Javadoc round)
    assert "What is the add_bits() method of Digest?" in questions("Digest-04-03")
    made = [q for cid in passages() for q in questions(cid)]
    assert len(made) >= len(passages()) // 2  # one question per two passages at least
