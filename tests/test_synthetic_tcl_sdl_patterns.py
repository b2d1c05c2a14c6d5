"""The offline generator against the rejects of issue 32's rounds 38 and 39, Tcl's command
reference and SDL2's Doxygen reference (``benchmarks/synthetic_grading/round38/heldout`` and
``round39/heldout``, graded blind by independent graders; development data since), passages
read from the committed sheets: a how-to answered by a pointer at the entry's own subject ("Use
this function to free an SDL_RWops ..." answered "this function"), and Tcl's fully qualified
``::http::geturl`` glued to the word before it ("return value of::http::geturl").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import labelled_lists, screens
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


# gtk-doc and Doxygen write "Returns:" with its text on the label's line, under a title whose last
# part is the C function: the return question those rounds' rules could not ask (round 39's
# rules found something in 24 of SDL2's 970 passages).
@pytest.mark.parametrize(("folder", "chunk_id", "question"), [
    ("round39/heldout", "sdl/SDL_rwops.h-20-01", "What does SDL_ReadU8() return?"),
    ("round39/heldout", "sdl/SDL_render.h-15-01", "What does SDL_GetNumRenderDrivers() return?"),
    ("round35/heldout", "gtkdoc/glib/glib-Arrays-23-01", "What does g_array_free() return?"),
    ("round35/heldout", "gtkdoc/glib/glib-Hash-Tables-25-01",
     "What does g_hash_table_get_values() return?"),
])
def test_an_inline_returns_label_is_asked_about_the_titles_function(folder: str, chunk_id: str,
                                                                    question: str):
    assert question in grading_sheets.questions(folder, chunk_id)


def test_the_answer_is_the_returns_text_to_its_paragraphs_end():
    text = ("Uint8 SDL_ReadU8 ( SDL_RWops * src)\n\nUse this function to read a byte.\n\n"
            "Returns: the byte read,\nor 0 on failure.\n\nSince: SDL 2.0.0.")
    [draft] = labelled_lists.from_labelled_lists(text, "SDL2 SDL_rwops.h: SDL_ReadU8()")
    assert draft.question == "What does SDL_ReadU8() return?"
    assert text[draft.span[0]:draft.span[1]] == "the byte read,\nor 0 on failure."
    assert labelled_lists.owner_of("Go bufio: NewWriter") is None  # no C function, no owner
