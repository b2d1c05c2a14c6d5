"""A chunk shown with the query's terms highlighted: markup for the Label and Judge pages.

The chunk and the query are user text: every piece goes through ``escape_markdown`` before it
is wrapped in Streamlit's ``:color-background[...]`` directive.
"""

from __future__ import annotations

import re

from labeling.markdown import escape_markdown

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from get got how i in is it its many much my of "
    "on or our the "
    "their this to was we what when where which who why will with you your".split()
)


def query_terms(query: str) -> list[str]:
    """The query's words worth highlighting: lowercased, no stopwords, no 1-letter words."""
    words = [w.lower() for w in _WORD.findall(query or "")]
    return list(dict.fromkeys(w for w in words if w not in _STOPWORDS and len(w) > 1))


def highlight_segments(text: str, query: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_query_term) segments; joined, the pieces are ``text``.

    A word matches a term when equal to it ignoring case, or when it extends the term by at
    most three letters (``holiday`` marks ``holidays``)."""
    terms = query_terms(query)
    segments: list[tuple[str, bool]] = []
    position = 0
    for match in _WORD.finditer(text or ""):
        word = match.group().lower()
        hit = any(word == t or (word.startswith(t) and len(word) - len(t) <= 3 and len(t) > 2)
                  for t in terms)
        if not hit:
            continue
        if match.start() > position:
            segments.append((text[position:match.start()], False))
        segments.append((match.group(), True))
        position = match.end()
    if position < len(text or ""):
        segments.append((text[position:], False))
    return segments


def highlighted_markdown(text: str, query: str, color: str = "orange") -> str:
    """``text`` as safe markdown (``escape_markdown``) with the query's terms on a ``color``
    background (Streamlit's ``:color-background[...]`` directive)."""
    parts = []
    for piece, hit in highlight_segments(text, query):
        escaped = escape_markdown(piece)
        parts.append(f":{color}-background[{escaped}]" if hit else escaped)
    return "".join(parts)
