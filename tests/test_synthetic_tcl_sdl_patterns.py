"""The offline generator against the rejects of issue 32's rounds 38 and 39, Tcl's command
reference and SDL2's Doxygen reference (``benchmarks/synthetic_grading/round38/heldout`` and
``round39/heldout``, graded blind by independent graders; development data since), passages
read from the committed sheets: a how-to answered by a pointer at the entry's own subject ("Use
this function to free an SDL_RWops ..." answered "this function"), and Tcl's fully qualified
``::http::geturl`` glued to the word before it ("return value of::http::geturl").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    ("round39/heldout", "sdl/SDL_rwops.h-11-01",
     "How do I free an SDL_RWops structure allocated by SDL_AllocRW()?"),
    ("round39/heldout", "sdl/SDL_rwops.h-20-01", "How do I read a byte from an SDL_RWops?"),
    ("round38/heldout", "tcl/tcltest-05", "How do I delete files created by makeFile?"),
    ("round38/heldout", "tcl/http-22", "How do I create an easy-to-use array variable?"),
    ("round27/heldout", "sqlite/clear_bindings-01-01",
     "How do I reset all host parameters to NULL?"),
    ("round38/heldout", "tcl/http-03", "return value of::http::geturl"),
])
def test_a_pointer_for_an_answer_or_a_glued_scope_is_not_asked(folder: str, chunk_id: str,
                                                               rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)


def test_an_answer_that_names_its_function_is_still_given():
    asked = grading_sheets.questions("round39/heldout", "sdl/SDL_mouse.h-22-01")
    assert "What does SDL_GetMouseState() return?" in asked
    assert not screens.points_away("the SDL_RWops structure to free")
    assert screens.points_away("this function") and screens.points_away("That command")
