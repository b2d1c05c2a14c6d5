"""The offline generator against the rejects of issue 32's round-37 held-out sample, the Haddock
reference of GHC's libraries (``benchmarks/synthetic_grading/round37/heldout``, graded blind by
an independent grader; development data since), passages read from the committed sheet: a
complexity label read into the subject ("What does o(n) takeEnd n t return?" of "O(n) takeEnd n
t returns ..."), a common noun standing before a name as its label ("What does computation
hTell hdl return?"), and an operation's result asked about without the operation ("What is the
resulting ByteString?"); with them, "the" and one common word defined ("What is the palette?"),
rejected in every kind that had one.
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

HASKELL = "round37/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("haskell/text/Data.Text-53-01", "What does o(n) takeEnd n t return?"),
    ("haskell/text/Data.Text-44-01", "o(n) scanl1"),
    ("haskell/base/Prelude-86-01", "What is \\(\\mathcal{O}(n)\\) scanr?"),
    ("haskell/text/Data.Text.Internal.Fusion.Common-09-01", "What does O(1) return?"),
    ("haskell/bytestring/Data.ByteString.Lazy-13-01",
     "What is the difference between O(1) and ByteString?"),
    ("haskell/base/System.IO-29-01", "What does computation hTell hdl return?"),
    ("haskell/base/System.Environment-04-01", "What does computation getEnv var return?"),
    ("haskell/bytestring/Data.ByteString-89-01", "What is the resulting ByteString?"),
    ("haskell/bytestring/Data.ByteString.Short-10-01", "resulting ShortByteString"),
])
def test_a_complexity_label_a_label_noun_or_an_unbound_result_is_not_asked(chunk_id: str,
                                                                            rejected: str):
    assert rejected not in grading_sheets.questions(HASKELL, chunk_id)


@pytest.mark.parametrize(("chunk_id", "accepted"), [
    ("haskell/directory/System.Directory-07-01", "What does listDirectory dir return?"),
    ("haskell/base/Data.List-69-01", "What does the elemIndex function return?"),
])
def test_a_name_with_its_arguments_or_its_kind_is_still_asked(chunk_id: str, accepted: str):
    assert accepted in grading_sheets.questions(HASKELL, chunk_id)


@pytest.mark.parametrize("question", ["What does function implicitGeneric() return?",
                                      "What does Foo.bar(x) return?", "What is O_NONBLOCK?"])
def test_a_kind_noun_before_a_name_or_a_name_like_o_is_no_label(question: str):
    assert not screens.misread(question)


# "The" and one common word, defined: rejected in five kinds (0 of 6 graded), a named type kept.
@pytest.mark.parametrize(("folder", "chunk_id", "question", "asked"), [
    ("round31/heldout", "gnuplot/1323-01-01", "What is the margin?", False),
    ("round31/heldout", "gnuplot/1488-01-01", "What is the palette?", False),
    ("round22/heldout", "nodejs/net-03-01", "What is the path?", False),
    ("round22/heldout", "nodejs/async_hooks-12-01", "What is the type?", False),
    ("round35/heldout", "gtkdoc/glib/glib-regex-syntax-14-01", "What is the condition?", False),
    ("round35/heldout", "gtkdoc/gtk3/GtkColorButton-00-01", "What is the GtkColorButton?", True),
])
def test_the_and_a_common_word_is_not_defined(folder: str, chunk_id: str, question: str,
                                              asked: bool):
    assert (question in grading_sheets.questions(folder, chunk_id)) is asked
