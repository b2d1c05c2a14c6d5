"""The offline generator against the rejects of issue 32's round-35 held-out sample, the gtk-doc
references of GTK 3, GDK 3, GLib, GIO and GObject (``benchmarks/synthetic_grading/round35/
heldout``, graded blind by an independent grader; development data since), passages read from
the committed sheet: a signal written with gtk-doc's scope operator and its owner left out
("the::backspace signal"), a "To <goal> use <function>" sentence without its comma read as one
long goal, and a parameter asked about without the function it belongs to.
"""

from __future__ import annotations

import pytest

from labeling.synthetic import screens
from tests import grading_sheets

GTKDOC = "round35/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("gtkdoc/gtk3/GtkTextView-108-01", "the::backspace signal"),
    ("gtkdoc/gtk3/GtkFlowBox-50-01", "the::activate-cursor-child signal"),
    ("gtkdoc/gtk3/GtkFlowBox-52-01", "What is the::move-cursor signal?"),
    ("gtkdoc/gtk3/GtkSwitch-13-01", "What is the::activate signal on GtkSwitch?"),
])
def test_a_signal_without_its_owner_is_not_asked(chunk_id: str, rejected: str):
    asked = grading_sheets.questions(GTKDOC, chunk_id)
    assert rejected not in asked
    assert not any("::" in q for q in asked), asked


@pytest.mark.parametrize("question", ["What does Zlib::GzipWriter#flush do?",
                                      "What does lists:keysort/2 do?", "Foo::Bar::baz method"])
def test_a_qualified_name_keeps_its_scope_operator(question: str):
    assert not screens.ARTEFACTS.search(question)


@pytest.mark.parametrize(("chunk_id", "rejected", "asked"), [
    ("gtkdoc/gtk3/GtkPageSetup-00-01",
     "How do I obtain a GtkPageSetup use gtk_page_setup_new() to get the defaults?",
     "How do I obtain a GtkPageSetup?"),
    ("gtkdoc/glib/glib-Keyed-Data-Lists-00-01",
     "How do I add data elements to a datalist use g_datalist_id_set_data()?",
     "How do I add data elements to a datalist?"),
])
def test_a_goal_ends_where_its_instruction_begins(chunk_id: str, rejected: str, asked: str):
    questions = grading_sheets.questions(GTKDOC, chunk_id)
    assert rejected not in questions and asked in questions, questions


def test_a_parameter_is_asked_with_its_function():
    asked = grading_sheets.questions(GTKDOC, "gtkdoc/gtk3/GtkMenu-10-01")
    assert "What is the activate_time parameter used for?" not in asked
    assert ("What is the activate_time parameter of gtk_menu_popup_for_device used for?"
            in asked), asked
