"""The offline generator against the rejects of issue 32's round-59 held-out sample, the Maxima
5.46 manual (``benchmarks/synthetic_grading/round59/heldout``, graded blind by an independent
grader; development data since), passages read from the committed sheet:

- an acronym written against its expansion, with no space before the bracket ("the General
  Public License(GPL)"): its expansion was cut a letter short ("General Public Licens").
"""

from __future__ import annotations

from labeling.synthetic.facts import acronyms
from tests import grading_sheets


def test_an_acronym_against_its_expansion_keeps_the_whole_expansion():
    answers = grading_sheets.answers("round59/heldout", "maxima/maxima_257-01-01")
    assert answers["What does GPL stand for?"] == "General Public License"


def test_an_acronym_after_a_space_keeps_its_expansion():
    text = "Staff take paid time off (PTO) in days."
    [(question, start, end, _)] = acronyms(text)
    assert (question, text[start:end]) == ("What does PTO stand for?", "paid time off")
