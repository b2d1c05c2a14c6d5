"""Words and clauses of a chunk's sentences, and turning them back into a question's words.

``tokenize`` cuts a sentence into ``Tok`` words with character offsets into the chunk (so that
every answer span points into the text); ``find_clause`` reads subject, verb and the rest of a
simple clause; ``render`` and ``finish_question`` write the words of a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labeling.synthetic.words import (
    ALL_VERBS,
    AUXILIARIES,
    BE,
    CONDITIONS,
    CONJUNCTIONS,
    DETERMINERS,
    IRREGULAR_S,
    LEAD_WORDS,
    MODALS,
    MONTHS,
    NUMBER_WORDS,
    PREPOSITIONS,
    PRONOUNS_OTHER,
    PRONOUNS_SUBJECT,
    ROLES,
    SUBJECT_STOPS,
    VERBS,
    WEEKDAYS,
)


@dataclass(frozen=True)
class Tok:
    """A word of the chunk: its text and character offsets; ``brk`` = clause punctuation after."""

    text: str
    start: int
    end: int
    brk: bool = False
    paren: bool = False  # inside brackets: left out of questions

    @property
    def low(self) -> str:
        return self.text.lower()


def tokenize(text: str, start: int, end: int) -> list[Tok]:
    """Words of ``text[start:end]`` with absolute offsets, edge punctuation trimmed."""
    toks = []
    depth = 0
    for match in re.finditer(r"\S+", text[start:end]):
        a, b = start + match.start(), start + match.end()
        raw = text[a:b]
        lead = len(raw) - len(raw.lstrip("\"'(“‘["))
        trail_raw = raw[lead:]
        core = trail_raw.rstrip(".,;:!?)\"'”’]")
        while core.count("(") > core.count(")") and len(core) < len(trail_raw) \
                and trail_raw[len(core)] == ")":
            core = trail_raw[: len(core) + 1]  # "strtol()", "isspace(3)": the bracket is the word's
        if not core or (not toks and core in ("-", "*", "•")):
            continue  # punctuation, or a list bullet
        tail = trail_raw[len(core):]
        depth += raw[:lead].count("(")
        inside = depth > 0
        depth = max(0, depth - tail.count(")"))
        toks.append(Tok(core, a + lead, a + lead + len(core), brk=any(c in ",;:" for c in tail),
                        paren=inside))
    return toks


def base_form(word: str) -> str | None:
    """The base form of a verb given as base or -s form, else None."""
    low = word.lower()
    if low in ALL_VERBS:
        return low
    if low in IRREGULAR_S:
        return IRREGULAR_S[low]
    if low.endswith("ies") and low[:-3] + "y" in ALL_VERBS:
        return low[:-3] + "y"
    if low.endswith("es") and low[:-2] in ALL_VERBS:
        return low[:-2]
    if low.endswith("s") and low[:-1] in ALL_VERBS:
        return low[:-1]
    return None


def third_person(base: str) -> str:
    if base == "have":
        return "has"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ies"
    if base.endswith(("s", "sh", "ch", "x", "o")):
        return base + "es"
    return base + "s"


# --- clause analysis ---------------------------------------------------------------------------


@dataclass
class Clause:
    """``pre`` (leading adverbial) + ``subj`` + ``verb`` + ``rest``; all words of one sentence."""

    pre: list[Tok]
    subj: list[Tok]
    verb: Tok
    rest: list[Tok]
    named: list[str] | None = None  # words that replace a deictic subject ("this option")


def find_clause(toks: list[Tok]) -> Clause | None:
    pre: list[Tok] = []
    main = toks
    if toks and toks[0].low in LEAD_WORDS | CONDITIONS:
        comma = next((i for i, t in enumerate(toks[:14]) if t.brk), None)
        you = next((i for i, t in enumerate(toks[1:12], 1) if t.low == "you"), None)
        if comma is not None and toks[0].low not in CONDITIONS:
            pre, main = toks[: comma + 1], toks[comma + 1:]
        elif you is not None and toks[0].low not in CONDITIONS:
            pre, main = toks[:you], toks[you:]
        else:
            return None
    for i, tok in enumerate(main[1:11], 1):
        if main[i - 1].brk or main[i - 1].low in SUBJECT_STOPS:
            return None  # a comma, relative clause or conjunction in the subject: too hard
        if main[i - 1].low in DETERMINERS or main[i - 1].low in PREPOSITIONS:
            continue  # "the claims": a noun after a determiner
        if tok.low in BE or tok.low in MODALS or tok.low == "has":
            return Clause(pre, main[:i], tok, main[i + 1:])
        base = base_form(tok.text)
        if base is None:
            continue
        if i + 1 < len(main) and (main[i + 1].low in BE or main[i + 1].low in MODALS):
            continue  # "security updates must ...": a noun before the real verb
        if i + 1 < len(main) and main[i + 1].low in NAME_NOUNS:
            continue  # "the ncurses clear command": part of a name, not the verb
        head = main[i - 1].low
        plural_subject = head.endswith("s") or head in ("you", "we", "they", "i") or head in ROLES
        if tok.low != base and not head.endswith("s") or tok.low == base and plural_subject:
            return Clause(pre, main[:i], tok, main[i + 1:])
    return None


def is_proper(tok: Tok, text: str) -> bool:
    """Keep a capital when the word is an acronym or is capitalised mid-sentence elsewhere."""
    word = tok.text
    if any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
        return True
    if not word[:1].isupper():
        return False
    if tok.low in MONTHS | WEEKDAYS:
        return True
    return re.search(rf"[a-z,;]\s+{re.escape(word)}\b", text) is not None


# Nouns that make the word before them part of a name ("the clear command").
NAME_NOUNS = frozenset("command commands function functions option options program utility "
                       "tool library daemon flag flags macro".split())
CLAUSE_OPENERS = frozenset("if when unless once before after until while whenever as".split())


def _in_name(toks: list[Tok], i: int) -> bool:
    """A capitalised word beside another one is part of a name ("Richard Henderson", "Apache
    Commons CLI", "SPARC Solaris"): its capital stays. Determiners and the like do not count."""
    def capital(j: int) -> bool:
        return 0 <= j < len(toks) and toks[j].text[:1].isupper() and \
            toks[j].low not in DETERMINERS | PREPOSITIONS and not toks[j].paren
    return toks[i].low not in DETERMINERS | PREPOSITIONS and (capital(i - 1) or capital(i + 1))


def render(toks: list[Tok], text: str, *, first_is_subject: bool = False) -> list[str]:
    """Words for the question: sentence-initial capital dropped, you -> I/me, your -> my."""
    out = []
    for i, tok in enumerate(toks):
        if tok.paren:
            continue
        word = tok.text
        if i == 0 and first_is_subject and tok.low in PRONOUNS_SUBJECT:
            word = PRONOUNS_SUBJECT[tok.low]
        elif tok.low == "you" and (i + 1 < len(toks) and (
            toks[i + 1].low in AUXILIARIES or toks[i + 1].low in VERBS
        ) or (i and toks[i - 1].low in CLAUSE_OPENERS)):
            word = "I"  # "if you need ..." -> "if I need ..."
        elif tok.low in PRONOUNS_OTHER:
            word = PRONOUNS_OTHER[tok.low]
        elif word[:1].isupper() and not is_proper(tok, text) and not _in_name(toks, i):
            word = word[:1].lower() + word[1:]
        out.append(word)
    return out


def aux_and_verb(clause: Clause, text: str) -> tuple[str, list[str], list[str]]:
    """(auxiliary, subject words, words after the subject) for a question on ``clause``."""
    subj = clause.named or render(clause.subj, text, first_is_subject=True)
    verb = clause.verb.low
    if verb in BE:
        aux = "am" if subj == ["I"] and verb == "are" else verb
        if clause.named:
            aux = {"are": "is", "were": "was"}.get(verb, verb)
        return aux, subj, []
    if verb in MODALS:
        return verb, subj, []
    base = base_form(verb) or verb
    singular = verb != base or verb == "has" or bool(clause.named)
    if subj == ["I"]:
        singular = False
    return ("does" if singular else "do"), subj, [base]


def finish_question(words: list[str]) -> str:
    question = " ".join(w for w in words if w).strip()
    question = re.sub(r"\s+([,;:])", r"\1", question).rstrip(",;: ")
    return question[:1].upper() + question[1:] + "?"


def trim_rest(rest: list[Tok]) -> list[Tok]:
    """The rest of the clause up to its first comma or semicolon."""
    for i, tok in enumerate(rest):
        if tok.brk:
            return rest[: i + 1]
    return rest


def is_number(tok: Tok) -> bool:
    """A number written in digits (``60``, ``2.5``, ``15%``) or as a word (``three``)."""
    low = tok.low
    return bool(re.fullmatch(r"\d+(?:[.,]\d+)?%?", low)) or low in NUMBER_WORDS


def is_date(tok: Tok) -> bool:
    """A month, weekday, time of day, day of the month, year or quarter."""
    low = tok.low
    return (
        low in MONTHS - {"may"} or (low == "may" and tok.text == "May") or low in WEEKDAYS
        or bool(re.fullmatch(r"\d{1,2}[:.]\d{2}|\d{1,2}(st|nd|rd|th)|(19|20)\d\d|q[1-4]", low))
    )


# Words that end a noun phrase: prepositions other than "of", conjunctions, relative words.
PHRASE_ENDS = (PREPOSITIONS - {"of"}) | CONJUNCTIONS | {"that", "which"}


def phrase(
    toks: list[Tok], limit: int, ends: frozenset[str] | set[str] = PHRASE_ENDS, *, trim: bool = True
) -> list[Tok]:
    """The words at the start of ``toks`` (at most ``limit``) before a word of ``ends``, up to and
    including a word followed by a comma or semicolon; with ``trim``, without the trailing
    determiners and "of" ("the cost of the" -> "the cost")."""
    words: list[Tok] = []
    for tok in toks[:limit]:
        if tok.low in ends:
            break
        words.append(tok)
        if tok.brk:
            break
    while trim and words and words[-1].low in DETERMINERS | {"of"}:
        words.pop()
    return words


def noun_phrase(rest: list[Tok]) -> list[Tok]:
    """The noun phrase at the start of ``rest``: up to a preposition, conjunction or comma."""
    return phrase(rest, 7, PHRASE_ENDS | {"so", "because", "only", "when", "if"})
