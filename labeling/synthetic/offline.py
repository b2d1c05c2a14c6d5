"""The offline question generator: rules over a passage read as a document, no network, no model.

The passage is read first (``labeling.synthetic.passage``): only prose becomes questions; code,
prompts, comments, tables, option labels and markup are recognised and left out, and wrapped
lines are joined. Its topic and the focus of each piece of prose (``labeling.synthetic.subject``)
give every question a named subject: a sentence that says "it", "this option" or "the function"
is asked about its focus, or not at all.

Questions come from reference structure (``labeling.synthetic.reference``: NAME lines,
definition lists of options, keys and errors, "To X, use Y", reference imperatives,
comparisons) and from clauses of prose sentences (``labeling.synthetic.clauses`` and
``labeling.synthetic.facts``: quantities, times, places, definitions, named roles, conditions,
objects, causes and means), in the forms of ``labeling.synthetic.forms`` (keyword queries are
shortened questions). Every answer span is tidied (``labeling.synthetic.spans``) and given as
offsets into the passage; the shared ``labeling.synthetic.rubric`` decides well-formedness.
"""

from __future__ import annotations

import re

from labeling.synthetic import forms, keywords, reference
from labeling.synthetic.binding import answer_is_name, is_bound, is_definition, passage_names
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
from labeling.synthetic.facts import acronyms, key_values, places, quantities, tables, times
from labeling.synthetic.passage import Passage, Prose, read_passage
from labeling.synthetic.reference import Draft
from labeling.synthetic.rubric import rubric
from labeling.synthetic.spans import passage_span
from labeling.synthetic.subject import (
    Subject,
    deictic_fits,
    focus_of,
    is_deictic,
    is_named,
    name_deictics,
    topic_of,
)
from labeling.synthetic.words import (
    ALL_VERBS,
    BE,
    CONDITIONS,
    CONJUNCTIONS,
    DETERMINERS,
    MODALS,
    PLACE_NOUNS,
    PREPOSITIONS,
    QUESTION_WORDS,
    ROLES,
    VAGUE,
)

GENERATOR = "offline"
# Verbs whose object makes a poor question on its own ("What does gzip have?").
WEAK_VERBS = frozenset("be go come happen last start end run have do make get take see "
                       "mean use need".split())
MEANS = frozenset({"using", "via", "through"})
# A condition about the reader ("if you lose your badge"): only then is advice asked for.
READER = frozenset("i you your my we our me".split())
# Source artefacts a person would not type: reST/Markdown markup, "--" dashes, stray quotes.
ARTEFACTS = re.compile(r"\s--\s|[`*^]|\s=|(?:^|\s)'|'(?:\s|\?)|(?:^|\s)[-+]{1,2}\w[\w-]*,?\s+"
                       r"[-+]{1,2}\w")
# Imperatives that describe what a function does, not a reader's task.
REFERENCE_VERBS = frozenset("return returns print output list raise yield get set".split())
# A question whose subject slot holds an adverb or a gerund: "What do always read?", "What
# does using all for COMPONENT launch?" (a definition-list label or a clause misread).
NO_SUBJECT = re.compile(r"^What (?:do|does|did) (?:always|never|not|only|also|using|\w+ly)\b")
FUNCTION_OPENER = re.compile(r"(?:The\s+)?([A-Za-z_][\w.]*\(\))\s")
# Sections whose prose is about the document, not its subject.
SKIPPED_SECTIONS = frozenset({"COPYRIGHT", "LICENSE", "LICENCE", "REPORTING BUGS", "SEE ALSO",
                              "COLOPHON"})


def fact_sentences(text: str, title: str | None = None) -> list[tuple[int, int]]:
    """Passage spans of the answers the generator finds in ``text`` (empty: nothing to ask)."""
    return [c.span for c in drafts(text, title)]


def generate(chunk_id: str, text: str, *, title: str | None = None,
             max_per_chunk: int = 5) -> list[Candidate]:
    """Questions for one passage: well-formed ones first, then in text order.

    Each candidate carries its form, its answer span (passage offsets, ``text[start:end] ==
    answer``) and the rubric's objections in ``problems``; a keyword query is added for a
    question whose subject is named.
    """
    out: list[Candidate] = []
    seen: set[str] = set()
    topic = topic_of(title, read_passage(text, title))
    names = passage_names(text, title)
    for draft in drafts(text, title):
        draft.answer = text[draft.span[0]:draft.span[1]]
        if ARTEFACTS.search(draft.question) or NO_SUBJECT.search(draft.question) or \
                _verb_for_subject(draft.question) or _preposition_twice(draft.question) or \
                not _bound(draft.question, draft.answer, names, topic):
            continue  # an artefact, or a subject without evidence: no question, no query
        for question, form in _with_keyword(draft):
            if question.lower() in seen or ARTEFACTS.search(question):
                continue
            seen.add(question.lower())
            start, end = draft.span
            answer = text[start:end]
            if not answer.strip():
                continue
            out.append(Candidate(
                chunk_id=chunk_id, question=question, generator=GENERATOR,
                sentence=draft.sentence, answer=answer, answer_start=start, answer_end=end,
                kind=draft.kind if form != "keyword" else "keyword", form=form,
                subject=draft.subject.name if draft.subject is not None else "",
                structured=draft.structured,
                problems=rubric(question, draft.sentence, form=form),
            ))
    out.sort(key=lambda c: bool(c.problems))  # stable: well-formed first, text order kept
    return out[:max_per_chunk] if max_per_chunk else out


def _verb_for_subject(question: str) -> bool:
    """"Where does create link to each TARGET ...?", "What does disallow processing file?": a
    verb where the subject should be."""
    words = question.rstrip("?").split()
    for i, word in enumerate(words[:-1]):
        if word.lower() in ("do", "does", "did") and i <= 3:
            after, then = words[i + 1], (words[i + 2:] or [""])[0]
            return after.islower() and after in ALL_VERBS and not is_named(after) and not (
                then[:1].isdigit() or is_named(then))  # "release 4.2" is a noun
    return False


def _preposition_twice(question: str) -> bool:
    """"How many stages does APT work in its internal resolver in?": a preposition left behind
    that the question already used."""
    words = question.rstrip("?").lower().split()
    return len(words) > 3 and words[-1] in PREPOSITIONS and words[-1] in words[:-1]


def _bound(question: str, answer: str, names: set[str], topic: Subject | None) -> bool:
    """Whether the question's subject has evidence (``labeling.synthetic.binding``)."""
    return is_bound(question, names, topic) or is_definition(question, answer) or \
        answer_is_name(question, answer, names)


def _with_keyword(draft: Draft) -> list[tuple[str, str]]:
    """The draft's question, and its search-box query when its template has one
    (``labeling.synthetic.keywords``) and the question's subject was bound."""
    pairs = [(draft.question, forms.form_of(draft.question))]
    query = keywords.keyword_for(draft.question)
    if query and draft.subject is not None and not ARTEFACTS.search(query):
        pairs.append((query, "keyword"))
    return pairs


def drafts(text: str, title: str | None = None) -> list[Draft]:
    """Every question the rules find in the passage, in text order (duplicates included)."""
    passage = read_passage(text, title)
    topic = topic_of(title, passage)
    found = reference.from_passage(passage, topic)
    for unit in passage.prose:
        if unit.heading.upper() in SKIPPED_SECTIONS:
            continue
        focus = focus_of(unit, topic)
        for a, b in unit.sentences:
            found += _from_sentence(unit, a, b, focus, topic)
            opener = FUNCTION_OPENER.match(unit.clean[a:b])
            if opener and not unit.term:  # "envz_merge() adds ...": the next sentences' subject
                name = opener.group(1)
                focus = Subject(name, name.rstrip("()"), "function")
    found += _structured(passage, topic)
    return found


def _structured(passage: Passage, topic: Subject | None) -> list[Draft]:
    """Acronyms in prose, Markdown tables and ``key: value`` lines of the raw passage."""
    out: list[Draft] = []
    for unit in passage.prose:
        for question, start, end, kind in acronyms(unit.clean):
            span = passage_span(unit, start, end)
            if span is not None:
                acronym = question.split()[2]
                out.append(Draft(question, span, kind, passage.sentence_at(span[0]),
                                 Subject(acronym, acronym, "term")))
    text = passage.text
    for question, start, end, kind in tables(text):
        out.append(Draft(question, (start, end), kind, text[start:end], topic))
    for question, start, end, kind in key_values(text):
        if not any(b.kind == "prose" for b in passage.blocks if b.start <= start < b.end + 1):
            continue
        if topic is not None and topic.name.lower() not in question.lower():
            question = f"{question[:-1]} in {topic.phrase}?"
        out.append(Draft(question, (start, end), kind, text[start:end], topic))
    return out


# --- sentences ---------------------------------------------------------------------------------


def _from_sentence(unit: Prose, a: int, b: int, focus: Subject | None,
                   topic: Subject | None) -> list[Draft]:
    sentence = unit.clean[a:b]
    if not sentence.rstrip(")\"'").endswith((".", "!")) or len(sentence.split()) < 4:
        return []  # a heading, a label or a line cut short: not a sentence to parse
    toks = tokenize(unit.clean, a, b)
    if toks and toks[0].low in ("note", "warning", "caution", "important") and toks[0].brk:
        toks = toks[1:]
    if not toks or all(t.paren for t in toks):
        return []
    out: list[tuple[str, int, int, str, Subject | None]] = []
    if toks[0].low in CONDITIONS:
        out += _condition(toks, unit.clean, focus)
    elif not _imperative(toks):
        clause = find_clause(toks)
        if clause is not None:
            subject = _resolve(clause, focus)
            if subject is not False:
                out += [(*q, subject) for q in _from_clause(clause, unit.clean)]
    else:
        out += [(*q, None) for q in _procedure(toks, unit.clean)]
    drafted = []
    for question, start, end, kind, subject in out:
        named = name_deictics(question, focus)
        if named is not None and focus is not None and named.count(focus.phrase) > 1:
            named = re.sub(rf"^What does {re.escape(focus.phrase)} do (if|when) ",
                           r"What happens \1 ", named)  # the subject once, not twice
        span = passage_span(unit, start, end, (a, b))
        if named is not None and not _names_its_subject(named, focus, topic):
            continue  # "What can I specify?": a task without the API it belongs to
        if span is not None and named is not None:
            drafted.append(Draft(named, span, kind, sentence, subject or _named_in(
                named, topic), structured=False))
    return drafted


def _named_in(question: str, topic: Subject | None) -> Subject | None:
    """The subject a question names: the topic when it mentions it, else its first naming
    token."""
    if topic is not None and topic.name.lower() in question.lower():
        return topic
    for word in question.rstrip("?").split()[1:]:
        word = word.strip(",;:")
        if is_named(word):
            return Subject(word, word, "term")
    return None


def _resolve(clause: Clause, focus: Subject | None) -> Subject | None | bool:
    """Name a deictic subject after the focus ("This option" -> "the --keep option of gzip");
    complete one that names the focus short ("The -version option" -> "the -version option of
    xset"); False when it cannot be named."""
    words = [t.text for t in clause.subj]
    if focus is not None and focus.kind == "topic" and is_deictic(words):
        return False  # "It" under a page or module title: often a neighbouring thing
    if not is_deictic(words):
        if focus is not None and focus.phrase != focus.name and any(
            w == focus.name for w in words
        ) and len(words) <= 4:
            clause.named = focus.phrase.split()
            return focus
        return None
    if not deictic_fits(words, focus):
        return False
    clause.named = focus.phrase.split()
    return focus


def _imperative(toks: list[Tok]) -> bool:
    """A sentence that starts with a base-form verb: "Submit expense claims within 60 days"."""
    if not toks or toks[0].low not in ALL_VERBS or (len(toks) > 1 and is_number(toks[1])):
        return False
    for i, tok in enumerate(toks[1:4], 1):
        if base_form(tok.text) and tok.low not in ALL_VERBS:  # -s form: a verb or a plural?
            after = toks[i + 1].low if i + 1 < len(toks) else ""
            if not (after in PREPOSITIONS or tok.brk or not after):
                return False  # "Release 4.2 introduces time windows": a subject and its verb
    return True


Found = tuple[str, int, int, str]


def _condition(toks: list[Tok], text: str, focus: Subject | None
               ) -> list[tuple[str, int, int, str, Subject | None]]:
    """"If X, Y" -> "What does <subject> do if X?" (or "What should I do if X?" when Y is an
    instruction to the reader). Without a subject to name, nothing is asked."""
    comma = next((i for i, t in enumerate(toks[:18]) if t.brk or (
        i + 1 < len(toks) and toks[i + 1].low == "then")), None)
    if not comma or comma + 1 >= len(toks) or comma > 14:
        return []
    main = toks[comma + 1:]
    while main and main[0].low in ("or", "and", "then"):
        if main[0].low != "then":
            return []  # "If A, or if B, ...": a list of conditions
        main = main[1:]
    if len(main) < 3:
        return []
    cond = render(toks[: comma + 1], text)
    if _imperative(main):
        if len(cond) < 4 or not READER.intersection(w.lower() for w in cond):
            return []  # "If n is None, list all counts": what the function does, not advice
        return [(finish_question(["what", "should", "I", "do", *cond]), main[0].start,
                 main[-1].end, "what", None)]
    clause = find_clause(main)
    if clause is not None:
        subject = _resolve(clause, focus)
        verb = base_form(clause.verb.text)
        if subject is not False and verb and clause.verb.low not in BE | MODALS \
                and verb not in WEAK_VERBS and clause.rest and (
                    subject is not None or _names_something(clause.subj)):
            obj = phrase(clause.rest, 8)
            obj = _whole(obj, clause.rest)
            if obj and clause.rest[0].low not in PREPOSITIONS:
                aux, subj, verb_words = aux_and_verb(clause, text)
                return [(finish_question(["what", aux, *subj, *verb_words, *cond]),
                         obj[0].start, obj[-1].end, "what", subject)]
    if focus is not None and focus.kind in ("command", "function", "option", "key",
                                            "variable", "term"):
        if focus.name.lower() in " ".join(cond).lower():  # "if gzip fails": no "gzip" twice
            return [(finish_question(["what", "happens", *cond]), main[0].start, main[-1].end,
                     "what", focus)]
        return [(finish_question(["what", "does", focus.phrase, "do", *cond]), main[0].start,
                 main[-1].end, "what", focus)]
    return []  # "What happens if stream is not specified?": whose stream?


def _names_its_subject(question: str, focus: Subject | None, topic: Subject | None) -> bool:
    """A question asked by the reader ("What can I ...?") must name the thing it is about."""
    words = question.rstrip("?").split()
    if not READER.intersection(w.lower() for w in words):
        return True
    low = question.lower()
    return any(is_named(w) for w in words) or any(
        s is not None and s.name.lower() in low for s in (focus, topic))


def _names_something(words: list[Tok]) -> bool:
    return any(is_named(t.text) for t in words)


def _procedure(toks: list[Tok], text: str) -> list[Found]:
    """An instruction: "Submit claims within 60 days" -> "When should I submit claims?", "Book
    rooms in the portal" -> "Where do I book rooms?". A bare "How do I <verb>?" is never asked:
    it names nothing."""
    out: list[Found] = []
    verb = toks[0].low
    if verb in REFERENCE_VERBS:
        return []  # "Return the number of CPUs in the system": what a function does
    clause = Clause([], [], toks[0], toks[1:])
    for (a, b), _, kind in times(clause):
        before = [t for t in clause.rest if t.end <= a]
        if before and not any(t.brk for t in before):
            words = ["when", "should", "I", verb, *render(before, text)]
            out.append((finish_question(words), a, b, kind))
    obj = noun_phrase(toks[1:])
    after = toks[1 + len(obj):]
    if obj and len(after) >= 2 and after[0].low in ("in", "through", "via"):
        place = noun_phrase(after[1:])
        if place and (place[-1].low in PLACE_NOUNS or any(is_named(t.text) for t in place)
                      or any(t.text[:1].isupper() and i for i, t in enumerate(place))):
            words = ["where", "do", "I", verb, *render(obj, text)]
            out.append((finish_question(words), after[0].start, place[-1].end, "where"))
    return out


# --- clauses -----------------------------------------------------------------------------------


def _from_clause(clause: Clause, text: str) -> list[Found]:
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
    obj = _whole(phrase(clause.rest, 7, _OBJECT_ENDS), clause.rest)
    if not _informative(obj):
        return None
    aux, subj, verb = aux_and_verb(clause, text)
    pre = render(clause.pre, text) if clause.pre else []
    return (finish_question(["what", aux, *subj, *verb, *pre]), obj[0].start, obj[-1].end,
            "what")


_OBJECT_ENDS = (PREPOSITIONS - {"of"}) | CONJUNCTIONS | {"that", "which", "using", "via",
                                                        "unless", "if", "when", "because"}


PARTICIPLES = frozenset("built made given set done found kept sent shown known run held".split())
DEPENDENTS = frozenset("as to with for of in on from by into that which who whose".split())


def _whole(obj: list[Tok], rest: list[Tok]) -> list[Tok]:
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
