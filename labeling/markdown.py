"""User text (queries, chunks, notes, names) made safe for markdown.

One rule for Streamlit's ``st.markdown`` / captions / messages and for exported Markdown files:
every ASCII punctuation character is backslash-escaped, which CommonMark defines as that
character taken literally, so no link, emphasis, heading, list, table cell, code span, formula
(``$x$``), emoji code (``:smile:``) or directive (``:red[...]``) can form; ``<`` and ``>``
become ``&lt;`` and ``&gt;`` so that no HTML tag can form even where a renderer passes HTML
through.
"""

from __future__ import annotations

import re

# ASCII punctuation but < and >, which are written as entities instead.
_PUNCTUATION = re.compile(r"([!-/:;=?@\[-`{-~])")
_ANGLES = str.maketrans({"<": "&lt;", ">": "&gt;"})


def _escape_line(line: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", line).translate(_ANGLES)


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
