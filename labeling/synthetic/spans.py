"""Answer spans that follow the text: trimmed of spaces and stray punctuation, never ending
inside brackets or quotes or on an abbreviation cut short ("e.g"), mapped to passage offsets."""

from __future__ import annotations

import re

from labeling.synthetic.passage import Prose

OPENERS = {"(": ")", "[": "]", "{": "}", "\u201c": "\u201d", "\u2018": "\u2019"}
CLOSERS = {v: k for k, v in OPENERS.items()}
# Words a span must not end on: it would stop in the middle of what they introduce.
OPEN_ENDINGS = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|cf|vs|such as|for example|for instance|like|including|namely|"
    r"and|or|but|of|the|a|an|to|in|on|with|by|from|as|that|which)\.?)$",
    re.I,
)


def tidy(text: str, a: int, b: int, limit: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """The span ``text[a:b]`` made whole: spaces and edge punctuation trimmed, a bracket or
    quote opened inside it closed within ``limit`` (default: the whole text) or cut off, a
    stray closing one cut off, a dangling last word ("e.g", "such as", "and") dropped.
    None when nothing is left."""
    lo, hi = limit or (0, len(text))
    for _ in range(4):  # each pass may expose another edge to trim
        a, b = _trim(text, a, b)
        if b <= a:
            return None
        b = _balance(text, a, b, hi)
        a, b = _trim(text, a, b)
        ending = OPEN_ENDINGS.search(text, a, b)
        if ending and ending.end() == b and ending.start() > a:
            b = ending.start()
            continue
        break
    a, b = _trim(text, a, b)
    if b <= a or not re.search(r"\w", text[a:b]) or a < lo:
        return None
    return a, b


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and (text[a].isspace() or text[a] in ",;:.\u2014" or (
        text[a] == "-" and not (a + 1 < b and text[a + 1].isalnum() or text[a + 1:a + 2] == "-")
    )):
        a += 1
    while b > a and (text[b - 1].isspace() or text[b - 1] in ",;:\u2014" or (
        text[b - 1] == "." and not re.search(r"\w\.\w+\.$|\.\.\.$", text[a:b])
    )):
        b -= 1
    return a, b


def _balance(text: str, a: int, b: int, hi: int) -> int:
    """The end of the span with every bracket and quote opened inside it closed."""
    stack: list[tuple[str, int]] = []
    k = a
    while k < b:
        c = text[k]
        if c in OPENERS:
            stack.append((OPENERS[c], k))
        elif c in CLOSERS:
            if stack and stack[-1][0] == c:
                stack.pop()
            else:
                return _trim(text, a, k)[1]  # a closer opened before the span: stop there
        elif c == '"':
            if stack and stack[-1][0] == '"':
                stack.pop()
            else:
                stack.append(('"', k))
        k += 1
    while stack:
        closer, start = stack[0]
        end = text.find(closer, b, hi)
        if end < 0 or end - b > 120:
            return _trim(text, a, start)[1]  # cannot close it: end before it opened
        b = end + 1
        return _balance(text, a, b, hi)
    return b


def passage_span(unit: Prose, a: int, b: int, limit: tuple[int, int] | None = None
                 ) -> tuple[int, int] | None:
    """``tidy`` in the prose's clean text, as passage offsets."""
    span = tidy(unit.clean, a, b, limit)
    if span is None:
        return None
    return unit.raw_span(*span)
