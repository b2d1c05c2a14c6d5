"""User text shown through markdown stays literal text."""

from __future__ import annotations

import markdown_it
import pytest

from labeling.markdown import WORD_JOINER, escape_inline, escape_markdown
from tests.markup import markup_in, shown

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](http://evil.example) **bold** _it_ `code` ~~gone~~",
    "$x^2$ :smile: :red[alarm] # heading",
    "1. item\n- item\n> quote\n    indented code",
    "a | b | c\n---|---",
    "&lt;b&gt; &amp; \\*",
    "https://evil.example/a www.evil.example mail me@evil.example (HTTP://EVIL.EXAMPLE)",
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
    assert "".join(t.content for t in tokens).replace(WORD_JOINER, "") == " ".join(text.split())
    rendered = md.render(escape_markdown(text))
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "<em>" not in rendered and "<strong>" not in rendered and "<code>" not in rendered
    assert "<h1>" not in rendered and "<li>" not in rendered and "<pre>" not in rendered


@pytest.mark.parametrize("text", HOSTILE)
def test_streamlit_would_make_no_link_of_it(text):
    # Streamlit also links bare URLs and addresses found in the text after escapes resolve.
    assert markup_in(escape_inline(text)) == []
    assert markup_in(escape_markdown(text)) == []
    assert shown(escape_inline(text)) == " ".join(text.split())


def test_the_autolink_check_sees_bare_links():
    # the check itself: unescaped, these are links
    assert markup_in("go to https://evil.example/a") == ["autolink: https://evil.example"]
    assert markup_in("www.evil.example and me@evil.example") == [
        "autolink: www.evil.example", "autolink: me@evil.example"]
    assert markup_in("R@10 and https://localhost") == []
