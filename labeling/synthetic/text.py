"""Text helpers shared by the generators and quality signals: sentences, words, normalisation."""

from __future__ import annotations

import re
import unicodedata

# Words that end with a full stop without ending a sentence (lower case, without the stop).
ABBREVIATIONS = frozenset(
    "e.g i.e etc vs mr mrs ms dr prof no approx incl ca cf fig st jan feb mar apr jun jul aug "
    "sep sept oct nov dec mon tue wed thu fri sat sun inc ltd co corp dept est min max".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s+[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[\w][\w'’\-./:%]*[\w%]|[\w]", re.UNICODE)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text`` (end exclusive, trimmed of spaces).

    Breaks at line ends and after ``.``/``!``/``?`` followed by space and a capital or digit,
    except after a known abbreviation or a single initial ("J. Smith") and inside decimals.
    """
    spans: list[tuple[int, int]] = []
    for line in re.finditer(r"[^\n]+", text):
        start = line.start()
        for match in _BOUNDARY.finditer(line.group()):
            end = line.start() + match.end()
            before = text[start:line.start() + match.start()].split()
            last = before[-1].lower().rstrip(".") if before else ""
            if last in ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                continue
            spans.append((start, end))
            start = end
        spans.append((start, line.end()))
    trimmed = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            trimmed.append((a, b))
    return trimmed


def normalise(text: str) -> str:
    """Lower case, accents and punctuation removed, spaces collapsed: for matching texts."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.findall(r"\w+", text))


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return re.findall(r"\w+", text.lower())
