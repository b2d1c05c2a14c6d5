"""The offline generator against the rejects of issue 32's round-7 held-out sample, graded blind
by an independent grader: the Java SE API's Javadoc comments as ``benchmarks/synthetic_corpora.py
javadoc`` renders them, read from the committed blind sheet
``benchmarks/synthetic_grading/round7/heldout/sheet.md`` (the passage id names the source file).

A member asked about without its class gets the class (``subject_checks.qualify``); a
sentence's object asked for with its verb last ("What does DateFormat provide?") is not asked;
the labelled lists of API reference ("Returns:", "Parameters:", "Throws:") are asked about,
owned by the member the title names (``labelled_lists``).
"""

from __future__ import annotations

import pytest

from labeling.synthetic import offline
from labeling.synthetic.labelled_lists import from_labelled_lists, owner_of
from labeling.synthetic.subject import Subject
from labeling.synthetic.subject_checks import qualify
from tests import grading_sheets

ROUND = "round7/heldout"


def passages() -> dict[str, tuple[str, str]]:
    return grading_sheets.passages(ROUND)


def questions(chunk_id: str) -> list[str]:
    return grading_sheets.questions(ROUND, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    # a member without its class
    ("java/lang/ProcessBuilder-001-01", "What does the start() method create?"),
    ("java/lang/AbstractStringBuilder-052-01", "What does insert() do if s is null?"),
    ("java/net/ServerSocket-006-01", "What is the backlog argument?"),
    ("java/util/StringTokenizer-007-01", "What are the characters in the delim argument?"),
    # a sentence's object with its verb last
    ("java/text/DateFormat-001-01", "What does DateFormat provide?"),
    ("java/lang/ProcessBuilder-001-01", "What does each ProcessBuilder instance manage?"),
    ("java/util/ServiceLoader-004-01", "What will the ServiceConfigurationError carry?"),
    ("java/lang/StackStreamFactory-001-01", "What does AbstractStackWalker provide?"),
    ("java/time/DayOfWeek-017-01", "What does the TemporalQuery object define?"),
    ("java/net/HttpCookie-001-01", "What does an HttpCookie object represent?"),
    ("java/util/ResourceBundle-030-01", "What does getBundle() describe?"),
])
def test_a_rejected_question_is_no_longer_asked(chunk_id, rejected):
    assert rejected not in questions(chunk_id)


@pytest.mark.parametrize(("chunk_id", "accepted"), [
    ("java/text/DateFormatSymbols-023-01", "What does LDML stand for?"),
    ("java/util/Locale-113-01", "What is a language range?"),
    ("java/util/Collection-001-06", "What is an unmodifiable view collection?"),
    ("java/util/Scanner-001-04", "What is a scanner's initial locale?"),
])
def test_an_accepted_question_from_the_same_sheet_is_still_asked(chunk_id, accepted):
    assert accepted in questions(chunk_id)


def test_a_member_gets_its_class():
    builder = Subject("ProcessBuilder", "ProcessBuilder", "topic")
    assert qualify("What does the start() method create?", builder) == \
        "What does the start() method of ProcessBuilder create?"
    assert qualify("What does insert() do if s is null?", builder) == \
        "What does ProcessBuilder's insert() do if s is null?"
    socket = Subject("ServerSocket", "ServerSocket", "topic")
    assert qualify("What is the backlog argument?", socket) == \
        "What is the backlog argument of ServerSocket?"
    assert qualify("What is the second argument?", socket) == "What is the second argument?"
    assert qualify("What does ServerSocket.accept() return?", socket) == \
        "What does ServerSocket.accept() return?"  # the topic is named already
    builtin = Subject("builtin", "builtin", "topic")  # a page, not a class
    assert qualify("What does sqrt() return?", builtin) == "What does sqrt() return?"


LIST_OF = """Returns an unmodifiable list containing two elements.

Parameters:
  e1 - the first element
  e2 - the second element

Returns:
  a List containing the specified elements

Throws:
  NullPointerException - if an element is null"""


def test_a_labelled_list_is_asked_about_its_owner():
    """``List.of(E e1, E e2)``'s comment as Javadoc renders it (java.base, java/util/List.java)."""
    assert owner_of("List: of(E e1, E e2)") == "List.of()"
    assert owner_of("TreeSet: TreeSet(Comparator<? super E> comparator)") == \
        "the TreeSet() constructor"
    assert owner_of("strtol(3)") == "strtol()"
    assert owner_of("gzip(1): Options") is None  # a command's page: no member to own a list
    assert owner_of("List") is None and owner_of("builtin: Details") is None
    drafts = {d.question: LIST_OF[d.span[0]:d.span[1]]
              for d in from_labelled_lists(LIST_OF, "List: of(E e1, E e2)")}
    assert drafts == {
        "What does List.of() return?": "a List containing the specified elements",
        "When does List.of() throw NullPointerException?": "if an element is null",
    }  # "e1 - the first element": too short to ask about
    assert from_labelled_lists(LIST_OF, "List") == []  # whose list? nothing is asked


E0382 = """A variable was used after its contents have been moved elsewhere.

Erroneous code example:

```
struct MyStruct { s: u32 }
```"""


@pytest.mark.parametrize(("title", "text", "question", "answer"), [
    ("List: of(E e1, E e2)", LIST_OF, "What does List.of() do?",
     "Returns an unmodifiable list containing two elements"),
    ("rustc: E0382", E0382, "What is E0382 in rustc?",  # rustc --explain E0382 (Rust 1.x)
     "A variable was used after its contents have been moved elsewhere"),
    ("CMAKE_ARGC", "Number of command line arguments passed to CMake in script mode.\n",
     "What is CMAKE_ARGC used for?", "Number of command line arguments passed to CMake in "
     "script mode"),
])
def test_a_reference_entry_is_asked_what_its_one_thing_is(title, text, question, answer):
    asked = {c.question: c.answer for c in offline.generate("x", text, title=title,
                                                            max_per_chunk=0)}
    assert asked.get(question) == answer


@pytest.mark.parametrize(("title", "text"), [
    ("builtin: Details", "Returns the number of bytes in the given string value."),  # words
    ("rustc: E0382", "This error occurs when a variable is used after a move."),  # points
    ("rustc: E0382", "See the chapter on ownership for the details of moves."),
])
def test_no_lead_question_without_one_thing_or_a_description(title, text):
    from labeling.synthetic.lead import lead_draft
    from labeling.synthetic.passage import read_passage

    assert lead_draft(read_passage(text, title)) is None
