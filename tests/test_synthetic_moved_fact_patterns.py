"""A fact moved out of its clause with the rest of the sentence copied around a question word
(``screens.MOVED_FACT``): who, how-by-what-means, how many and where graded 15 times in 77 over
issue 32's rounds 1-15. Passages are read from the committed blind sheets of the development
rounds (GNU Info, READMEs, Perl POD) and of the graded held-out rounds (AWS CLI docs, npm docs,
the Rust book); each question below was rejected there and was still asked before the screen.
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

REJECTED = [
    ("round10/info", "gettext:The_TERM_variable-01",
     "How many colors is xterm in most cases built with support for?"),
    ("round10/info", "ed:Diagnostics-01", "How many kinds of error mesages does ed print?"),
    ("round11/readme", "libpango-1.0-0:README.md-02", "Who depends on the Cairo library?"),
    ("round12/heldout", "ec2/create-fleet-04-01",
     "How does the EC2 Fleet launch 2 Spot Instances?"),
    ("round12/heldout", "ec2/create-fleet-04-01",
     "How many instances is the total target capacity?"),
    ("round12/heldout", "codecommit/create-pull-request-approval-rule-01-01",
     "How does the pool include all users who access CodeCommit?"),
    ("round12/pod", "ExtUtils::MakeMaker-13-01", "How does MakeMaker support the linking process?"),
    ("round12/pod", "PerlIO-08-02",
     "How many times the number of layers will the result be up to be?"),
    ("round13/heldout", "using-npm/dependency-selectors-07-01",
     "How does the:semver() pseudo selector allow comparing fields from each node's "
     "package.json?"),
    ("round14/heldout", "ch21-02-multithreaded-03-33", "How many threads created are there never?"),
]


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), REJECTED)
def test_a_moved_fact_is_not_asked(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


def test_without_the_screen_they_were_asked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(screens, "MOVED_FACT", screens.re.compile(r"(?!)"))  # matches nothing
    asked = [q for folder, chunk_id, q in REJECTED
             if q in grading_sheets.questions(folder, chunk_id)]
    assert len(asked) == len(REJECTED), asked


def test_a_how_to_is_still_asked():
    assert not screens.MOVED_FACT.search("How do I list the access keys defined for an IAM user?")
    assert not screens.MOVED_FACT.search("How can I uninstall Rust and rustup?")
    assert not screens.MOVED_FACT.search("When does mq_unlink() fail with EACCES?")
