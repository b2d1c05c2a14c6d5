"""The offline generator against the rejects of issue 32's round-10 development samples, graded
blind by independent graders: Javadoc of the Java SE API and GNU Info manuals
(``benchmarks/synthetic_grading/round10``), passages read from the committed sheets.

- an answer that only says again what the question names is trivial ("What does
  ThreadPoolExecutor.getTaskCount() return?" -> "the number of tasks"; the localDateTime
  parameter -> "the local date-time, not null");
- "What does X do?" answered "Returns ..." and "What does X return?" are the same question;
- a lead sentence that does not define the key it is asked about ("DES3 has a key size of
  ...") or states a rule about something else ("Parameter 'verbosity' should be set ...").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

JAVADOC = "round10/javadoc"
INFO = "round10/info"


@pytest.mark.parametrize(("chunk_id", "trivial"), [
    ("java/util/concurrent/ThreadPoolExecutor-071-01",
     "What does ThreadPoolExecutor.getTaskCount() return?"),
    ("java/time/ZonedDateTime-016-01",
     "What is the localDateTime parameter of ZonedDateTime.ofStrict()?"),
    ("java/util/concurrent/Executors-024-01", "What does Executors.privilegedCallable() return?"),
    ("java/math/BigInteger-146-01", "What does BigInteger.longValue() return?"),
    ("java/util/Vector-030-01", "What is the obj parameter of Vector.addElement()?"),
])
def test_an_answer_that_restates_the_question_is_not_asked(chunk_id: str, trivial: str):
    assert trivial not in grading_sheets.questions(JAVADOC, chunk_id)


def test_what_restates_is_told_from_what_informs():
    assert screens.restates("What does ThreadPoolExecutor.getTaskCount() return?",
                            "the number of tasks")
    assert not screens.restates("What does ThreadPoolExecutor.getTaskCount() do?",
                                "Returns the approximate total number of tasks that have ever "
                                "been scheduled for execution")
    # a condition's short answer, a number and a one-word answer say something
    assert not screens.restates("What does dec_str_to_dec_str() do if the input is invalid?",
                                "nothing is returned")
    assert not screens.restates("What is the DES3 block size?", "the same as DES_BLOCK_SIZE, 8")
    assert not screens.restates("What does byte2line() return?", "line")


@pytest.mark.parametrize(("chunk_id", "name"), [
    ("java/lang/Math-098-01", "Math.getExponent"),
    ("java/net/DatagramPacket-012-01", "DatagramPacket.getLength"),
])
def test_what_a_method_returns_is_asked_once(chunk_id: str, name: str):
    asked = grading_sheets.answers(JAVADOC, chunk_id)
    assert asked[f"What does {name}() do?"].startswith("Returns")
    assert f"What does {name}() return?" not in asked
    assert f"{name} return value" not in asked


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("nettle:DES3-02", "What is DES3 in nettle?"),  # "DES3 has a key size of 168 bits"
    ("bzip2:BZ2_bzCompressInit-03", "What is BZ2_bzCompressInit in bzip2?"),  # "should be"
])
def test_a_lead_sentence_that_does_not_define_its_key_is_not_asked(chunk_id: str,
                                                                   rejected: str):
    assert rejected not in grading_sheets.questions(INFO, chunk_id)


def test_a_lead_sentence_about_another_name_is_not_asked():
    # Javadoc: "UNSUPPORTED This interface is intended to be package-private ..." (a marker
    # in upper case opens the comment); graded a wrong span as "LiveStackFrame PrimitiveSlot"
    asked = grading_sheets.questions(JAVADOC, "java/lang/LiveStackFrame-005-01")
    assert not [q for q in asked if "PrimitiveSlot" in q]


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    # a later passage of an entry: "To reference the installation prefix itself ..."
    ("round11/cmake", "command/set_property-01-03", "What is set_property used for?"),
    # "The script uses find to capture the paths ...": a clause about another subject
    ("round5/heldout", "variable/CTEST_COVERAGE_COMMAND-01-02",
     "What is CTEST_COVERAGE_COMMAND used for?"),
])
def test_a_title_is_not_asked_what_it_is_used_for_from_a_sentence_about_something_else(
        folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


@pytest.mark.parametrize(("folder", "chunk_id", "kept"), [
    ("round5/heldout", "variable/CMAKE_ARGC-01-01", "What is CMAKE_ARGC used for?"),
    ("round11/cmake", "prop_tgt/COMPILE_FLAGS-01-01", "What is COMPILE_FLAGS used for?"),
])
def test_a_title_is_asked_what_it_is_used_for_from_its_lead_sentence(folder: str,
                                                                     chunk_id: str,
                                                                     kept: str):
    assert kept in grading_sheets.questions(folder, chunk_id)


@pytest.mark.parametrize("short", [
    "How do I find the alias?",  # round 12, AWS CLI: "the alias" of what?
    "How do I generate a report?",
    "How do I delete an autocommand?",  # accepted in round 6: the rule costs some like it
])
def test_a_how_to_of_fewer_than_three_content_words_naming_nothing_is_not_asked(short: str):
    assert screens.misread(short)


@pytest.mark.parametrize("specific", [
    "How do I get the ID for a signing certificate?",
    "How do I update an OAI?",  # an acronym written in capitals names something
    "How do I list the access keys defined for an IAM user?",
])
def test_a_how_to_that_names_its_task_is_asked(specific: str):
    assert not screens.misread(specific)


def test_a_note_marker_or_a_pointer_is_not_a_subject():
    assert screens.misread("What is the difference between NOTE and AWS?")
    assert screens.misread("What does see AWS CloudHSM key store for more information?")


def test_what_a_common_acronym_stands_for_is_not_picked():
    from collections import Counter

    from labeling.synthetic.batches import common_acronym
    from labeling.synthetic.features import Workspace

    space = Workspace(n_chunks=1000, document_frequency=Counter({"arn": 400, "oai": 6}),
                      paragraph_chunks=Counter(), texts={}, titles={}, index=None)
    assert common_acronym("What does ARN stand for?", space)
    assert common_acronym("ARN abbreviation", space)
    assert not common_acronym("What does OAI stand for?", space)  # 6 passages in 1000
    assert not common_acronym("What does ARN return?", space)


NPM = "round13/heldout"  # npm's documentation, graded blind; development data since


def test_a_table_is_asked_about_only_under_a_header_that_names_a_property():
    # "What is the requires 2fa for npm stage publish?" -> "No": a permission matrix
    asked = grading_sheets.questions(NPM, "commands/npm-stage-05-01")
    assert not [q for q in asked if "requires 2fa" in q or "npm stage publish for" in q]


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("using-npm/config-121-01", "How do I suppress the progress bar?"),  # "to false"
    ("commands/npm-fund-06-01", "How do I use default system URL opener?"),  # "to true"
])
def test_a_bare_value_is_not_an_answer(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(NPM, chunk_id)


BOOK = "round14/heldout"  # the Rust book, graded blind; development data since


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("ch13-01-closures-03-03", "What does generate_workout() do?"),  # "With type annotations"
    ("ch10-00-generics-02-02", "What does main() do?"),  # the example's entry point
    ("ch09-02-recoverable-errors-with-result-01-03",
     "How does Listing 9-4 show one way to handle the Result?"),
    ("ch11-01-writing-tests-02-02", "How does we\u2019ll explore some aspects of how test work?"),
    ("ch07-05-separating-modules-into-different-files-01-03",
     "Why is the process a bit different?"),
    ("ch15-05-interior-mutability-03-01", "What is Using RefCell<T>?"),
])
def test_a_tutorials_voice_numbering_and_examples_are_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(BOOK, chunk_id)


def test_a_name_followed_by_its_property_is_not_a_pointing_noun():
    assert not screens.misread("What does the process.execArgv property return?")
    assert screens.misread("How do I get the code to compile?")
