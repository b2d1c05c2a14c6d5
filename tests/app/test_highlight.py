"""Query terms highlighted in a chunk (pages._highlight): the text kept whole, the markup safe."""

from __future__ import annotations

from pages import _highlight


def test_highlight_keeps_text_and_marks_terms():
    text = "Holidays: carry over 5 days. The holiday year"
    segments = _highlight.highlight_segments(text, "How many holiday days?")
    assert "".join(s for s, _ in segments) == text
    assert [s for s, hit in segments if hit] == ["Holidays", "days", "holiday"]


def test_highlighted_markdown_escapes_the_text_around_and_inside_the_marks():
    text = "[Leave](http://x) *days* <b>off</b>"
    shown = _highlight.highlighted_markdown(text, "leave days", color="blue")
    assert shown.count(":blue-background[") == 2
    assert ":blue-background[Leave]" in shown and ":blue-background[days]" in shown
    assert "\\[" in shown and "\\*" in shown and "<b>" not in shown and "&lt;b&gt;" in shown
