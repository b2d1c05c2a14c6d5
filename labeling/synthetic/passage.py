"""Reading a passage as a document: which lines are prose, which are code, tables, option lists,
headings and signatures, and the prose with its wrapped lines joined.

Only prose becomes questions. ``read_passage`` sorts the lines of a passage into blocks:

- ``heading``: a line of capitals alone (``DESCRIPTION``), a Markdown ``#`` heading or a reST
  underlined title;
- ``code``: interactive prompts (``>>>``, ``...``, ``$``, ``%``, a root ``#``), comment lines
  (``#``, ``//``, ``/*``), fenced blocks, lines dense with code symbols or starting with code
  keywords, and indented lines after prose that ends with a colon (an example);
- ``table``: lines with box-drawing characters, ``|`` separators, tabs or wide column gaps;
- ``markup``: reST directives and field lists, roff requests, HTML-only lines;
- ``signature``: a function prototype or call form (``long strtol(const char *nptr, ...);``,
  ``heapq.nlargest(n, iterable, key=None)``): its name becomes the subject of the prose below;
- ``name``: a manual page's NAME line (``gzip, gunzip, zcat - compress or expand files``);
- ``term``: the label of a definition list (an option ``-k, --keep``, a key ``NAME=``, a
  variable ``MAX_MEMBERS (number)``, an error ``EINVAL``) whose description follows, indented
  or after a wide gap on the same line;
- ``prose``: the rest, list bullets stripped.

Each prose block becomes a ``Prose``: its ``clean`` text has wrapped lines joined (a
hyphenation break ``U+2010`` at a line end joins the word halves), runs of spaces collapsed and
inline markup (``code``, ``**bold**``, ``*em*``, links, roles, roff font escapes) stripped;
``origin[i]`` is the offset in the passage of ``clean[i]``, so a span of the clean text maps
back to character offsets of the passage (``raw_span``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from labeling.synthetic.lines import (
    BULLET,
    CODE_STATEMENT,
    FENCE,
    HYPHENATION,
    INLINE_MARKUP,
    KEY_TERM,
    LINK,
    MARKUP_LINE,
    NAME_LINE,
    OPTION,
    PROMPT,
    SIGNATURE,
    Line,
    heading_text,
    is_code_line,
    is_errno,
    is_sentence_like,
    is_table_line,
    is_term_label,
    lines_of,
    symbol_share,
    term_split,
)
from labeling.synthetic.text import sentence_bounds


@dataclass
class Block:
    """Lines of one kind. ``label`` is the term of a ``term`` block, the name of a
    ``signature`` or the text of a ``heading``."""

    kind: str
    lines: list[Line]
    label: str = ""

    @property
    def start(self) -> int:
        return self.lines[0].start

    @property
    def end(self) -> int:
        return self.lines[-1].end


@dataclass
class Prose:
    """Prose with its lines joined. ``origin[i]`` is the passage offset of ``clean[i]``.

    ``heading``: the heading in effect; ``term``: the label this prose describes (an option,
    a key); ``signature``: the nearest function name above, ``arguments`` its argument names;
    ``example``: the passage span of the first command of the code block that follows the
    prose, if one does."""

    clean: str
    origin: list[int]
    heading: str = ""
    term: str = ""
    signature: str = ""
    arguments: tuple[str, ...] = ()  # the argument names of that signature
    example: tuple[int, int] | None = None
    sentences: list[tuple[int, int]] = field(default_factory=list)
    term_span: tuple[int, int] | None = None  # passage offsets of the term's label
    signature_span: tuple[int, int] | None = None  # passage offsets of the signature's name
    first_of_term: bool = False  # the first prose of the term's description
    first_of_signature: bool = False  # the first prose after the signature
    owner: str = ""  # the function whose list this term belongs to ("f() can fail with:")

    def raw_span(self, a: int, b: int) -> tuple[int, int]:
        """Passage offsets of ``clean[a:b]`` (end exclusive)."""
        return self.origin[a], self.origin[b - 1] + 1


@dataclass
class NameLine:
    """``gzip, gunzip, zcat - compress or expand files``: names and summary (clean text) with
    the passage span of the summary."""

    names: list[str]
    summary: str
    span: tuple[int, int]
    names_span: tuple[int, int]


@dataclass
class Passage:
    """A passage read as a document (see the module docstring)."""

    text: str
    title: str
    blocks: list[Block]
    prose: list[Prose]
    name_line: NameLine | None
    terms: list[tuple[Block, Prose | None]]

    def sentence_at(self, offset: int) -> str:
        """The clean sentence containing passage offset ``offset`` ('' outside prose)."""
        for unit in self.prose:
            for a, b in unit.sentences:
                start, end = unit.raw_span(a, b)
                if start <= offset < end:
                    return unit.clean[a:b]
        return ""


# ---------------------------------------------------------------------------------------------
# Blocks


def _paragraphs(lines: list[Line | None]) -> list[list[Line]]:
    out: list[list[Line]] = []
    current: list[Line] = []
    for line in lines:
        if line is None:
            if current:
                out.append(current)
            current = []
        else:
            current.append(line)
    if current:
        out.append(current)
    return out


def read_blocks(text: str) -> list[Block]:
    """The passage's blocks in order (see the module docstring)."""
    paragraphs = _paragraphs(lines_of(text))
    blocks: list[Block] = []
    fenced = False
    base = min((para[0].indent for para in paragraphs), default=0)  # the prose baseline
    for p_index, para in enumerate(paragraphs):
        i = 0
        while i < len(para):
            line = para[i]
            nxt = para[i + 1] if i + 1 < len(para) else None
            if FENCE.match(line.text):
                fenced = not fenced
                _add(blocks, "code", line)
                i += 1
                continue
            if fenced:
                _add(blocks, "code", line)
                i += 1
                continue
            heading = heading_text(line.text, nxt, line.indent) if i == 0 else None
            if heading is not None:
                underlined = nxt is not None and re.fullmatch(r"([=\-~^*#])\1{2,}", nxt.text)
                blocks.append(Block("heading", [line], heading))
                i += 2 if underlined else 1
                continue
            if nxt is not None and nxt.indent > line.indent and len(line.text.split()) <= 5 \
                    and (not line.text.endswith((".", ",", ";", ":")) or line.text.endswith(
                        "...")) and i == 0 \
                    and not OPTION.match(line.text) and not KEY_TERM.match(line.text) \
                    and not is_code_line(line.text):
                blocks.append(Block("heading", [line], line.text))  # a run-in subheading
                i += 1
                continue
            kind = _line_kind(line, blocks, base, continuing=i > 0)
            previous = para[i - 1] if i else None
            if kind in ("term", "term_inline") and previous is not None \
                    and previous.indent == line.indent and blocks and blocks[-1].kind == "prose" \
                    and not previous.text.endswith((".", ":", "!", "?")):
                kind = "prose"  # the wrapped end of a sentence that happens to start "-x"
            if kind == "term" and not (nxt is not None and nxt.indent > line.indent) \
                    and not (nxt is None and _next_indented(paragraphs, p_index, line)):
                kind = "prose"
            if kind == "term":
                blocks.append(Block("term", [line], line.text))
            elif kind == "term_inline":
                label, _ = term_split(line.text) or (line.text, "")
                blocks.append(Block("term", [Line(line.start, line.start + len(label),
                                                  line.indent, label)], label))
                rest = line.text[len(label):]
                lead = len(rest) - len(rest.lstrip(" \t-\u2013\u2014"))
                offset = line.start + len(label) + lead
                blocks.append(Block("prose", [Line(offset, line.end, line.indent + len(label)
                                                   + lead, rest[lead:].strip())]))
            else:
                _add(blocks, kind, line, base=base, new=i == 0)
            i += 1
    return _mark_examples(blocks)


def _next_indented(paragraphs: list[list[Line]], index: int, line: Line) -> bool:
    """The next paragraph is indented deeper than ``line`` (a label, then a blank line)."""
    return index + 1 < len(paragraphs) and paragraphs[index + 1][0].indent > line.indent


def _line_kind(line: Line, blocks: list[Block], base: int, *, continuing: bool) -> str:
    text = line.text
    last = blocks[-1] if blocks else None
    if continuing and last is not None and last.kind == "prose" and len(text.split()) <= 3 \
            and symbol_share(text) < 0.4 and not PROMPT.match(text):
        return "prose"  # the end of a wrapped sentence: "trant)."
    if last is not None and last.kind == "code" and (continuing or line.indent > base) \
            and line.indent >= last.lines[0].indent and not (
                is_sentence_like(text) and text.endswith(".")):
        return "code"
    if MARKUP_LINE.match(text):
        return "markup"
    if is_table_line(text):
        return "table"
    if term_split(text):
        return "term_inline"
    if OPTION.match(text) and not re.match(r"^-\s", text) and is_term_label(text):
        return "term"
    if KEY_TERM.match(text) or (is_errno(text.split()[0]) and len(text.split()) <= 3):
        return "term"
    if SIGNATURE.match(text) and "(" in text and not is_sentence_like(
            text.split("(")[0] + " x") and not CODE_STATEMENT.match(text):
        return "signature"
    if is_code_line(text):
        return "code"
    if last is not None and last.kind == "prose" and last.lines[-1].text.endswith(":") \
            and line.indent > last.lines[0].indent and not is_sentence_like(text):
        return "code"
    return "prose"


def _add(blocks: list[Block], kind: str, line: Line, *, base: int = 0, new: bool = False
         ) -> None:
    """Append ``line`` to the last block when it continues it, else start a block."""
    last = blocks[-1] if blocks else None
    if kind == "prose" and BULLET.match(line.text):
        blocks.append(Block("prose", [line]))
        return
    if kind == "signature":
        match = SIGNATURE.match(line.text)
        blocks.append(Block("signature", [line], match.group("name") if match else ""))
        return
    continues = last is not None and last.kind == kind and not (new and kind == "prose"
                                                                and last.kind == "prose")
    if kind == "prose" and last is not None and last.kind == "prose" and not new:
        continues = True
    if continues:
        last.lines.append(line)
    else:
        blocks.append(Block(kind, [line]))


def _mark_examples(blocks: list[Block]) -> list[Block]:
    """Indented non-sentence lines right after prose ending with ':' are an example (code)."""
    for i in range(1, len(blocks)):
        block, before = blocks[i], blocks[i - 1]
        if block.kind == "prose" and before.kind == "prose" and before.lines[-1].text.endswith(
            ":"
        ) and block.lines[0].indent > before.lines[0].indent and not any(
            is_sentence_like(x.text) and x.text.endswith(".") for x in block.lines
        ):
            block.kind = "code"
    return blocks


# ---------------------------------------------------------------------------------------------
# Prose


def join_lines(text: str, lines: list[Line]) -> tuple[str, list[int]]:
    """The lines as one clean string and the passage offset of each of its characters."""
    chars: list[str] = []
    origin: list[int] = []
    for n, line in enumerate(lines):
        segment = text[line.start:line.end]
        skip = 0
        if n == 0:
            bullet = BULLET.match(segment)
            skip = bullet.end() if bullet else 0
        if chars:
            if chars[-1] == HYPHENATION:  # a word hyphenated at the line end
                chars.pop()
                origin.pop()
            elif not (chars[-1] == "-" and len(chars) > 1 and chars[-2].isalpha()
                      and segment[:1].islower()):
                chars.append(" ")
                origin.append(line.start - 1)
        keep = _unmarked(segment)
        for k in range(skip, len(segment)):
            if not keep[k]:
                continue
            c = segment[k]
            if c.isspace():
                if chars and chars[-1] == " ":
                    continue
                c = " "
            chars.append(c)
            origin.append(line.start + k)
    while chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    return "".join(chars), origin


def _unmarked(segment: str) -> list[bool]:
    """Which characters of ``segment`` are text (False: inline markup)."""
    keep = [True] * len(segment)
    for match in LINK.finditer(segment):
        keep[match.start()] = False  # "["
        for k in range(match.end(1), match.end()):
            keep[k] = False  # "](url)"
    for match in INLINE_MARKUP.finditer(segment):
        for k in range(match.start(), match.end()):
            keep[k] = False
    return keep


def argument_names(line: str) -> tuple[str, ...]:
    """The argument names of a signature line: the last name in each argument before its
    default or type ("REPT("Text"; Number)" -> Text, Number; "def f(a: int = 3, *rest)" -> a,
    rest; "int open(const char *path, int flags)" -> path, flags)."""
    match = SIGNATURE.match(line)
    if match is None:
        return ()
    names = []
    for argument in re.split(r"[;,]", match.group("args")):
        argument = re.split(r"[=:]", argument)[0]
        found = re.findall(r"[A-Za-z_]\w*", argument)
        if found:
            names.append(found[-1])
    return tuple(names)


def _prose_units(text: str, blocks: list[Block], heading: str = ""
                 ) -> tuple[list[Prose], list[tuple[Block, Prose | None]]]:
    units: list[Prose] = []
    terms: list[tuple[Block, Prose | None]] = []
    signature = ""
    arguments: tuple[str, ...] = ()
    signature_span: tuple[int, int] | None = None
    signature_fresh = False
    term_block: Block | None = None
    owner = ""
    for i, block in enumerate(blocks):
        if block.kind == "heading":
            heading, term_block, owner = block.label, None, ""
            continue
        if block.kind == "signature":
            signature, term_block = block.label, None
            line = block.lines[0]
            arguments = argument_names(line.text)
            at = line.text.find(signature)
            signature_span = (line.start + at, line.start + at + len(signature))
            signature_fresh = True
            continue
        if block.kind == "term":
            if term_block is not None:
                terms.append((term_block, None))
            term_block = block
            continue
        if block.kind != "prose":
            continue
        clean, origin = join_lines(text, block.lines)
        if not clean:
            continue
        in_term = term_block is not None and block.lines[0].indent > term_block.lines[0].indent
        if term_block is not None and not in_term and not (
            terms and terms[-1][0] is term_block
        ):
            terms.append((term_block, None))
        if not in_term:
            term_block = None
        unit = Prose(clean, origin, heading, term_block.label if in_term else "", signature)
        unit.sentences = sentence_bounds(clean)
        if in_term:
            unit.term_span = (term_block.start, term_block.end)
            unit.first_of_term = not (terms and terms[-1][0] is term_block)
            unit.owner = owner
        else:
            owner = list_owner(clean)
        if signature:
            unit.arguments = arguments
            unit.signature_span = signature_span
            unit.first_of_signature = signature_fresh
            signature_fresh = False
        if i + 1 < len(blocks) and blocks[i + 1].kind == "code":
            unit.example = _example_span(blocks[i + 1])
        units.append(unit)
        if in_term and not (terms and terms[-1][0] is term_block):
            terms.append((term_block, unit))
    if term_block is not None and not (terms and terms[-1][0] is term_block):
        terms.append((term_block, None))
    return units, terms


def list_owner(clean: str) -> str:
    """The function a list introduced by this prose belongs to: "pthread_timedjoin_np() can in
    addition fail with the following errors:" -> "pthread_timedjoin_np()"; '' otherwise."""
    if not clean.endswith(":"):
        return ""
    last = sentence_bounds(clean)[-1]
    match = re.match(r"(?:The\s+)?([A-Za-z_][\w.]*\(\))", clean[last[0]:last[1]])
    return match.group(1) if match else ""


def _example_span(block: Block) -> tuple[int, int]:
    """The first command of a code block: its first line and continuation lines ('\\')."""
    lines = block.lines
    end = 0
    while end + 1 < len(lines) and lines[end].text.endswith("\\"):
        end += 1
    return lines[0].start, lines[end].end


def _name_line(text: str, blocks: list[Block]) -> NameLine | None:
    """The NAME line: the first prose line of the passage after a NAME heading (or first)."""
    for i, block in enumerate(blocks):
        if block.kind != "prose":
            continue
        after_name = i > 0 and blocks[i - 1].kind == "heading" and blocks[i - 1].label.upper() \
            in ("NAME", "NAME AND SUMMARY")
        if not after_name:
            return None
        clean, origin = join_lines(text, block.lines)
        match = NAME_LINE.match(clean)
        if not match:
            return None
        names = [n.strip() for n in match.group("names").split(",") if n.strip()]
        a = match.start("summary")
        b = len(clean.rstrip(". "))
        return NameLine(names, clean[a:b], (origin[a], origin[b - 1] + 1),
                        (origin[0], origin[match.end("names") - 1] + 1))
    return None


def title_section(title: str | None) -> str:
    """The section a title names after its colon ("gzip(1): Options" -> "Options")."""
    parts = re.split(r":\s+", title or "", maxsplit=1)
    return parts[1].strip() if len(parts) == 2 else ""


def read_passage(text: str, title: str | None = None) -> Passage:
    """``text`` read as a document (see the module docstring)."""
    blocks = read_blocks(text)
    units, terms = _prose_units(text, blocks, title_section(title))
    return Passage(text, title or "", blocks, units, _name_line(text, blocks), terms)
