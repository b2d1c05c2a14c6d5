"""The lines of a passage and what each one looks like: code, a table row, a sentence, a
definition-list label, a heading (``labeling.synthetic.passage`` sorts them into blocks).

The patterns (prompts, comments, fences, markup, signatures, NAME lines, options, keys, error
names, bullets) are shared with the modules that name a passage's subjects.
"""

from __future__ import annotations

import errno
import re
from dataclasses import dataclass

HYPHENATION = "\u2010"
BOX = re.compile(r"[\u2500-\u257f]")
PROMPT = re.compile(r"^(>>>|\.\.\.|\$|%|#)(\s|$)")
COMMENT = re.compile(r"^(//|/\*|\*/|--\s|;;?\s|REM\s)")
FENCE = re.compile(r"^(```|~~~)")
MARKUP_LINE = re.compile(r"^(\.\.\s+[\w:|-]+::|\.\.\s*$|\.\.\s+_|:[\w ]+:(\s|$)|@\w+\b|"
                         r"\.[A-Za-z]{1,2}(\s|$)|</?[a-zA-Z][^>]*>$)")
CODE_START = re.compile(
    r"^(#include|#define|#if|import\s+\w|from\s+[\w.]+\s+import|def\s+\w|class\s+\w+[:(]|"
    r"return\b|if\s*\(|for\s*\(|while\s*\(|switch\s*\(|}|{|sudo\s|export\s+\w+=|echo\s|"
    r"(int|char|void|long|short|unsigned|struct|static|const|double|float|size_t|ssize_t)\s+\**\w)"
)
SIGNATURE = re.compile(
    r"^(?:(?:async\s+)?def\s+|class\s+|(?:[a-z_][\w*]*\s+){1,4}\**)?"
    r"(?P<name>[A-Za-z_][\w.:]*)\((?P<args>[^()]*(?:\([^()]*\)[^()]*)*)\)?\s*"
    r"(?:->\s*[\w\[\], .]+)?\s*[:;,{]?\s*$"
)
# A line of an example that calls or defines a function, not a signature that heads its entry:
# a call as a statement, with no type before it ("button.show();", "qSwap(this->first,
# other.first);", "QCOMPARE(a, b);"), or a definition opening its body ("int func(int x) {",
# "class Person(models.Model):", "def myview(request):").
CODE_STATEMENT = re.compile(r"^[A-Za-z_][\w.:>-]*\(.*\)\s*;$|^.*\)\s*(?:const\s*)?\{$|"
                            r"^(?:async\s+)?(?:def|class)\s+\w+\(.*\)(?:\s*->\s*[^:]+)?\s*:$")
NAME_LINE = re.compile(
    r"^(?P<names>[\w.+:@\[\]-]+(?:,\s*[\w.+:@\[\]-]+)*|[\w.+-]+(?:\s+[\w.+-]+){1,6})"
    r"\s+(?:-|\u2010|\u2013|\u2014|\\-)\s+(?P<summary>\S.*)$"
)
OPTION = re.compile(r"^[-+]{1,2}[A-Za-z0-9?#@][\w#@?.:/+=-]*")
KEY_TERM = re.compile(
    r"^(?:[A-Z][A-Z0-9_]{2,}(?:\s*\([\w ,-]+\))?|[A-Za-z][\w.-]*=\S*|[/~$][\w/.*${}~+-]+|"
    r"[A-Z][A-Z0-9_]*(?:,\s*[A-Z][A-Z0-9_]*)+)$"
)
# The C library's error names, as this platform's Python knows them: a capitalised word that only
# looks like one ("EXTRA Proprietary drivers", a sidebar's label and title) is not an error.
ERROR_NAMES = frozenset(errno.errorcode.values())

BULLET = re.compile(r"^([\u2022\u2023\u25e6\u2043\u2219\u00b7*+\u2014\u2013]|-(?=\s)"
                    r"|o(?=\s{1,3}[A-Z])|\d{1,2}[.)](?=\s))\s+")
GAP = re.compile(r"\S( {4,}|\t)\S")
CODE_SYMBOLS = set("{}[]();=<>$\\|&*#/_~^@`")
COMMON_HEADINGS = frozenset(
    "NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES EXAMPLE FILES ENVIRONMENT NOTES BUGS AUTHOR "
    "AUTHORS COPYRIGHT HISTORY STANDARDS ERRORS ATTRIBUTES VERSIONS CAVEATS DIAGNOSTICS USAGE "
    "COMMANDS FLAGS ARGUMENTS OVERVIEW SUMMARY INTRODUCTION CONFIGURATION SECURITY WARNINGS "
    "LIMITATIONS CONFORMANCE COMPATIBILITY AVAILABILITY".split()
)
# Inline markup removed from prose: roles, code quotes, paired emphasis, links, roff escapes,
# simple HTML tags. Group 1 of each alternative, when present, is the text kept.
INLINE_MARKUP = re.compile(
    r":[\w:+.-]+:(?=`)|``|`|\*\*(?=\S)|(?<=\S)\*\*|(?<![\w*])\*(?=\w[^*\n]*\w\*(?!\w))|"
    r"(?<=\w)\*(?![\w*])|(?<![\w_])__?(?=\w[^_\n]*\w__?(?!\w))|(?<=\w)__?(?![\w_])|"
    r"\\f[BIRPC]|\\f\(..|\\&|</?(?:b|i|em|strong|code|tt|kbd|var|span|a|sup|sub)(?:\s[^>]*)?>"
)
LINK = re.compile(r"\[([^\]\n]+)\]\([^)\s]+\)")


@dataclass(frozen=True)
class Line:
    """A non-blank line: offsets of its first and last non-space character (end exclusive)."""

    start: int
    end: int
    indent: int
    text: str


# ---------------------------------------------------------------------------------------------
# Lines


def lines_of(text: str) -> list[Line | None]:
    """The lines of ``text``; ``None`` for a blank line."""
    out: list[Line | None] = []
    for match in re.finditer(r"[^\n]*", text):
        if match.start() > 0 and text[match.start() - 1] != "\n":
            continue  # the empty match after a line's end
        raw = match.group()
        stripped = raw.strip()
        if not stripped:
            out.append(None)
            continue
        lead = len(raw) - len(raw.lstrip())
        indent = len(raw[:lead].expandtabs(8))
        start = match.start() + lead
        out.append(Line(start, start + len(stripped), indent, stripped))
    while out and out[-1] is None:
        out.pop()
    return out


def symbol_share(text: str) -> float:
    """Share of non-space characters that are code symbols."""
    chars = [c for c in text if not c.isspace()]
    return sum(c in CODE_SYMBOLS for c in chars) / len(chars) if chars else 0.0


def is_table_line(text: str) -> bool:
    return bool(BOX.search(text)) or text.count("|") >= 2 or len(GAP.findall(text)) >= 2


def is_code_line(text: str) -> bool:
    """A line that is code, a prompt or a comment, never prose."""
    if PROMPT.match(text) and not re.match(r"^#{1,6}\s+[A-Z][^.]*$", text):
        return True
    if COMMENT.match(text) or FENCE.match(text) or CODE_START.match(text):
        return True
    words = text.split()
    share = symbol_share(text)
    if share > 0.18 or (share > 0.1 and not text.endswith((".", ","))):
        return True
    return bool(len(words) <= 8 and text.endswith((";", "{", "}", "\\", ");")))


def is_sentence_like(text: str) -> bool:
    """Prose-looking text: words, mostly letters, and a sentence end or enough words."""
    words = re.findall(r"[A-Za-z][a-z']+", text)
    return len(words) >= 3 and symbol_share(text) <= 0.1


def is_errno(word: str) -> bool:
    """Whether ``word`` names a C library error (``ENOENT``, ``EXDEV``), not a word in capitals
    that is written like one (``EXTRA``, ``EXAMPLE``)."""
    return word in ERROR_NAMES


def term_split(text: str) -> tuple[str, str] | None:
    """(label, description) when ``text`` opens a definition-list entry on one line: an option
    or key, then a wide gap or (errors, keys) a capitalised description."""
    gap = re.match(r"^(\S(?:.*?\S)?)( {2,}|\t)(\S.*)$", text)
    if gap and (OPTION.match(gap.group(1)) or KEY_TERM.match(gap.group(1))) \
            and len(gap.group(1)) <= 40:
        return gap.group(1), gap.group(3)
    error = re.match(r"^(\S+)\s+(\(.*?\)\s+)?([A-Z].*)$", text)
    if error and is_errno(error.group(1)):
        return error.group(1), error.group(3)
    dash = re.match(r"^(\S+)\s+[-\u2013\u2014]\s+(\S.*)$", text)  # "DEV - specifies the device"
    if dash and (OPTION.match(dash.group(1)) or KEY_TERM.match(dash.group(1))):
        return dash.group(1), dash.group(2)
    return None


def is_term_label(text: str) -> bool:
    """A short label line that a definition follows."""
    if len(text) > 70 or text.endswith((".", ",", ";")):
        return False
    if OPTION.match(text) or KEY_TERM.match(text) or is_errno(text.split()[0]):
        return True
    return len(text.split()) <= 5 and text[-1] not in ":!?"


def heading_text(text: str, following: Line | None, indent: int) -> str | None:
    """The heading ``text`` is, if it is one. A single capitalised identifier with an indented
    line below (``SIOCGIFNAME``, ``GZIP``) is a term, not a heading."""
    md = re.match(r"^#{1,6}\s+(\S.*?)\s*#*$", text)
    if md:
        return md.group(1)
    if following is not None and re.fullmatch(r"([=\-~^*#])\1{2,}", following.text):
        return text
    letters = [c for c in text if c.isalpha()]
    if not (letters and all(c.isupper() for c in letters) and len(text.split()) <= 6
            and not text.endswith((".", ",")) and len(letters) >= 3 and not OPTION.match(text)):
        return None
    plural_word = re.fullmatch(r"[A-Z]{5,}S", text) is not None  # COMMENTS, EXPRESSIONS
    identifier = len(text.split()) == 1 and text not in COMMON_HEADINGS and not plural_word
    if identifier and following is not None and following.indent > indent:
        return None
    return text
