"""Chunk text rendered from the safe markdown subset (labeling.chunk_markup): tables, lists and code
blocks keep their shape, nothing becomes HTML or a link, marks cover whole words.

Markdown is read back with markdown-it-py (CommonMark plus tables, as Streamlit's renderer reads
it); ``tests.markup`` finds links, images, raw HTML and GitHub's bare autolinks."""

from __future__ import annotations

from pathlib import Path

import markdown_it
import pytest

from labeling import chunk_markup as cm
from tests import hostile
from tests.markup import markup_in

README = Path(__file__).parent / "data" / "charset_normalizer_readme.md"
GFM = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")


def tokens(markdown: str) -> list[str]:
    return [t.type for t in GFM.parse(markdown)]


def rendered_text(markdown: str) -> str:
    """The words a reader sees (inline text of every block, code included), spaces folded; for
    markdown without marks (a mark's directive would show as text here)."""
    parts = []
    for token in GFM.parse(markdown):
        if token.type in ("fence", "code_block"):
            parts.append(token.content)
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
    return " ".join(" ".join(parts).replace(cm.WORD_JOINER, "").split())


def test_a_markdown_table_renders_as_a_table_with_its_cells():
    text = "Plans:\n\n| Plan | Days |\n|:---|---:|\n| Starter | 20 |\n| Pro | 25 |\n"
    markdown = cm.render(text)
    kinds = tokens(markdown)
    assert kinds.count("tr_open") == 3 and "table_open" in kinds
    cells = [t.children[0].content for t in GFM.parse(markdown)
             if t.type == "inline" and t.map and t.map[0] >= 2]
    assert cells == ["Plan", "Days", "Starter", "20", "Pro", "25"]
    assert "| :--- | ---: |" in markdown  # alignment kept


def test_lists_nest_and_code_keeps_its_layout():
    text = ("Steps:\n- open the portal\n  - choose *Leave*\n- submit\n1. first\n2. second\n\n"
            "```python\ndef f(x):\n    return '<b>' | x\n```\n")
    markdown = cm.render(text)
    kinds = tokens(markdown)
    assert kinds.count("bullet_list_open") == 2 and kinds.count("ordered_list_open") == 1
    fence = next(t for t in GFM.parse(markdown) if t.type == "fence")
    assert fence.content == "def f(x):\n    return '<b>' | x\n" and fence.info == "python"
    assert "*Leave*" in rendered_text(markdown)  # emphasis stays literal text


def test_a_fence_inside_code_cannot_close_the_block():
    text = "````\nbefore\n```\n<img src=x onerror=alert(1)>\n````\nafter"
    markdown = cm.render(text)
    fence = next(t for t in GFM.parse(markdown) if t.type == "fence")
    assert "<img src=x onerror=alert(1)>" in fence.content and "```" in fence.content
    assert not markup_in(markdown)


@pytest.mark.parametrize("evil", [
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "[x](javascript:alert(1))",
    "![i](http://evil.example/i.png)", "mail hr@example.com now", "see https://evil.example",
    "www.evil.example", ":red[colour] :material/home: $x^2$", "<https://evil.example>",
])
def test_raw_html_links_and_directives_stay_text(evil):
    for text in (evil, f"| a | b |\n|---|---|\n| {evil} | x |", f"- {evil}", f"# {evil}"):
        markdown = cm.render(text)
        assert not markup_in(markdown), (text, markdown)
        assert "<" not in markdown


def test_every_hostile_string_shows_as_text():
    for value in vars(hostile).values():
        if isinstance(value, str) and value:
            markdown = cm.render_terms(value, "policy leave")
            assert not markup_in(markdown), value
            assert "<" not in markdown


def test_real_world_markdown_keeps_its_words_and_makes_no_markup():
    text = README.read_text(encoding="utf-8")
    marked = cm.render_terms(text, "charset detection encoding")
    assert not markup_in(marked)
    assert ":orange-background[Charset Detection]" in marked
    markdown = cm.render(text)
    assert not markup_in(markdown)
    kinds = tokens(markdown)
    assert kinds.count("table_open") == 3 and "fence" in kinds
    assert kinds.count("bullet_list_open") >= 2
    shown = rendered_text(markdown)
    for words in ("Charset Detection, for Everyone", "pip install charset-normalizer -U",
                  '"encoding": "cp1252",', "Full-payload candidate validation",
                  "Discard all charset encoding table", '<img src="https://i.imgflip.com'):
        assert words in shown, words


def test_every_character_of_plain_text_is_kept():
    text = ("Line one: 5 days (not 6) * rate_1 = 2.5%!\n  indented `tick` #tag > quote\n"
            "a|b \\ back\u00a0slash ~tilde~ {brace} [x] & <y>")
    assert rendered_text(cm.render(text)).replace("\u00a0", " ") == " ".join(
        text.replace("\u00a0", " ").split())


def test_term_marks_take_whole_words_with_their_inner_punctuation():
    text = "Send an e-mail: don't wait. Holidays and 1.5 days, U.S. annual leave."
    marks = cm.term_marks(text, "mail holiday day annual leave")
    assert [text[m.start:m.end] for m in marks] == ["e-mail", "Holidays", "days", "annual leave"]
    markdown = cm.render(text, marks)
    assert ":orange-background[e\\-mail]\\:" in markdown  # the colon stays outside
    assert ":orange-background[days]\\," in markdown


def test_marks_of_words_split_by_punctuation_stay_apart():
    marks = cm.term_marks("leave, days", "leave days")
    assert len(marks) == 2


def test_answer_marks_use_offsets_then_the_answer_text():
    text = "Annual leave: 26 days for full-time staff."
    assert cm.answer_marks(text, "26 days", 14, 21) == [cm.Mark(14, 21, "green")]
    assert cm.answer_marks(text, "26 DAYS") == [cm.Mark(14, 21, "green")]
    assert cm.answer_marks(text, "missing") == []
    assert cm.answer_marks(text, "26 days", 30, 99) == [cm.Mark(14, 21, "green")]  # bad offsets
    markdown = cm.render(text, cm.answer_marks(text, "26 days", 14, 21))
    assert ":green-background[26 days]" in markdown


def test_marks_inside_table_cells_and_across_lines_are_cut_there():
    text = "| Plan | Days |\n|---|---|\n| Starter | 20 days |\nnext line"
    start = text.index("20 days")
    markdown = cm.render(text, [cm.Mark(start, len(text), "green")])
    assert ":green-background[20 days]" in markdown
    assert ":green-background[next line]" in markdown
    assert "table_open" in tokens(markdown)


def test_snippet_centres_on_the_first_mark_and_says_where_it_cut():
    text = " ".join(f"word{i}" for i in range(200)) + " leave policy " + "tail " * 100
    snip = cm.snippet(text, cm.term_marks(text, "leave"), width=120)
    assert snip.startswith("…") and snip.endswith("…")
    assert ":orange-background[leave]" in snip
    assert len(rendered_text(cm.snippet(text, (), width=120))) < 130
    assert not markup_in(cm.snippet("a <b>x</b> hr@example.com", ()))
