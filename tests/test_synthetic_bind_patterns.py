"""The offline generator against the rejects of issue 32's round-56 held-out sample, the BIND 9.18
Administrator Reference Manual (``benchmarks/synthetic_grading/round56/heldout``, graded blind by
an independent grader; development data since), and the same patterns in earlier held-out
samples, passages read from the committed sheets:

- an answer that is a configuration block's first line ('zone "example.com" IN {', "controls
  {"): code cut where the block opens;
- a clause moved around "When is" that kept its participle ("When is EDNS a standard that was
  first specified?", "When is Devuan a fork of Debian started?");
- a how-to that runs on into a description's verb ("How do I connect to 127.0.0.1 port 953 and
  causes the name server to reload?");
- and, from GnuCash's guide (round 58), a numbered heading pasted as a term's owner ("What is
  E_TAX1 in GnuCash Guide 13.5. Payroll?").
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

BIND = "round56/heldout"


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (BIND, "bind/dnssec-guide-113-03", "How do I undo NSEC3 opt-out?"),
    (BIND, "bind/dnssec-guide-114-01", "How do I indicate the reversion to unsigned?"),
    ("round40/heldout", "cpp/language/dependent_name-02-02",
     "How do I make ADL examine a user-defined namespace?"),
])
def test_a_block_opening_line_is_not_an_answer(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (BIND, "bind/chapter9-04-01", "When is EDNS a standard that was first specified?"),
    ("round52/heldout", "handbook/sect.devuan-01-01", "When is Devuan a fork of Debian started?"),
])
def test_a_when_question_keeps_no_participle(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (BIND, "bind/chapter4-04-05",
     "How do I connect to 127.0.0.1 port 953 and causes the name server to reload?"),
    ("round44/heldout", "django/ref/models/querysets-42-01",
     "How do I evaluate the QuerySet and returns an iterator over the results?"),
])
def test_a_task_does_not_run_into_a_description(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


def test_a_numbered_heading_is_not_pasted_as_the_owner():
    """GnuCash's guide (round 58): "What is E_TAX1 in GnuCash Guide 13.5. Payroll?" carried a
    section's number and heading; the product names the owner."""
    questions = grading_sheets.questions("round58/heldout", "gnucash/guide/bus_payroll-05-01")
    assert "What is E_TAX1 in GnuCash Guide 13.5. Payroll?" not in questions
    assert "What is E_TAX1 in GnuCash?" in questions
