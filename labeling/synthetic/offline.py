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
shortened questions). Every answer span is tidied (``labeling.synthetic.spans``), carried on to
the end of its sentence, and given as offsets into the passage; the shared
``labeling.synthetic.rubric`` decides well-formedness. Precision first: the screens
(``labeling.synthetic.screens``) drop every form that graded below half on text the rules were
not written from ("What does X do if ...?", why-questions, tasks that name nothing); when
unsure, no question.
"""

from __future__ import annotations

import re

from labeling.synthetic import forms, keywords, reference, screens, subject_checks
from labeling.synthetic.binding import answer_is_name, is_bound, is_definition, passage_names
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.clause_questions import Found, from_clause
from labeling.synthetic.clauses import (
    Clause,
    Tok,
    base_form,
    find_clause,
    finish_question,
    is_number,
    noun_phrase,
    render,
    tokenize,
)
from labeling.synthetic.facts import acronyms, tables, times
from labeling.synthetic.labelled_lists import from_labelled_lists
from labeling.synthetic.lead import lead_draft
from labeling.synthetic.passage import Passage, Prose, read_passage
from labeling.synthetic.reference import Draft
from labeling.synthetic.rubric import rubric
from labeling.synthetic.spans import passage_span, to_sentence_end
from labeling.synthetic.subject import (
    Subject,
    deictic_fits,
    focus_of,
    is_deictic,
    is_named,
    name_deictics,
    topic_of,
)
from labeling.synthetic.used_for import used_for_drafts
from labeling.synthetic.words import (
    ALL_VERBS,
    CONDITIONS,
    PLACE_NOUNS,
    PREPOSITIONS,
)

GENERATOR = "offline"
# A condition about the reader ("if you lose your badge"): only then is advice asked for.
READER = frozenset("i you your my we our me".split())
# Imperatives that describe what a function does, not a reader's task.
REFERENCE_VERBS = frozenset("return returns print output list raise yield get set".split())
# Imperatives that point the reader elsewhere, not a task ("Try o conf init prefs_dir in the
# CPAN shell", "See the manual in ..."): a where-question of them reads as copied.
POINTERS = frozenset("try see consult refer note remember".split())
FUNCTION_OPENER = re.compile(r"(?:The\s+)?([A-Za-z_][\w.]*\(\))\s")
# Sections whose prose is about the document, not its subject, or says where a thing comes
# from, not what it does ("ALTER SUBSCRIPTION is a PostgreSQL extension." under COMPATIBILITY
# is no answer to "What is ALTER SUBSCRIPTION?").
SKIPPED_SECTIONS = frozenset({"COPYRIGHT", "LICENSE", "LICENCE", "REPORTING BUGS", "SEE ALSO",
                              "COLOPHON", "COMPATIBILITY", "CONFORMING TO", "STANDARDS"})


def fact_sentences(text: str, title: str | None = None) -> list[tuple[int, int]]:
    """Passage spans of the answers of the questions the generator asks of ``text`` (empty:
    nothing to ask). The sampler draws only such passages: a draft that no screen lets through,
    or a question the rubric objects to (batches keep only well-formed ones), is not something
    to ask."""
    return [(c.answer_start, c.answer_end) for c in generate("", text, title=title,
                                                             max_per_chunk=0) if c.well_formed]


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
        span = _whole_sentence(text, draft)
        if span is None:
            continue  # an answer cut short that cannot be made whole: not asked
        draft.span = span
        draft.answer = text[span[0]:span[1]]
        draft.question = subject_checks.name_owners(draft.question, topic, title,
                                                    text[:span[0]])
        if _screened(draft, text[span[1]:span[1] + 40], topic) or \
                not _bound(draft.question, draft.answer, names, topic) or \
                subject_checks.unnamed(draft.question, draft.answer, draft.structured, title,
                                       topic):
            continue  # an artefact, or a subject without evidence: no question, no query
        for question, form in _with_keyword(draft):
            if _same(question) in seen or screens.ARTEFACTS.search(question):
                continue
            seen.add(_same(question))
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
    out = _one_return_question(out)
    out.sort(key=lambda c: bool(c.problems))  # stable: well-formed first, text order kept
    return out[:max_per_chunk] if max_per_chunk else out


def _screened(draft: Draft, after: str, topic: Subject | None) -> bool:
    """Whether a screen (``labeling.synthetic.screens``) rejects the draft's question or its
    answer; ``after``: the passage text that follows the answer."""
    question, answer = draft.question, draft.answer
    return screens.misread(question) or screens.points_away(answer) or screens.bad_answer(
        question, answer) or screens.one_case(question, answer, after) or \
        screens.happens_unnamed(question, topic.name if topic is not None else "")


def _one_return_question(found: list[Candidate]) -> list[Candidate]:
    """Without "What does X return?" (and its query "X return value") when "What does X do?"
    is answered by what X returns ("Returns the unbiased exponent ...", "The
    sqlite3_user_data() interface returns ..."): the same question twice, the lead sentence's
    answer usually the fuller. X is compared as ``call_name`` reads it."""
    returning = {call_name(c.question.removeprefix("What does ").removesuffix(" do?"))
                 for c in found
                 if c.question.startswith("What does ") and c.question.endswith(" do?")
                 and RETURNS_ANSWER.match(c.answer)}

    def asks_return(question: str) -> bool:
        if question.startswith("What does ") and question.endswith(" return?"):
            return call_name(question.removeprefix("What does ").removesuffix(" return?")) \
                in returning
        return question.endswith(" return value") and \
            call_name(question.removesuffix(" return value")) in returning

    return [c for c in found if not asks_return(c.question)]


# An answer that says what its subject returns: "Returns ...", "The sqlite3_db_handle
# interface returns ...".
RETURNS_ANSWER = re.compile(r"(?i)(?:returns?\b|(?:the\s+)?\S+(?:\s+(?:interface|routine|"
                            r"function|method))?\s+returns\b)")


def call_name(phrase: str) -> str:
    """A function as questions name it, one way: "the sqlite3_db_name(D,N) interface",
    "sqlite3_db_name()" and "sqlite3_db_name" are all ``sqlite3_db_name()``."""
    phrase = re.sub(r"^the\s+|\s+(?:interface|routine|function|method)$", "", phrase.strip())
    return re.sub(r"\([^()]*\)$", "", phrase) + "()"


def _same(question: str) -> str:
    """What two questions that differ only in a call's argument list ("What does the
    sqlite3_stmt_readonly(X) interface return?") have in common."""
    return re.sub(r"\(([^()]*)\)", "()", question.lower())


def _whole_sentence(text: str, draft: Draft) -> tuple[int, int] | None:
    """A phrase answer carried on to the end of its sentence (``spans.to_sentence_end``). Left
    as they are: a one-word answer (a name, a command, a value), an acronym's expansion (the
    acronym follows it) and a how-to's means (the rest of the sentence is the task the
    question already asks)."""
    span = draft.span
    if len(text[span[0]:span[1]].split()) < 2 or draft.question.endswith(" stand for?") or \
            draft.question.startswith(("How do I ", "How can I ")):
        return span
    return to_sentence_end(text, *span)


def _bound(question: str, answer: str, names: set[str], topic: Subject | None) -> bool:
    """Whether the question's subject has evidence (``labeling.synthetic.binding``)."""
    return is_bound(question, names, topic) or is_definition(question, answer) or \
        answer_is_name(question, answer, names)


def _with_keyword(draft: Draft) -> list[tuple[str, str]]:
    """The draft's question, and its search-box query when its template has one
    (``labeling.synthetic.keywords``) and the question's subject was bound."""
    pairs = [(draft.question, forms.form_of(draft.question))]
    query = keywords.keyword_for(draft.question)
    if query and draft.subject is not None and not screens.ARTEFACTS.search(query):
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
    found += from_labelled_lists(text, title)
    found += used_for_drafts(passage, topic)
    lead = lead_draft(passage)
    return [lead, *found] if lead is not None else found


def _structured(passage: Passage, topic: Subject | None) -> list[Draft]:
    """Acronyms in prose and Markdown tables of the raw passage. A ``KEY: value`` line is not
    asked about ("What is DETAIL in the PostgreSQL ALTER COLLATION?", "What is FUN in the R base
    tapply?", "What is INFO in LLVM libFuzzer?": 1 of 70 accepted over six held-out kinds, a
    label, a log line's prefix or an argument read as a term)."""
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
        return []  # "If X, Y": a conditional question is not asked (screens.CONDITIONAL)
    if not _imperative(toks):
        clause = find_clause(toks)
        if clause is not None:
            subject = _resolve(clause, focus)
            if subject is not False:
                out += [(*q, subject) for q in from_clause(clause, unit.clean)]
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
    if verb in REFERENCE_VERBS or verb in POINTERS:
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

