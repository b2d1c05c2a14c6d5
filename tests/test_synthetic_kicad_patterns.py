"""The offline generator against the rejects of issue 32's round-51 held-out sample, KiCad 6's
manuals (``benchmarks/synthetic_grading/round51/heldout``, graded blind by an independent grader;
development data since), and the same pattern in earlier held-out samples, passages read from
the committed sheets:

- a how-to answered by a control the manual shows only as a picture ("click the icon", "click
  on the icon to show the dialog below": "not answerable", the icon is an image the text does
  not carry), neither named nor placed; a placed one ("click the icon in the top toolbar") is
  asked;
- "either" with no "or" after it ("How do I edit either symbol library table?", "What does
  std::unexpected call in either case?"): one of two things the text named before.
"""

from __future__ import annotations

import pytest

from labeling.synthetic.screens import bad_answer
from tests import grading_sheets

KICAD = "round51/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("kicad/eeschema-111-01", "How do I save the modified symbol in the current library?"),
    ("kicad/eeschema-115-01", "How do I change the symbol properties?"),
    ("kicad/eeschema-118-01", "How do I edit the normal representation?"),
])
def test_a_control_shown_only_as_a_picture_is_no_answer(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(KICAD, chunk_id)


def test_a_placed_control_is_an_answer():
    assert bad_answer("How do I open Board Setup?", "click the icon")
    assert not bad_answer("How do I open Board Setup?", "click the icon in the top toolbar")


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (KICAD, "kicad/eeschema-94-01", "How do I edit either symbol library table?"),
    (KICAD, "kicad/pcbnew-92-01", "How do I edit either footprint library table?"),
    ("round40/heldout", "cpp/error/unexpected-00-01",
     "What does std::unexpected call in either case?"),
])
def test_either_without_or_points_back(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)
