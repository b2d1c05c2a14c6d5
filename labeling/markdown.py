"""User text (queries, chunks, notes, names) made safe for markdown.

One rule for Streamlit's ``st.markdown`` / captions / messages and for exported Markdown files:
every ASCII punctuation character is backslash-escaped, which CommonMark defines as that
character taken literally, so no link, emphasis, heading, list, table cell, code span, formula
(``$x$``), emoji code (``:smile:``) or directive (``:red[...]``) can form; ``<`` and ``>``
become ``&lt;`` and ``&gt;`` so that no HTML tag can form even where a renderer passes HTML
through.

Escapes do not stop GitHub's extended autolinks: Streamlit finds ``http://``, ``https://``,
``www.`` and ``name@host.tld`` in the text *after* escapes are resolved and makes them links. So
an invisible WORD JOINER (U+2060) goes between ``https:`` and ``//``, between ``www`` and ``.``
and before an ``@`` that follows a word: the text reads and wraps the same, and no link forms.

Plotly charts have a rule of their own: every text of a chart (titles, tick labels, legend
entries, hover labels) may carry a few HTML tags (``<a href>``, ``<b>``, ``<br>``, ...), and
entities are decoded, so ``escape_chart_text`` writes ``& < >`` as entities and nothing else.
"""

from __future__ import annotations

import re

import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

# ASCII punctuation but < and >, which are written as entities instead.
_PUNCTUATION = re.compile(r"([!-/:;=?@\[-`{-~])")
_ANGLES = str.maketrans({"<": "&lt;", ">": "&gt;"})
_CHART_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
WORD_JOINER = "\u2060"
# Where GitHub's extended autolinks start: a scheme's "//", "www." and the "@" of an address.
_AUTOLINK_STARTS = re.compile(r"(?i)(?<=https:)(?=//)|(?<=http:)(?=//)|(?<=www)(?=\.)|"
                              r"(?<=[-.\w+])(?=@)")


def _escape_line(line: str) -> str:
    unlinked = _AUTOLINK_STARTS.sub(WORD_JOINER, line)
    return escape_characters(unlinked)


def escape_characters(text: str) -> str:
    """``text`` with every ASCII punctuation character escaped and ``<``/``>`` as entities, and
    nothing else: no word joiners (``autolink_breaks`` says where a caller cutting a line into
    pieces must put them)."""
    return _PUNCTUATION.sub(r"\\\1", text).translate(_ANGLES)


def autolink_breaks(line: str) -> list[int]:
    """Positions in ``line`` before which ``escape_markdown`` puts a word joiner so that no
    autolink forms (for callers that escape a line piece by piece)."""
    return [match.start() for match in _AUTOLINK_STARTS.finditer(line)]


def escape_markdown(text: object) -> str:
    """``text`` as markdown that shows it literally, line breaks kept as hard breaks.

    Leading spaces become no-break spaces, so an indented line never turns into a code block.
    """
    lines = []
    raw = "" if text is None else str(text)
    for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.lstrip(" \t")
        indent = "\u00a0" * (len(line) - len(stripped))
        lines.append(indent + _escape_line(stripped))
    return "  \n".join(lines)


def escape_inline(text: object) -> str:
    """``text`` on one line (whitespace runs folded to a space), for messages and table cells."""
    return _escape_line(" ".join(("" if text is None else str(text)).split()))


def escape_chart_text(text: object) -> str:
    """``text`` for a Plotly chart (title, axis, tick, legend or hover text), shown literally."""
    return ("" if text is None else str(text)).translate(_CHART_ENTITIES)


def escape_chart_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` for a Plotly chart: every text cell through ``escape_chart_text``
    (numbers and booleans unchanged, missing values stay missing)."""
    out = frame.copy()
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if not (is_numeric_dtype(column.dtype) or is_bool_dtype(column.dtype)):
            out.isetitem(position, column.map(
                lambda v: escape_chart_text(v) if isinstance(v, str) else v))
    return out
