"""The offline question generator: rules over fact-bearing sentences, no network, no model.

For each sentence of a chunk it looks for facts (``labeling.synthetic.facts``: numbers and
quantities, money, dates and times, places, acronyms, tables, ``key: value`` lines) and for
definitions, named roles, conditions and procedures, and moves the fact out of the clause
(``labeling.synthetic.clauses``) into a question word of the fitting kind ("How many days of
annual leave do full-time employees get?"). Every question carries the answer span as offsets
into the chunk text, and none is emitted whose span is not in the chunk. The shared
``labeling.synthetic.rubric`` decides well-formedness.
"""

from __future__ import annotations

from labeling.synthetic.candidate import Candidate
from labeling.synthetic.clauses import (
    Clause,
    Tok,
    aux_and_verb,
    base_form,
    find_clause,
    finish_question,
    is_number,
    noun_phrase,
    phrase,
    render,
    third_person,
    tokenize,
    trim_rest,
)
from labeling.synthetic.facts import (
    Question,
    acronyms,
    key_values,
    places,
    quantities,
    tables,
    times,
)
from labeling.synthetic.rubric import rubric
from labeling.synthetic.text import split_sentences
from labeling.synthetic.words import (
    BE,
    CONDITIONS,
    CONJUNCTIONS,
    MODALS,
    PREPOSITIONS,
    ROLES,
    VAGUE,
    VERBS,
)

GENERATOR = "offline"


def fact_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of ``text`` that state a fact the generator can ask about."""
    return [(a, b) for a, b in split_sentences(text) if _from_sentence(tokenize(text, a, b), text)]


def generate(chunk_id: str, text: str, *, max_per_chunk: int = 5) -> list[Candidate]:
    """Questions for one chunk, well-formed ones first (then in sentence order).

    Each candidate's answer span is checked against ``text``; ``problems`` holds the rubric's
    objections (kept so the reviewer and the statistics can see them).
    """
    found: list[tuple[str, int, int, str, str]] = []
    for a, b in split_sentences(text):
        sentence = text[a:b]
        if sentence.lstrip().startswith("|"):
            continue  # table rows are read by facts.tables
        for question, start, end, kind in _from_sentence(tokenize(text, a, b), text):
            found.append((question, start, end, kind, sentence))
    for question, start, end, kind in [*acronyms(text), *key_values(text), *tables(text)]:
        found.append((question, start, end, kind, _sentence_at(text, start)))
    seen: set[str] = set()
    out: list[Candidate] = []
    for question, start, end, kind, sentence in found:
        answer = text[start:end]
        if question.lower() in seen or not answer.strip() or answer not in text:
            continue
        seen.add(question.lower())
        out.append(Candidate(
            chunk_id=chunk_id, question=question, generator=GENERATOR, sentence=sentence,
            answer=answer, answer_start=start, answer_end=end, kind=kind,
            problems=rubric(question, sentence),
        ))
    out.sort(key=lambda c: bool(c.problems))  # stable: well-formed first, sentence order kept
    return out[:max_per_chunk]


def _sentence_at(text: str, offset: int) -> str:
    for a, b in split_sentences(text):
        if a <= offset < b:
            return text[a:b]
    return ""


# --- sentences ---------------------------------------------------------------------------------


def _from_sentence(toks: list[Tok], text: str) -> list[Question]:
    out: list[Question] = []
    if not toks:
        return out
    if toks[0].low in CONDITIONS:
        out += _condition(toks, text)
    if _imperative(toks):
        out += _procedure(toks, text)
        return out
    clause = find_clause(toks)
    if clause is not None:
        out += _from_clause(clause, text)
    return out


def _imperative(toks: list[Tok]) -> bool:
    """A sentence that starts with a base-form verb: "Submit expense claims within 60 days"."""
    if not toks or toks[0].low not in VERBS or (len(toks) > 1 and is_number(toks[1])):
        return False
    for i, tok in enumerate(toks[1:4], 1):
        if base_form(tok.text) and tok.low not in VERBS:  # an -s form: a verb, or a plural noun?
            after = toks[i + 1].low if i + 1 < len(toks) else ""
            if not (after in PREPOSITIONS or tok.brk or not after):
                return False  # "Release 4.2 introduces time windows": a subject and its verb
    return True


def _condition(toks: list[Tok], text: str) -> list[Question]:
    """ "If X, Y" -> "What should I do if X?" (Y an instruction) or "What happens if X?"."""
    comma = next((i for i, t in enumerate(toks[:18]) if t.brk), None)
    if not comma or comma + 1 >= len(toks):
        return []
    cond = render(toks[: comma + 1], text)
    main = toks[comma + 1:]
    lead = ["what", "should", "I", "do"] if _imperative(main) else ["what", "happens"]
    return [(finish_question([*lead, *cond]), main[0].start, main[-1].end, "what")]


def _procedure(toks: list[Tok], text: str) -> list[Question]:
    """An instruction: "Submit claims within 60 days" -> "When should I submit claims?", "Book
    rooms in the portal" -> "Where do I book rooms?", else "How do I ...?"."""
    out: list[Question] = []
    verb = toks[0].low
    clause = Clause([], [], toks[0], toks[1:])
    for (a, b), _, kind in times(clause):
        before = [t for t in clause.rest if t.end <= a]
        if before and not any(t.brk for t in before):
            words = ["when", "should", "I", verb, *render(before, text)]
            out.append((finish_question(words), a, b, kind))
    obj = noun_phrase(toks[1:])
    after = toks[1 + len(obj):]
    if obj and len(after) >= 2 and after[0].low in ("in", "through", "via", "on", "at"):
        place = noun_phrase(after[1:])
        if place:
            words = ["where", "do", "I", verb, *render(obj, text)]
            out.append((finish_question(words), after[0].start, place[-1].end, "where"))
    if len(toks) >= 3 and toks[1].low in PREPOSITIONS and not out:
        out.append((finish_question(["how", "do", "I", verb]), toks[1].start, toks[-1].end,
                    "how do i"))
    return out


# --- clauses -----------------------------------------------------------------------------------


def _from_clause(clause: Clause, text: str) -> list[Question]:
    out = []
    for (a, b), wh, kind in [*quantities(clause), *times(clause), *places(clause, text)]:
        question = _wh_question(clause, wh, (a, b), text)
        if question:
            out.append((question, a, b, kind))
    for ask in (_who, _definition, _object, _modal_object):
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
    pre = render(clause.pre, text) if clause.pre else []
    return finish_question([wh, aux, *subj, *verb, *render(before, text), *pre])


def _who(clause: Clause, text: str) -> Question | None:
    """A person or team does something: "Who approves ...?", the answer being the subject."""
    verb_base = base_form(clause.verb.text)
    if (
        clause.subj[-1].low not in ROLES or {t.low for t in clause.subj} & VAGUE
        or clause.verb.low in BE or not verb_base or not clause.rest
    ):
        return None
    verb = clause.verb.low if clause.verb.low != verb_base else third_person(verb_base)
    if clause.verb.low in MODALS:
        verb = clause.verb.low
    rest = render(trim_rest(clause.rest), text)
    return (finish_question(["who", verb, *rest]), clause.subj[0].start, clause.subj[-1].end,
            "who")


def _definition(clause: Clause, text: str) -> Question | None:
    """What is X: a definition ("A security incident is any event that ...")."""
    if not (
        clause.verb.low in ("is", "are") and not clause.pre and len(clause.subj) <= 6
        and clause.rest and clause.rest[0].low in ("a", "an", "any", "the", "one", "every")
        and not any(is_number(t) for t in clause.subj)
    ):
        return None
    subj = render(clause.subj, text)
    return (finish_question(["what", clause.verb.low, *subj]), clause.rest[0].start,
            clause.rest[-1].end, "what")


def _object(clause: Clause, text: str) -> Question | None:
    """What do X need: the object of a lexical verb."""
    verb_base = base_form(clause.verb.text)
    if not (
        verb_base and clause.verb.low not in BE and clause.rest
        and clause.rest[0].low not in PREPOSITIONS and not is_number(clause.rest[0])
        and verb_base not in ("be", "go", "come", "happen", "last", "start", "end", "run")
    ):
        return None
    obj = phrase(clause.rest, 7)
    if not obj:
        return None
    aux, subj, verb = aux_and_verb(clause, text)
    pre = render(clause.pre, text) if clause.pre else []
    return (finish_question(["what", aux, *subj, *verb, *pre]), obj[0].start, obj[-1].end,
            "what")


def _modal_object(clause: Clause, text: str) -> Question | None:
    """What may staff access: a modal and a main verb."""
    if not (
        clause.verb.low in MODALS and len(clause.rest) > 2 and clause.rest[0].low in VERBS
        and clause.rest[1].low not in PREPOSITIONS | {"not", "never", "be", "only"}
    ):
        return None
    obj = noun_phrase(clause.rest[1:])
    if not obj:
        return None
    subj = render(clause.subj, text, first_is_subject=True)
    pre = render(clause.pre, text) if clause.pre else []
    words = ["what", clause.verb.low, *subj, clause.rest[0].low, *pre]
    return finish_question(words), obj[0].start, obj[-1].end, "what"
