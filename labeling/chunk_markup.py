"""Chunk text as its author wrote it, made safe: a small markdown subset for Streamlit, with
marked spans (query terms, an answer) on a coloured background.

Conventions
- The subset, read line by line: fenced code blocks (```` ``` ```` or ``~~~``) keep their
  layout; pipe tables (a header row, a ``---`` row, body rows) become tables; lines starting
  with ``-``, ``*``, ``+`` or ``1.`` / ``1)`` become (nested) lists; ``#`` headings become bold
  lines; ``---`` alone is a rule; every other line is text, its line breaks kept. Inside those
  blocks all text is shown literally (``labeling.markdown``): no inline emphasis, link, image,
  HTML tag, formula or directive forms, and no address or URL becomes a link.
- A ``Mark`` is a character range of the *original* text (end exclusive) and a Streamlit
  background colour; marks are cut at line and cell ends and ignored inside code blocks.
- Query terms (``query_terms``) are the query's words, lowercased, without common function
  words and one-letter words. A word of the text is marked whole, with its inner hyphens,
  apostrophes, dots and underscores (``e-mail``, ``don't``, ``1.5``), when one of its parts
  equals a term or extends it by at most three letters (``holiday`` marks ``holidays``); words
  marked next to each other, with only spaces between, form one mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labeling.markdown import WORD_JOINER, autolink_breaks, escape_characters

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from get got how i in is it its many much my of "
    "on or our the their this to was we what when where which who why will with you your".split()
)
TERM_COLOR = "orange"
ANSWER_COLOR = "green"
SNIPPET_CHARS = 240

_PART = re.compile(r"[^\W_]+")
_WORD = re.compile(r"[^\W_]+(?:[-'’._][^\W_]+)*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(\S.*)$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_+#.-]{1,20}$")


@dataclass(frozen=True)
class Mark:
    """Characters ``start`` to ``end`` (exclusive) of a text, shown on a ``color`` background
    (a Streamlit colour name: red, orange, yellow, green, blue, violet, gray)."""

    start: int
    end: int
    color: str = TERM_COLOR


# ---------------------------------------------------------------------------------------------
# Marks


def words(text: str) -> list[str]:
    """The words of ``text`` (runs of letters and digits), lowercased, in order, each once."""
    return list(dict.fromkeys(w.lower() for w in _PART.findall(text or "")))


def query_terms(query: str) -> list[str]:
    """The query's words worth marking or searching for, lowercased, in order, each once."""
    return [w for w in words(query) if w not in STOPWORDS and len(w) > 1]


def _term_pattern(terms: Sequence[str]) -> re.Pattern[str]:
    """Matches a lowercased word part that equals a term or extends one of more than two
    letters by at most three letters."""
    longer = [re.escape(t) for t in terms if len(t) > 2]
    exact = [re.escape(t) for t in terms]
    alternatives = [f"(?:{'|'.join(exact)})"]
    if longer:
        alternatives.append(f"(?:{'|'.join(longer)})[^\\W_]{{1,3}}")
    return re.compile("|".join(alternatives))


def term_marks(text: str, query: str, color: str = TERM_COLOR) -> list[Mark]:
    """Marks of the query's terms in ``text`` (see the module conventions)."""
    terms = query_terms(query)
    marks: list[Mark] = []
    if not terms:
        return marks
    hits = _term_pattern(terms).fullmatch
    for word in _WORD.finditer(text or ""):
        if not any(hits(part.lower()) for part in _PART.findall(word.group())):
            continue
        if marks and text[marks[-1].end:word.start()].strip(" \t") == "" \
                and "\n" not in text[marks[-1].end:word.start()]:
            marks[-1] = Mark(marks[-1].start, word.end(), color)
        else:
            marks.append(Mark(word.start(), word.end(), color))
    return marks


def answer_marks(
    text: str, answer: str, start: int | None = None, end: int | None = None,
    color: str = ANSWER_COLOR,
) -> list[Mark]:
    """The mark of an answer span: ``start``/``end`` when they are a range of ``text``, else the
    first place ``answer`` occurs (ignoring case); no mark when neither is found."""
    text = text or ""
    if start is not None and end is not None and 0 <= start < end <= len(text):
        return [Mark(int(start), int(end), color)]
    needle = (answer or "").strip()
    if not needle:
        return []
    found = text.lower().find(needle.lower())
    return [] if found < 0 else [Mark(found, found + len(needle), color)]


# ---------------------------------------------------------------------------------------------
# Inline text


def _clip(marks: Iterable[Mark], start: int, end: int) -> list[Mark]:
    clipped = [Mark(max(m.start, start), min(m.end, end), m.color) for m in marks]
    return sorted((m for m in clipped if m.start < m.end), key=lambda m: m.start)


def _escaped(text: str, start: int, end: int, breaks: set[int]) -> str:
    """``text[start:end]`` shown literally, with the word joiners of ``breaks`` (positions of
    ``text``) that fall inside."""
    pieces, position = [], start
    for cut in sorted(b for b in breaks if start <= b < end):
        pieces.append(escape_characters(text[position:cut]))
        pieces.append(WORD_JOINER)
        position = cut
    pieces.append(escape_characters(text[position:end]))
    return "".join(pieces)


def inline(text: str, start: int, end: int, marks: Sequence[Mark] = ()) -> str:
    """``text[start:end]`` (no line break inside) as literal markdown with its marks."""
    breaks = {start + b for b in autolink_breaks(text[start:end])}
    out, position = [], start
    for mark in _clip(marks, start, end):
        if mark.start < position:
            continue  # overlapping marks: the earlier one wins
        out.append(_escaped(text, position, mark.start, breaks))
        out.append(f":{mark.color}-background[{_escaped(text, mark.start, mark.end, breaks)}]")
        position = mark.end
    out.append(_escaped(text, position, end, breaks))
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Blocks


@dataclass(frozen=True)
class _Line:
    start: int  # offset of the line's first character in the text
    end: int  # offset after its last character (line break excluded)
    body: str


def _lines(text: str) -> list[_Line]:
    lines = []
    for match in _LINE.finditer(text):
        if match.start() == len(text) and lines:
            break
        body = match.group().rstrip("\r\n")
        lines.append(_Line(match.start(), match.start() + len(body), body))
        if match.end() == len(text):
            break
    return lines


def _text_line(text: str, line: _Line, marks: Sequence[Mark]) -> str:
    """A line of text: its leading blanks as no-break spaces (never an indented code block)."""
    stripped = line.body.lstrip(" \t")
    indent = len(line.body) - len(stripped)
    return "\u00a0" * indent + inline(text, line.start + indent, line.end, marks)


def _fence(lines: list[_Line], i: int) -> tuple[str, int]:
    """A fenced code block from line ``i``: its markdown and the index after it."""
    opening = _FENCE.match(lines[i].body)
    indent, fence, language = len(opening.group(1)), opening.group(2), opening.group(3)
    body, j = [], i + 1
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    while j < len(lines) and not closing.match(lines[j].body):
        raw = lines[j].body
        body.append(raw[min(indent, len(raw) - len(raw.lstrip(" "))):])
        j += 1
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(body))), default=0)
    ticks = "`" * max(3, longest + 1)
    info = language if _LANGUAGE.match(language or "") else ""
    return "\n".join([ticks + info, *body, ticks]), min(j + 1, len(lines))


def _cells(text: str, line: _Line) -> list[tuple[int, int]]:
    """The (start, end) text offsets of a table row's cells, outer pipes dropped, blanks
    trimmed."""
    body = line.body
    left = len(body) - len(body.lstrip(" \t"))
    right = len(body.rstrip(" \t"))
    if body[left:left + 1] == "|":
        left += 1
    if right > left and body[right - 1] == "|" and (right < 2 or body[right - 2] != "\\"):
        right -= 1
    cuts = [left, *(m.start() for m in _CELL_SPLIT.finditer(body, left, right)), right]
    cells = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        a = a if a == left else a + 1
        segment = body[a:b]
        lead = len(segment) - len(segment.lstrip(" \t"))
        cells.append((line.start + a + lead, line.start + a + len(segment.rstrip(" \t"))))
    return cells


def _is_table(lines: list[_Line], i: int, text: str) -> bool:
    if i + 1 >= len(lines) or "|" not in lines[i].body or "|" not in lines[i + 1].body:
        return False
    if not _TABLE_RULE.match(lines[i + 1].body):
        return False
    return len(_cells(text, lines[i])) == len(_cells(text, lines[i + 1]))


def _alignment(text: str, cell: tuple[int, int]) -> str:
    rule = text[cell[0]:cell[1]].strip()
    left, right = rule.startswith(":"), rule.endswith(":")
    return {(True, True): ":---:", (True, False): ":---", (False, True): "---:"}.get(
        (left, right), "---")


def _table(text: str, lines: list[_Line], i: int, marks: Sequence[Mark]) -> tuple[str, int]:
    header = _cells(text, lines[i])
    width = len(header)
    rows = [header]
    j = i + 2
    while j < len(lines) and lines[j].body.strip() and "|" in lines[j].body:
        rows.append(_cells(text, lines[j]))
        j += 1

    def row_markdown(cells: list[tuple[int, int]]) -> str:
        shown = [inline(text, a, b, marks) for a, b in cells]
        if len(shown) > width:  # cells beyond the header's: kept, in the last column
            shown = [*shown[:width - 1], " \\| ".join(shown[width - 1:])]
        shown += [""] * (width - len(shown))
        return "| " + " | ".join(s or " " for s in shown) + " |"

    rule = "| " + " | ".join(_alignment(text, c) for c in _cells(text, lines[i + 1])) + " |"
    out = [row_markdown(rows[0]), rule, *(row_markdown(r) for r in rows[1:])]
    return "\n".join(out), j


def _list(text: str, lines: list[_Line], i: int, marks: Sequence[Mark]) -> tuple[str, int]:
    """A list from line ``i``: nested by indentation, continuation lines kept as line breaks."""
    out: list[str] = []
    stack: list[tuple[int, int]] = []  # (indent in the text, content column in the output)
    j = i
    while j < len(lines):
        line = lines[j]
        item = _ITEM.match(line.body)
        if item and not _RULE.match(line.body):
            indent = len(item.group(1).expandtabs(4))
            while stack and indent < stack[-1][0]:
                stack.pop()
            if stack and indent == stack[-1][0]:
                stack.pop()
            column = stack[-1][1] if stack else 0
            marker = "-" if item.group(2) in "-*+" else item.group(2)[:-1] + "."
            stack.append((indent, column + len(marker) + 1))
            content_start = line.start + item.start(3)
            out.append(" " * column + marker + " " + inline(text, content_start, line.end, marks))
        elif stack and line.body.strip() and line.body[:1] in " \t":
            stripped = line.body.lstrip(" \t")
            start = line.end - len(stripped)
            out[-1] += "  \n" + " " * stack[-1][1] + inline(text, start, line.end, marks)
        elif not line.body.strip() and j + 1 < len(lines) and _ITEM.match(lines[j + 1].body):
            pass  # a blank line between items: the list goes on
        else:
            break
        j += 1
    return "\n".join(out), j


def _paragraph(text: str, lines: list[_Line], i: int, marks: Sequence[Mark]) -> tuple[str, int]:
    out, j = [], i
    while j < len(lines) and lines[j].body.strip() and (j == i or not _block_start(text, lines, j)):
        out.append(_text_line(text, lines[j], marks))
        j += 1
    return "  \n".join(out), j


def _block_start(text: str, lines: list[_Line], i: int) -> bool:
    body = lines[i].body
    return bool(_FENCE.match(body) or _HEADING.match(body) or _RULE.match(body)
                or _ITEM.match(body) or _is_table(lines, i, text))


def render(text: str | None, marks: Sequence[Mark] = ()) -> str:
    """``text`` as Streamlit markdown in the safe subset (module conventions), with ``marks``."""
    text = text or ""
    lines = _lines(text)
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.body.strip():
            i += 1
        elif _FENCE.match(line.body):
            block, i = _fence(lines, i)
            blocks.append(block)
        elif _is_table(lines, i, text):
            block, i = _table(text, lines, i, marks)
            blocks.append(block)
        elif heading := _HEADING.match(line.body):
            start = line.start + heading.start(2)
            blocks.append(f"**{inline(text, start, line.start + heading.end(2), marks)}**")
            i += 1
        elif _RULE.match(line.body):
            blocks.append("---")
            i += 1
        elif _ITEM.match(line.body):
            block, i = _list(text, lines, i, marks)
            blocks.append(block)
        else:
            block, i = _paragraph(text, lines, i, marks)
            blocks.append(block)
    return "\n\n".join(blocks)


def render_terms(text: str | None, query: str, color: str = TERM_COLOR) -> str:
    """``render`` with the query's terms marked."""
    return render(text, term_marks(text or "", query, color))


# ---------------------------------------------------------------------------------------------
# Snippets


def snippet(text: str | None, marks: Sequence[Mark] = (), width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``text`` around its first mark (its start when none), on
    one line, as literal markdown with the marks inside; ``…`` where text was cut."""
    text = text or ""
    first = min((m.start for m in marks), default=0)
    start = max(0, first - width // 4)
    if start:
        space = text.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and start - space < 30 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    lines = [m.span() for m in re.finditer(r"[^\r\n]+", text[start:end])]
    shown = " ".join(inline(text, start + a, start + b, marks) for a, b in lines)
    return ("…" if start else "") + shown + ("…" if end < len(text) else "")
