"""Text helpers shared by the generators and quality signals: sentences, words, normalisation."""

from __future__ import annotations

import re
import unicodedata

# Words that end with a full stop without ending a sentence (lower case, without the stop).
ABBREVIATIONS = frozenset(
    "e.g i.e etc vs mr mrs ms dr prof no approx incl ca cf fig figs st jan feb mar apr jun jul "
    "aug sep sept oct nov dec mon tue wed thu fri sat sun inc ltd co corp dept est min max al "
    "resp esp viz eq ref refs sec vol pp ed nr e.g., i.e.,".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]\u2019\u201d]*(?=\s+[\"'(\[\u2018\u201c]?[A-Z0-9])")
_WORD = re.compile(r"[\w][\w'’\-./:%]*[\w%]|[\w]", re.UNICODE)
# A line that opens a list item: a bullet, a number or an option.
_ITEM_START = re.compile(r"\n[ \t]*(?:[\u2022\u2023\u25e6*+\u2014\u2013-]\s|\d{1,2}[.)]\s)")


def ends_on_abbreviation(text: str) -> bool:
    """Whether the last word of ``text`` (its full stop, if any, aside) is a known abbreviation
    ("e.g", "etc") or a single initial ("J"): a full stop after it ends no sentence."""
    before = text.split()
    last = before[-1].lower().rstrip(".").lstrip("(\"'[") if before else ""
    return last in ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of one paragraph of running text (end exclusive, trimmed).

    A sentence ends at ``.``/``!``/``?`` (and closing quotes or brackets) followed by space and
    a capital, a digit or an opening quote or bracket, except after a known abbreviation
    ("e.g.", "i.e.", "etc.") or a single initial ("J. Smith"). A full stop inside a word or a
    number (``2.6.32``, ``file.gz``) is never an end, since no space follows it.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if ends_on_abbreviation(text[start:match.start() + 1]):
            continue
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(text)))
    trimmed = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            trimmed.append((a, b))
    return trimmed


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text``, wrapped lines read as running text.

    Paragraphs (separated by blank lines) and list items (a line starting with a bullet or an
    item number) never share a sentence; inside them a line break is a space, so a sentence
    wrapped over lines is one span (which then contains the line breaks).
    """
    spans: list[tuple[int, int]] = []
    for para in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", text):
        cuts = [para.start()]
        cuts += [m.start() + 1 for m in _ITEM_START.finditer(text, para.start(), para.end())]
        cuts.append(para.end())
        for a, b in zip(cuts, cuts[1:], strict=False):
            flat = text[a:b].replace("\n", " ").replace("\t", " ")
            spans.extend((a + x, a + y) for x, y in sentence_bounds(flat))
    return spans


def normalise(text: str) -> str:
    """Lower case, accents and punctuation removed, spaces collapsed: for matching texts."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.findall(r"\w+", text))


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return re.findall(r"\w+", text.lower())
