"""The offline generator against the rejects of issue 32's round-29 held-out sample, the ri
reference of Ruby's core classes and standard library
(``benchmarks/synthetic_grading/round29/heldout``, graded blind by an independent grader;
development data since), passages read from the committed sheet: a method asked about by its
bare name or a placeholder receiver ("What does flush() do?", "What does obj.display() do?"),
named now as the title names it ("What does Zlib::GzipWriter#flush do?"); and a how-to
answered by the method's bare name ("How do I flush all the internal buffers of the GzipWriter
object?" answered "flush", "How do I create a new CGI::Cookie object?" answered
"Cookie.new"), which is not asked.
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

RUBY = "round29/heldout"


@pytest.mark.parametrize(("chunk_id", "bare", "owned"), [
    ("ruby.Zlib::GzipWriter#flush-01", "What does flush() do?",
     "What does Zlib::GzipWriter#flush do?"),
    ("ruby.Object#display-01", "What does obj.display() do?", "What does Object#display do?"),
    ("ruby.String#rindex-01", "What does rindex() return?", "What does String#rindex return?"),
    ("ruby.Set#divide-01", "What does divide() do?", "What does Set#divide do?"),
])
def test_a_method_is_asked_about_as_its_title_names_it(chunk_id: str, bare: str, owned: str):
    questions = grading_sheets.questions(RUBY, chunk_id)
    assert bare not in questions
    assert owned in questions


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("ruby.Zlib::GzipWriter#flush-01",
     "How do I flush all the internal buffers of the GzipWriter object?"),
    ("ruby.CGI::Cookie::new-01", "How do I create a new CGI::Cookie object?"),
    ("ruby.Logger#info-01", "How do I log an INFO message?"),
])
def test_a_how_to_answered_by_a_bare_method_name_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(RUBY, chunk_id)
