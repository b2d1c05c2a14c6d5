"""Where a chunk's text lies in its document, tolerant of whitespace normalisation.

A splitter may strip a chunk, collapse runs of spaces or turn line breaks into spaces. So the
search runs on both texts *normalised*: every run of whitespace (``str.isspace``) becomes one
space and the ends are stripped. A match is mapped back to the document's own offsets, so the
span is ``text[start:end]`` of the document as stored (Python string indices, end exclusive),
starting at the chunk's first non-space character and ending after its last.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

_WORD = re.compile(r"\S+")


def normalise(text: str) -> str:
    """``text`` with each run of whitespace turned into one space, ends stripped."""
    return " ".join(_WORD.findall(text))


class DocumentText:
    """A document's text with its normalised form, built once, to locate many chunks in it."""

    def __init__(self, text: str):
        self.text = text
        words = list(_WORD.finditer(text))
        self._original = [m.start() for m in words]  # where each word starts in ``text``
        self._normal = []  # where each word starts in ``normal``
        position = 0
        for m in words:
            self._normal.append(position)
            position += m.end() - m.start() + 1
        self.normal = " ".join(m.group() for m in words)

    def _original_offset(self, normal_offset: int) -> int:
        """The offset in ``text`` of the non-space character at ``normal_offset``."""
        word = bisect_right(self._normal, normal_offset) - 1
        return self._original[word] + normal_offset - self._normal[word]

    def locate(self, chunk_text: str, after: int = 0) -> tuple[int, int] | None:
        """(start, end) of ``chunk_text`` in the document, or None when it is not there (or has
        no text). The first match at or after document offset ``after`` wins, else the first
        match anywhere (chunks of one document usually come in order)."""
        needle = normalise(chunk_text)
        if not needle:
            return None
        word = bisect_left(self._original, after)  # the first word starting at or after it
        found = self.normal.find(needle, self._normal[word] if word < len(self._normal) else 0)
        if found < 0:
            found = self.normal.find(needle)
        if found < 0:
            return None
        return self._original_offset(found), self._original_offset(found + len(needle) - 1) + 1

    def matches(self, chunk_text: str, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` is ``chunk_text`` (exactly, or once normalised)."""
        if not 0 <= start <= end <= len(self.text):
            return False
        piece = self.text[start:end]
        return piece == chunk_text or normalise(piece) == normalise(chunk_text)
