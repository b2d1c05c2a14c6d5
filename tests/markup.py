"""Test helpers: what a piece of Streamlit markdown shows, and what markup it would create.

Streamlit renders markdown with CommonMark plus GitHub's extensions; markdown-it-py's CommonMark
parser stands in for it here, and GitHub's bare-URL autolinks (which markdown-it does not parse
without an extra package) are looked for in the source.
"""

from __future__ import annotations

import re

import markdown_it

_PARSER = markdown_it.MarkdownIt("commonmark", {"html": True})
_MARKUP_TOKENS = {"link_open", "image", "html_inline", "html_block", "autolink"}
# GitHub's extended autolinks: www., http(s):// and e-mail addresses written out, unescaped.
_BARE_LINK = re.compile(r"www\.|[a-z][a-z0-9+.-]*://|[\w.+-]+@[\w-]+\.", re.IGNORECASE)


def _tokens(markdown: str):
    for token in _PARSER.parse(markdown):
        yield token
        yield from token.children or ()


def shown(markdown: str) -> str:
    """The text a reader sees: escapes and entities resolved, line breaks as spaces."""
    parts = []
    for token in _tokens(markdown):
        if token.type in ("text", "code_inline", "html_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak", "paragraph_close"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def markup_in(markdown: str) -> list[str]:
    """What ``markdown`` would turn into besides text: links, images, raw HTML, bare URLs."""
    found = [f"{t.type}: {t.content or t.attrs}" for t in _tokens(markdown)
             if t.type in _MARKUP_TOKENS]
    found += [f"bare link: {m.group(0)}" for m in _BARE_LINK.finditer(markdown)]
    return found
