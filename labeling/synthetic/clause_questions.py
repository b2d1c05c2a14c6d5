"""Questions from one parsed clause of a prose sentence (``labeling.synthetic.clauses``): the
answer is a part of the clause (a quantity, a time, a place, the object, the means, the cause,
the role that acts, a definition) and the question moves the rest around a question word
("gzip reduces the size of files using Lempel-Ziv coding" -> "How does gzip reduce the size of
files?"). Each builder returns ``(question, start, end, kind)`` with clean-text offsets, or
nothing when the clause would make a poor question.
"""

from __future__ import annotations

import re

from labeling.synthetic.clauses import (
    Clause,
    Tok,
    aux_and_verb,
    base_form,
    finish_question,
    is_number,
    noun_phrase,
    phrase,
    render,
    third_person,
    trim_rest,
)
from labeling.synthetic.facts import places, quantities, times
from labeling.synthetic.subject import is_named
from labeling.synthetic.words import (
    ALL_VERBS,
    BE,
    CONJUNCTIONS,
    DETERMINERS,
    MODALS,
    PREPOSITIONS,
    QUESTION_WORDS,
    ROLES,
    VAGUE,
)

# Verbs whose object makes a poor question on its own ("What does gzip have?").
WEAK_VERBS = frozenset("be go come happen last start end run have do make get take see "
                       "mean use need".split())
MEANS = frozenset({"using", "via", "through"})
Found = tuple[str, int, int, str]



def from_clause(clause: Clause, text: str) -> list[Found]:
    out = []
    for (a, b), wh, kind in [*quantities(clause), *times(clause), *places(clause, text)]:
        question = _wh_question(clause, wh, (a, b), text)
        if question:
            out.append((question, a, b, kind))
    for ask in (_who, _definition, _object, _modal_object, _means, _cause):
        question = ask(clause, text)
        if question is not None:
            out.append(question)
    return out


def _wh_question(clause: Clause, wh: str, answer: tuple[int, int], text: str) -> str | None:
    """Move an answer inside ``clause.rest`` to the front as ``wh``."""
    a, _ = answer
    before = [t for t in clause.rest if t.end <= a]
    if len(before) > 10 or any(t.brk or t.low in CONJUNCTIONS or is_number(t) for t in before):
        return None
    aux, subj, verb = aux_and_verb(clause, text)
    if verb == ["have"] and before and before[0].low == "been":  # "has been stabilized in 1.30"
        aux, verb, before = ("was" if aux == "does" else "were"), [], before[1:]
    pre = render(clause.pre, text) if clause.pre else []
    return finish_question([wh, aux, *subj, *verb, *render(before, text), *pre])


def _who(clause: Clause, text: str) -> Found | None:
    """A person or team does something: "Who approves ...?", the answer being the subject."""
    verb_base = base_form(clause.verb.text)
    if (
        clause.named or clause.subj[-1].low not in ROLES or {t.low for t in clause.subj} & VAGUE
        or clause.verb.low in BE or not verb_base or not clause.rest
    ):
        return None
    verb = clause.verb.low if clause.verb.low != verb_base else third_person(verb_base)
    if clause.verb.low in MODALS:
        verb = clause.verb.low
    rest = render(trim_rest(clause.rest), text)
    return (finish_question(["who", verb, *rest]), clause.subj[0].start, clause.subj[-1].end,
            "who")


def _definition(clause: Clause, text: str) -> Found | None:
    """What is X: a definition ("A security incident is any event that ...")."""
    if not (
        clause.verb.low in ("is", "are") and not clause.pre and len(clause.subj) <= 6
        and clause.rest and clause.rest[0].low in ("a", "an", "any", "the", "one", "every")
        and not any(is_number(t) for t in clause.subj)
    ):
        return None
    subj = clause.named or render(clause.subj, text)
    return (finish_question(["what", "is" if clause.named else clause.verb.low, *subj]),
            clause.rest[0].start, clause.rest[-1].end, "what")


def _object(clause: Clause, text: str) -> Found | None:
    """What does X <verb>: the object of a lexical verb ("What does strtol() return?")."""
    verb_base = base_form(clause.verb.text)
    if not (
        verb_base and clause.verb.low not in BE and clause.rest
        and clause.rest[0].low not in PREPOSITIONS and not is_number(clause.rest[0])
        and verb_base not in WEAK_VERBS and clause.rest[0].low not in ("not", "no", "only")
    ):
        return None
    if not names_code(clause):
        return None  # "What does the Valgrind core provide?": the sentence with a blank
    obj = whole(phrase(clause.rest, 7, _OBJECT_ENDS), clause.rest)
    if not _informative(obj):
        return None
    aux, subj, verb = aux_and_verb(clause, text)
    pre = render(clause.pre, text) if clause.pre else []
    return (finish_question(["what", aux, *subj, *verb, *pre]), obj[0].start, obj[-1].end,
            "what")


def names_code(clause: Clause) -> bool:
    """Whether the clause's subject holds a name as code writes it ("process.execArgv",
    "url.parse()", "--keep", "numeric_owner"), not only words or an acronym: asking what a
    named API returns or provides is a question; asking what "the Valgrind core" provides or
    what "GOSTDSA" reuses is the source sentence with a blank (round 4's development grades)."""
    words = clause.named or [t.text for t in clause.subj]
    return any(is_named(w) and not re.fullmatch(r"[A-Z]+\d*s?", w.strip(".,;:'\"‘’"))
               for w in words)


_OBJECT_ENDS = (PREPOSITIONS - {"of"}) | CONJUNCTIONS | {"that", "which", "using", "via",
                                                        "unless", "if", "when", "because"}


PARTICIPLES = frozenset("built made given set done found kept sent shown known run held".split())
DEPENDENTS = frozenset("as to with for of in on from by into that which who whose".split())


def whole(obj: list[Tok], rest: list[Tok]) -> list[Tok]:
    """An object phrase carried on to the end of its clause when it stops on a participle or
    after one or two words before a dependent phrase ("the address associated" -> "the address
    associated with symbol", "a user id" -> "a user id to map ranges ...")."""
    if not obj or len(obj) >= len(rest) or obj[-1].brk:
        return obj
    after = rest[len(obj)]
    content = [t for t in obj if t.low not in DETERMINERS]
    stops_short = obj[-1].low.endswith("ed") or obj[-1].low in PARTICIPLES or (
        len(content) <= 2 and after.low in DEPENDENTS)
    if not stops_short:
        return obj
    return trim_rest(rest)[:16]


def _informative(words: list[Tok]) -> bool:
    """An answer worth asking for: two words besides determiners, or a name or a number
    ("a value" and "entries" are not), and not a pronoun or question word ("what it can")."""
    if words and words[0].low in QUESTION_WORDS | VAGUE | {"you", "we", "i"}:
        return False
    content = [t for t in words if t.low not in DETERMINERS]
    return len(content) >= 2 or any(is_named(t.text) or is_number(t) for t in content)


def _modal_object(clause: Clause, text: str) -> Found | None:
    """What may staff access: a modal and a main verb."""
    if not names_code(clause):
        return None
    if not (
        clause.verb.low in MODALS and len(clause.rest) > 2 and clause.rest[0].low in ALL_VERBS
        and clause.rest[1].low not in PREPOSITIONS | {"not", "never", "be", "only", "also"}
        and clause.rest[0].low not in WEAK_VERBS
    ):
        return None
    obj = noun_phrase(clause.rest[1:])
    if not _informative(obj):
        return None
    subj = clause.named or render(clause.subj, text, first_is_subject=True)
    pre = render(clause.pre, text) if clause.pre else []
    words = ["what", clause.verb.low, *subj, clause.rest[0].low, *pre]
    return finish_question(words), obj[0].start, obj[-1].end, "what"


def _means(clause: Clause, text: str) -> Found | None:
    """"gzip reduces the size of files using Lempel-Ziv coding" -> "How does gzip reduce the
    size of files?", answered by the means."""
    verb_base = base_form(clause.verb.text)
    if not verb_base or clause.verb.low in BE | MODALS or verb_base in WEAK_VERBS:
        return None
    for i, tok in enumerate(clause.rest[:12]):
        by_gerund = tok.low == "by" and i + 1 < len(clause.rest) and \
            clause.rest[i + 1].low.endswith("ing")
        if (tok.low in MEANS or by_gerund) and i >= 1 and not any(
            t.brk for t in clause.rest[:i]
        ):
            end = trim_rest(clause.rest[i:])
            aux, subj, verb = aux_and_verb(clause, text)
            words = ["how", aux, *subj, *verb, *render(clause.rest[:i], text)]
            return finish_question(words), tok.start, end[-1].end, "how"
    return None


def _cause(clause: Clause, text: str) -> Found | None:
    """"X does Y because Z" -> "Why does X do Y?", answered by the cause."""
    for i, tok in enumerate(clause.rest[:14]):
        if tok.low == "because" and i >= 1 and i + 2 < len(clause.rest):
            aux, subj, verb = aux_and_verb(clause, text)
            words = ["why", aux, *subj, *verb, *render(clause.rest[:i], text)]
            return finish_question(words), clause.rest[i + 1].start, clause.rest[-1].end, "why"
    return None
