"""The offline generator against the rejects of issue 32's round-31 held-out sample, gnuplot's
interactive help (``benchmarks/synthetic_grading/round31/heldout``, graded blind by an
independent grader; development data since), passages read from the committed sheet: a
change marker read as a term ("What is DEPRECATED in gnuplot?"), a connective kept in the
question ("What is I.e STATS_min_x?", "... begin in brief?"), an example's point dropped from
its how-to ("How do I set a label at to y=x?" of "To set a label at (1,2) to "y=x", use:") and
the example's "use" kept ("How do I produce a gray palette use?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

GNUPLOT = "round31/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("gnuplot/0689-01-02", "What is EXPERIMENTAL in gnuplot?"),
    ("gnuplot/0454-01-01", "What is CHANGE in gnuplot?"),
    ("gnuplot/1111-01-04", "What is DEPRECATED in gnuplot?"),
    ("gnuplot/2236-01-02", "What is I.e STATS_min_x?"),
    ("gnuplot/1189-01-01", "When does ISO Week 1 of year YYYY begin in brief?"),
    ("gnuplot/1279-01-01", "How do I set a label at to y=x?"),
    ("gnuplot/0975-01-03",
     "How do I set an arrow pointing from the origin to with user-defined linestyle 5?"),
    ("gnuplot/1495-01-02", "How do I produce a gray palette use?"),
    ("gnuplot/1648-01-03", "How do I make the graph half size and square use?"),
])
def test_a_marker_a_connective_or_an_emptied_example_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(GNUPLOT, chunk_id)


@pytest.mark.parametrize("question", [
    "How do I keep stuff out of my package?",  # "out of", "from within": one phrase
    "How do I modify the default cipher suites from within the runtime?",
    "How do I determine whether the BoringCrypto core is actually in use?",
    "How do I know which one to use?",
])
def test_a_compound_preposition_or_a_use_that_belongs_is_kept(question: str):
    assert not screens.preposition_twice(question)
