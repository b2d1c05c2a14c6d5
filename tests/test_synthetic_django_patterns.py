"""The offline generator against the rejects of issue 32's round-44 held-out sample, Django 3.2's
Sphinx documentation (``benchmarks/synthetic_grading/round44/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet:

- a term or member owned by a page's title in words ("What is CONTENT_LENGTH in Django Request
  and response objects?", "What does JSONBAgg in Django PostgreSQL specific aggregation functions
  do?": "page title pasted into question", 0 of 5 such accepted over the held-out rounds): the
  title's product names the owner, or nothing does;
- a line of an example that opens a Python class or function read as the signature heading the
  entry ("What does Book() do?" of "class Book(models.Model):", "What does title() return?"
  of "def title(self, obj):"), answered by prose about the example;
- a special method asked bare ("What does __iter__() do?", 0 of 4 accepted: "bare __iter__()"):
  owned by the class the entry's signature declares ("class ModelChoiceIterator(field)"), or
  not asked.
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

DJANGO = "round44/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("django/ref/request-response-04-04",
     "What is CONTENT_LENGTH in Django Request and response objects?",
     "What is CONTENT_LENGTH in Django?"),
    ("django/ref/contrib/postgres/aggregates-08-01",
     "What does JSONBAgg in Django PostgreSQL specific aggregation functions do?",
     "What does JSONBAgg() do?"),
])
def test_a_title_in_words_is_not_pasted_as_the_owner(chunk_id: str, rejected: str, asked: str):
    questions = grading_sheets.questions(DJANGO, chunk_id)
    assert rejected not in questions
    assert asked in questions


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("django/topics/db/models-35-02", "What does Book() do?"),
    ("django/topics/db/models-24-01", "What does Student() do?"),
    ("django/ref/contrib/syndication-12-02", "What does title() return?"),
    ("django/howto/custom-management-commands-08-01", "What does __init__() do?"),
])
def test_a_python_block_opener_is_code_not_a_signature(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(DJANGO, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("django/ref/forms/fields-48-01", "What does __iter__() do?",
     "What does ModelChoiceIterator's __iter__() do?"),
    ("django/ref/forms/fields-49-01", "What does __str__() do?",
     "What does ModelChoiceIteratorValue's __str__() do?"),
    ("django/ref/contrib/gis/measure-06-01", "What does __getattr__() do?",
     "What does Area's __getattr__() do?"),
])
def test_a_special_method_is_owned_by_the_class_its_signature_declares(
        chunk_id: str, rejected: str, asked: str):
    questions = grading_sheets.questions(DJANGO, chunk_id)
    assert rejected not in questions
    assert asked in questions
