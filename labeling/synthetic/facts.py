"""Facts the offline generator asks about.

In a clause (``quantities``, ``times``, ``places``): each yields ``((answer start, answer end),
question phrase, kind)``, the phrase being what replaces the answer ("how many days", "when").
In a whole chunk (``acronyms``, ``tables``): each returns finished questions as
``(question, answer start, answer end, kind)``. Offsets are into the chunk text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from labeling.synthetic.clauses import (
    PHRASE_ENDS,
    Clause,
    base_form,
    is_date,
    is_number,
    phrase,
)
from labeling.synthetic.words import (
    CONJUNCTIONS,
    CURRENCIES,
    DURATION_UNITS,
    MONTHS,
    PLACE_NOUNS,
    PREPOSITIONS,
    QUANTIFIERS,
    QUESTION_WORDS,
    TIME_PREPS,
)

ClauseFact = tuple[tuple[int, int], str, str]  # ((start, end), question phrase, kind)
Question = tuple[str, int, int, str]  # (question, answer start, answer end, kind)


def quantities(clause: Clause) -> Iterator[ClauseFact]:
    """Amounts with a unit: "up to 25 days" (how many days), "EUR 40" (how much), "15%"."""
    rest = clause.rest
    for i, tok in enumerate(rest):
        if not is_number(tok) or (i and rest[i - 1].low in ("release", "version", "v")):
            continue
        if re.fullmatch(r"\d+\.\d+", tok.low) and "%" not in tok.low:
            continue  # a version number, not a quantity
        start = i
        for q in QUANTIFIERS:  # "up to 3 months": the quantifier belongs to the answer
            n = len(q.split())
            if start >= n and " ".join(t.low for t in rest[start - n:start]) == q:
                start -= n
                break
        unit = [t for t in phrase(rest[i + 1:], 5, PHRASE_ENDS | {"who", "if", "when"})
                if not t.paren]
        if tok.low.endswith("%"):
            yield (rest[start].start, tok.end), "what percentage", "how much"
            continue
        if not unit or is_date(unit[0]) or (
            unit[0].low in MONTHS and unit[0].text[:1].isupper()
        ):
            continue  # a bare number or a date ("30 September")
        plural = unit[0].low.endswith("s") or unit[0].low in CURRENCIES
        if not plural and not (start < i and rest[i - 1].low in CURRENCIES):
            continue  # "one week", "half day": "how many week" is not English
        span = (rest[start].start, unit[-1].end)
        if unit[0].low in CURRENCIES or (start < i and rest[i - 1].low in CURRENCIES):
            yield span, "how much", "how much"
        elif unit[0].low in DURATION_UNITS and base_form(clause.verb.text) in ("last", "take"):
            yield span, "how long", "how long"
        else:
            unit_words = [t.text for t in unit]
            yield span, "how many " + " ".join(unit_words), "how many"


def times(clause: Clause) -> Iterator[ClauseFact]:
    """The first time of the clause: "within 30 days", "on 1 March", "by Friday" (when)."""
    rest = clause.rest
    for i, tok in enumerate(rest):
        within = (
            tok.low in ("within", "by", "before") and i + 2 < len(rest)
            and is_number(rest[i + 1]) and rest[i + 2].low in DURATION_UNITS
        )
        dated = is_date(tok) or (
            is_number(tok) and i + 1 < len(rest) and is_date(rest[i + 1])
        )
        if not (within or (dated and i and rest[i - 1].low in TIME_PREPS | {"the"})):
            continue
        start = i if within else i - 1
        if rest[start].low == "the" and start and rest[start - 1].low in TIME_PREPS:
            start -= 1
        if rest[start].low not in TIME_PREPS:
            continue
        end = i + 2 if within else i
        while end + 1 < len(rest) and not rest[end].brk and (
            is_date(rest[end + 1]) or is_number(rest[end + 1])
            or rest[end + 1].low in ("to", "and", "of", "each", "every", "the", "year", "month",
                                     "week", "day", "days", "expense", "date", "-")
        ):
            end += 1
        while rest[end].low in ("to", "and", "of", "each", "every", "the"):
            end -= 1
        yield (rest[start].start, rest[end].end), "when", "when"
        return


def places(clause: Clause, text: str) -> Iterator[ClauseFact]:
    """The first named place or tool of the clause: "in the HR portal" (where)."""
    rest = clause.rest
    for i, tok in enumerate(rest[:-1]):
        if tok.low not in ("in", "at", "on", "via", "through", "into"):
            continue
        np = phrase(rest[i + 1:], 6, PREPOSITIONS | CONJUNCTIONS, trim=False)
        if not np or any(is_date(t) or is_number(t) for t in np):
            continue
        named = np[-1].low in PLACE_NOUNS or any(
            t.text[:1] in "/~" or "://" in t.text for t in np)
        if named:
            yield (tok.start, np[-1].end), "where", "where"
            return


def acronyms(text: str) -> list[Question]:
    """"What does PTO stand for?" for an acronym in brackets after the words it abbreviates,
    with or without a space before the bracket ("the General Public License(GPL)")."""
    out = []
    for match in re.finditer(r"\(([A-Z][A-Z0-9]{1,7})\)", text):
        acronym = match.group(1)
        before = text[: match.start()].split(" ")
        letters = [c for c in acronym if c.isalpha()]
        expansion = None
        for k in range(1, min(len(letters), len(before) - 1) + 1):
            words = before[-k - 1:-1] if before[-1] == "" else before[-k:]
            parts = [p for w in words for p in re.split(r"[-/]", w) if p]
            if [p[0].upper() for p in parts] == letters:
                expansion = words
                break
        if expansion is None:
            continue
        end = match.start() - (1 if before[-1] == "" else 0)  # "License(GPL)": no space
        start = end - len(" ".join(expansion))
        out.append((f"What does {acronym} stand for?", start, end, "what"))
    return out


def tables(text: str) -> list[Question]:
    """Markdown tables: "What is the <column> for <first cell>?" for each body cell. Only under a
    header that names a property in a capital ("Definition", "First response"): a header in
    lower case is a command or a value ("npm stage publish", "requires 2fa") and makes no
    question; nor does a yes/no cell (a matrix of permissions, not a fact to ask)."""
    out = []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    header: list[str] | None = None
    for start, line in lines:
        if not line.strip().startswith("|"):
            header = None
            continue
        cells = [(m.start(1), m.group(1)) for m in re.finditer(r"\|\s*([^|]*?)\s*(?=\|)", line)]
        if header is None:
            header = [c for _, c in cells]
            continue
        if all(set(c) <= set("-: ") for _, c in cells):
            continue  # the separator row
        if not cells or not cells[0][1]:
            continue
        row = cells[0][1]
        row = row if _is_name(row) or " " not in row else row[:1].lower() + row[1:]
        for (offset, cell), column in zip(cells[1:], header[1:], strict=False):
            words = column.lower().split()
            if cell and words and words[-1] not in PREPOSITIONS and words[0] not in (
                QUESTION_WORDS | {"then", "now", "else", "notes"}
            ) and column[:1].isupper() and cell.lower() not in YES_NO:
                out.append((f"What is the {column.lower()} for {row}?", start + offset,
                            start + offset + len(cell), "what"))
    return out


YES_NO = frozenset("yes no y n true false x \u2713 \u2714 \u2717 -".split())


def _is_name(cell: str) -> bool:
    first = cell.split()[0] if cell.split() else ""
    return any(c.isupper() for c in first[1:]) or any(c.isdigit() for c in first)
