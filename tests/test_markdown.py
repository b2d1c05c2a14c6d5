"""User text shown through markdown stays literal text."""

from __future__ import annotations

import markdown_it
import pytest

from labeling.markdown import escape_inline, escape_markdown

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](http://evil.example) **bold** _it_ `code` ~~gone~~",
    "$x^2$ :smile: :red[alarm] # heading",
    "1. item\n- item\n> quote\n    indented code",
    "a | b | c\n---|---",
    "&lt;b&gt; &amp; \\*",
    "",
]


def test_known_output():
    assert escape_inline("<b>*x*</b> [a](b)") == r"&lt;b&gt;\*x\*&lt;\/b&gt; \[a\]\(b\)"
    assert escape_markdown("one\n  two") == "one  \n\u00a0\u00a0two"
    assert escape_inline("  many\n  lines  ") == "many lines"
    assert escape_markdown(None) == "" and escape_inline(None) == ""


@pytest.mark.parametrize("text", HOSTILE)
def test_a_commonmark_renderer_shows_the_text_itself(text):
    # Rendering the escaped text must give back exactly the original characters, as text.
    md = markdown_it.MarkdownIt("commonmark", {"html": True})
    tokens = md.parseInline(escape_inline(text))[0].children if text.strip() else []
    assert [t.type for t in tokens if t.type != "text"] == []
    assert "".join(t.content for t in tokens) == " ".join(text.split())
    rendered = md.render(escape_markdown(text))
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "<em>" not in rendered and "<strong>" not in rendered and "<code>" not in rendered
    assert "<h1>" not in rendered and "<li>" not in rendered and "<pre>" not in rendered
