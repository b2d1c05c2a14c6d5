"""The offline generator against the rejects of issue 32's round-5 held-out sample, graded blind
by an independent grader: passages of CMake's reStructuredText help (3.25) as
``benchmarks/synthetic_corpora.py cmake`` cuts them, read from the committed blind sheet
``benchmarks/synthetic_grading/round5/heldout/sheet.md`` (the passage id names the help file).

Each rejected question must no longer be asked (``labeling.synthetic.subject_checks``): a
clause question whose only subject is the product ("What does CMake provide?"), a neighbouring
API or a phrase; an option without its program; an answer pointing back to an unnamed
subject ("this variable"); a how-to too vague to tell its API; a verb left without its second
object; an answer running on into the next entry or carrying reST roles. The questions the
grader accepted from the same passages must still be asked: the checks cut what names
nothing, not what names its subject.
"""

from __future__ import annotations

import pytest

from labeling.synthetic.subject_checks import is_code_name, unnamed
from tests import grading_sheets

ROUND = "round5/heldout"


def passages() -> dict[str, tuple[str, str]]:
    return grading_sheets.passages(ROUND)


def questions(chunk_id: str) -> list[str]:
    return grading_sheets.questions(ROUND, chunk_id)


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    # the product, not the subject
    ("variable/CMAKE_VS_PLATFORM_NAME-01-01", "What does CMake provide?"),
    ("command/ctest_test-02-01", "What can CTest parse?"),
    ("prop_gbl/GLOBAL_DEPENDS_DEBUG_MODE-01-01", "What does CMake automatically analyze?"),
    ("variable/CMAKE_GENERATOR_TOOLSET-01-01", "What do some CMake generators support?"),
    ("variable/CPACK_SET_DESTDIR-01-01", "What does CPack first install when preparing a package?"),
    # an answer pointing back at the unnamed variable
    ("variable/CMAKE_ARGC-01-01", "What does CMake set when run in -P script mode?"),
    ("variable/CMAKE_SCRIPT_MODE_FILE-01-01",
     "What does CMake set when run in cmake -P script mode?"),
    # an option without its program
    ("variable/CTEST_COVERAGE_COMMAND-01-02", "What does the --format option do?"),
    ("variable/CTEST_COVERAGE_COMMAND-01-02", "--datafila option"),
    # how-tos too vague to tell the API
    ("command/file-07-03", "How do I check certificates?"),
    ("command/set_source_files_properties-01-02", "How do I get property values?"),
    ("prop_tgt/COMPILE_FLAGS-01-01", "How do I pass additional preprocessor definitions?"),
    ("variable/CMAKE_Fortran_FORMAT-01-01", "How do I indicate the Fortran source layout?"),
    # a verb left without its second object; reST roles in the answer
    ("prop_test/RESOURCE_GROUPS-01-01", "What does the RESOURCE_GROUPS property tell?"),
    ("prop_test/RESOURCE_GROUPS-01-01", "What is the RESOURCE_GROUPS property?"),
    # an answer running on into the next entry of the list
    ("command/find_package-06-04", "What is PACKAGE_VERSION in find_package?"),
])
def test_a_rejected_question_is_no_longer_asked(chunk_id, rejected):
    assert rejected not in questions(chunk_id)


@pytest.mark.parametrize(("chunk_id", "accepted"), [
    ("command/source_group-01-02", "What is REGULAR_EXPRESSION in source_group?"),
    ("variable/CMAKE_INSTALL_MESSAGE-01-01", "What does LAZY do in CMAKE_INSTALL_MESSAGE?"),
    ("command/cmake_path-13-02", "How do I compare the lexical representations of two paths "
     "provided as string literals?"),
    ("variable/CMAKE_MFC_FLAG-01-01", "What does MFC stand for?"),
])
def test_an_accepted_question_from_the_same_sheet_is_still_asked(chunk_id, accepted):
    assert accepted in questions(chunk_id)


@pytest.mark.parametrize(("word", "code"), [
    ("find_package()", True), ("numeric_owner", True), ("os.path", True), ("Http2Stream", True),
    ("$gzerrno", True), ("Math::BigRat", True), ("readFile", True),
    ("CMake", False), ("CTest", False), ("GOSTDSA", False), ("--format", False),
    ("files", False), ("3.0.1", False),
])
def test_a_name_written_as_code(word, code):
    assert is_code_name(word) is code


def test_each_check_alone():
    title = "CMAKE_ARGC"
    assert unnamed("What does CMake provide?", "the name", False, title, None)
    assert not unnamed("What does CMake provide?", "the name", True, title, None)  # a list term
    assert not unnamed("What is a TZ value?", "a rule that names a location", False, title, None)
    assert not unnamed("What is CMAKE_ARGC used for?", "the count", False, title, None)
    assert unnamed("What does CMAKE_ARGC hold?", "the count", False, title, None)  # object last
    assert unnamed("What does CMake set?", "this variable to the count", True, "x", None)
    assert unnamed("How do I check certificates?", "TLS_VERIFY", True, title, None)
    assert not unnamed("How do I omit RPATH in both the build and install steps?", "use x",
                       True, title, None)
    assert unnamed("What does the RESOURCE_GROUPS property tell?", "CTest what", True,
                   "RESOURCE_GROUPS", None)
    assert unnamed("What is PACKAGE_VERSION in find_package?",
                   "Full version\nPACKAGE_VERSION_EXACT\n  True", True, "find_package", None)


def test_forms_that_graded_poorly_on_every_kind_are_not_asked():
    for question in ("Where are two examples available?", "What should I do if I use try_run?",
                     "What can the environment variable CMAKE_INSTALL_MODE override?",
                     "What is the name autopoint?"):
        assert unnamed(question, "an answer of words", True, "try_run", None), question


def test_a_generic_title_word_does_not_name_the_subject():
    """"How do I fix the error?" under "Errors": the heading's word names no API."""
    assert unnamed("How do I fix the error?", "x", True, "nodejs: Errors", None)
    assert not unnamed("How do I reset the stipend?", "x", True, "Home office: Stipend", None)
