"""Test helpers: what a piece of Streamlit markdown shows, and what markup it would create.

Streamlit renders markdown with CommonMark plus GitHub's extensions; markdown-it-py's CommonMark
parser stands in for it here. GitHub's extended autolinks (bare ``https://host.tld``,
``www.host.tld``, ``name@host.tld``) are not CommonMark: Streamlit's renderer finds them in each
text node *after* escapes are resolved; the two patterns below are written to find what
Streamlit 1.67's renderer links (checked in its bundle), in the text tokens markdown-it gives.
"""

from __future__ import annotations

import re
import unicodedata

import markdown_it

from labeling.markdown import WORD_JOINER

_PARSER = markdown_it.MarkdownIt("commonmark", {"html": True})
_MARKUP_TOKENS = {"link_open", "image", "html_inline", "html_block", "autolink"}
# GitHub's extended autolinks in a text node: a URL needs a dot in its host; an address needs
# a start of text, a space, a punctuation mark or a symbol before it.
_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE)
_ADDRESS = re.compile(r"(?=([-.\w+]+)@([-\w]+(?:\.[-\w]+)+))")


def _starts_a_word(text: str, index: int) -> bool:
    if index == 0:
        return True
    before = text[index - 1]
    return before.isspace() or unicodedata.category(before)[0] in "PS"


def _autolinks(text: str) -> list[str]:
    found = [m.group(0) for m in _URL.finditer(text) if "." in m.group(2).strip(".")]
    found += [f"{m.group(1)}@{m.group(2)}" for m in _ADDRESS.finditer(text)
              if _starts_a_word(text, m.start())]
    return found


def _tokens(markdown: str):
    for token in _PARSER.parse(markdown):
        yield token
        yield from token.children or ()


def shown(markdown: str) -> str:
    """The text a reader sees: escapes and entities resolved, line breaks as spaces, word
    joiners (invisible) left out."""
    parts = []
    for token in _tokens(markdown):
        if token.type in ("text", "code_inline", "html_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak", "paragraph_close"):
            parts.append(" ")
    return " ".join("".join(parts).replace(WORD_JOINER, "").split())


def markup_in(markdown: str) -> list[str]:
    """What ``markdown`` would turn into besides text: links, images, raw HTML, autolinks."""
    found = []
    for token in _tokens(markdown):
        if token.type in _MARKUP_TOKENS:
            found.append(f"{token.type}: {token.content or token.attrs}")
        elif token.type == "text":
            found += [f"autolink: {link}" for link in _autolinks(token.content)]
    return found
