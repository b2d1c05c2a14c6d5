"""Questions from the parts of reference text: NAME lines, definition lists (options, keys,
errors, files), purpose sentences ("To X, use Y"), reference imperatives ("Return X", "Find
Y"), conditions and comparisons.

Every builder returns ``Draft``s whose question names its subject (the passage's topic or the
focus of the prose, see ``labeling.synthetic.subject``) and whose answer span is tidied
(``labeling.synthetic.spans``) and given as passage offsets. A builder that cannot name the
subject asks nothing: "How do I block?" is never written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from labeling.synthetic.clauses import (
    Tok,
    base_form,
    finish_question,
    is_proper,
    render,
    third_person,
    tokenize,
)
from labeling.synthetic.descriptions import describes, is_description
from labeling.synthetic.lines import COMMON_HEADINGS
from labeling.synthetic.passage import Passage, Prose
from labeling.synthetic.spans import passage_span
from labeling.synthetic.subject import COMMAND_LINE, Subject, focus_of, is_named, term_subject
from labeling.synthetic.words import ALL_VERBS, CONDITIONS, DETERMINERS, MODALS, PREPOSITIONS

# Words that end the predicate of a how-to question ("Force compression even if ...").
PREDICATE_ENDS = frozenset(
    "if unless when whenever even because since so which that while whereas where except "
    "instead rather".split()
)
# Words after which the rest of a sentence restricts what its verb phrase means.
RESTRICTING = frozenset("if unless when whenever which that where whether".split())
COMPARISON_CUES = re.compile(
    r"\b(unlike|differs? from|different from|whereas|compared (?:to|with)|in contrast to|"
    r"faster than|slower than|better than|more \w+ than|less \w+ than)\b",
    re.I,
)
CLASS_NOUNS = ("command", "function", "option", "program", "utility", "tool", "daemon",
               "library", "macro", "system call", "variable", "file", "service", "module")
SKIP_OPENERS = ("see", "note", "refer", "read", "consult", "check")
# Words that are nouns as often as verbs: an instruction only when an object follows.
NOUN_VERBS = frozenset(
    "output input list format process file name time test signal map link lock mark queue tag "
    "trace filter sort default dump patch power cache backup place switch split free sync log "
    "record report count access order display print return call control".split()
)
OBJECT_STARTS = DETERMINERS | frozenset("all it them these those one both out up".split())


@dataclass
class Draft:
    """A question before it is a candidate: the answer as passage offsets, the clean sentence
    it came from, the question-word family and the subject it names (None: none)."""

    question: str
    span: tuple[int, int]
    kind: str
    sentence: str
    subject: Subject | None
    structured: bool = True  # False: made by moving the words of a parsed clause
    answer: str = ""  # the passage text of the span, filled in by the generator


def words_of(unit: Prose, a: int, b: int) -> list[Tok]:
    return tokenize(unit.clean, a, b)


def predicate(toks: list[Tok], limit: int = 12, *, whole: bool = False) -> list[Tok]:
    """A verb phrase up to a clause boundary (comma, semicolon, subordinate word), at most
    ``limit`` words, without trailing determiners, prepositions or conjunctions. Empty when a
    comma cuts a list ("Set the real, effective, or both GIDs"), and with ``whole`` also when
    a restricting clause cuts it ("Produce a warning | if there are ...") or it is too long:
    what is left would ask for less than the sentence says."""
    out: list[Tok] = []
    for i, tok in enumerate(toks):
        if i >= limit:
            return [] if whole else out
        if i and tok.low in PREDICATE_ENDS:
            if whole and tok.low in RESTRICTING:
                return []
            break
        out.append(tok)
        if tok.brk or tok.text.endswith(";"):
            after = toks[i + 1].low if i + 1 < len(toks) else ""
            if after and after not in PREDICATE_ENDS | PREPOSITIONS | {"and", "or", "but",
                                                                        "then"}:
                return []
            if whole and after in RESTRICTING:
                return []
            break
    while out and (out[-1].low in DETERMINERS | PREPOSITIONS | {"and", "or", "but", "as"}):
        out.pop()
    return out


def conjugate(words: list[str]) -> list[str]:
    """A verb phrase in the third person: "compress or expand files" -> "compresses or expands
    files" (the first word, and words after "and"/"or" that are verbs)."""
    out = list(words)
    for i, word in enumerate(out):
        if i == 0 or (out[i - 1] in ("and", "or") and word.lower() in ALL_VERBS):
            if word.lower() in ALL_VERBS:
                out[i] = third_person(word.lower())
    return out


def _context(focus: Subject, topic: Subject | None, words: list[str]) -> list[str]:
    """" with gzip" (" with cargo clean") after a how-to whose answer is an option of the topic
    command, " with tarfile" after one answered by a function of the topic module."""
    if topic is None or (focus.kind, topic.kind) not in (
            ("option", "command"), ("option", "topic"), ("function", "topic")):
        return []
    if focus.kind == "function" and focus.name.lower() == topic.name.lower():
        return []
    if topic.name.lower() in " ".join(words).lower() or (
            len(topic.name.split()) > 1 and not COMMAND_LINE.fullmatch(topic.name)):
        return []  # named already, or a title phrase ("with Python reference") is no API
    return ["with", topic.name]


# ---------------------------------------------------------------------------------------------
# NAME lines


def from_name_line(passage: Passage, topic: Subject | None) -> list[Draft]:
    """``gzip, gunzip, zcat - compress or expand files``: "What does gzip do?", "Which command
    compresses or expands files?" and "How do I compress or expand files?"."""
    line = passage.name_line
    if line is None or not line.names:
        return []
    name = line.names[0]
    kind = topic.kind if topic is not None and topic.kind in ("command", "function") else ""
    summary = re.sub(r"\s*\(.*?\)\s*", " ", line.summary).strip().rstrip(".")
    summary = re.sub(r"^\((?:BETA|ALPHA|DEPRECATED)\)\s*", "", summary, flags=re.I)
    words = summary.split()
    if len(words) < 2:
        return []
    first = words[0].lower()
    subject = Subject(f"{name}()" if kind == "function" else name, name, kind or "topic")
    sentence = f"{', '.join(line.names)} - {line.summary}"
    out = []
    verb = first in ALL_VERBS or base_form(first) is not None
    if verb:
        out.append(Draft(finish_question(["what", "does", subject.phrase, "do"]), line.span,
                         "what", sentence, subject))
        lowered = [words[0].lower(), *words[1:]]
        if kind and len(words) >= 3:
            out.append(Draft(finish_question(["which", kind, *conjugate(lowered)]),
                             line.names_span, "which", sentence, subject))
        if len(words) >= 3:
            out.append(Draft(finish_question(["how", "do", "I", *lowered]), line.names_span,
                             "how do i", sentence, subject))
    else:
        out.append(Draft(finish_question(["what", "is", subject.phrase]), line.span, "what",
                         sentence, subject))
    return out


# ---------------------------------------------------------------------------------------------
# Definition lists


# A section's number in a title: "13.5.", "8.", "2.4.1".
SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.?$")


def _owner(focus: Subject, topic: Subject | None) -> list[str]:
    """"in <topic>" after a question on a term or key of the topic, unless the focus names the
    topic already; a topic that ends with the focus's name ("PostgreSQL VACUUM" on the term
    VACUUM) gives what comes before it ("in PostgreSQL"), not the term twice, and a title in
    words of more than three gives its first, the product ("What is CONTENT_LENGTH in Django?",
    not "... in Django Request and response objects?", which reads as pasted: 0 of 5 accepted),
    as does a numbered heading ("What is E_TAX1 in GnuCash?", not "... in GnuCash Guide 13.5.
    Payroll?")."""
    if topic is None or topic.name.lower() in focus.phrase.lower():
        return []
    if topic.name.lower().endswith(" " + focus.name.lower()):
        return ["in", topic.name[:-len(focus.name)].strip()]
    words = topic.name.split()
    if len(words) > 3 and words[0][:1].isupper() and any(w.isalpha() and w.islower()
                                                         for w in words[1:]):
        return ["in", words[0]]  # a page's title in words ("Django Request and response ...")
    if len(words) > 1 and any(SECTION_NUMBER.match(w) for w in words[1:]):
        return ["in", words[0]]  # a numbered heading ("GnuCash Guide 13.5. Payroll")
    return ["in", topic.name]


def from_term(passage: Passage, unit: Prose, topic: Subject | None) -> list[Draft]:
    """The first sentence of a term's description: what the option/key/error is or does, and a
    how-to when the description is an instruction ("Keep input files" -> "How do I keep input
    files with gzip?", answered by the option)."""
    if not unit.term or not unit.sentences or unit.term_span is None:
        return []
    focus = term_subject(unit.term, unit.heading, topic)
    a, b = unit.sentences[0]
    sentence = unit.clean[a:b]
    toks = words_of(unit, a, b)
    toks = [t for t in toks if not t.paren]
    if len(toks) < 2:
        return []
    end = b
    if re.match(r"(by default|normally|usually|traditionally|historically)\b", sentence, re.I) \
            and len(unit.sentences) > 1:
        end = unit.sentences[1][1]  # the default first, then what the option changes
    span = passage_span(unit, a, end, (a, end))
    out: list[Draft] = []
    first = toks[0].low
    condition = first in CONDITIONS
    where = _owner(focus, topic) if focus.kind in ("key", "term") else []
    if span is not None:
        if focus.kind == "error":
            where = f" {unit.owner}" if unit.owner else (
                f" {topic.phrase}" if topic is not None else "")
            question = f"When does{where} fail with {focus.name}?" if where else \
                f"What does the error {focus.name} mean?"
            out.append(Draft(question, span, "when", sentence, focus))
        elif focus.kind == "path":
            out.append(Draft(finish_question(["what", "is", focus.phrase, "used", "for"]), span,
                             "what", sentence, focus))
        elif focus.kind in ("option", "variable") or condition or base_form(first):
            out.append(Draft(finish_question(["what", "does", focus.phrase, "do", *where]),
                             span, "what", sentence, focus))
        else:
            out.append(Draft(finish_question(["what", "is", focus.phrase, *where]), span,
                             "what", sentence, focus))
    out += _imperative(unit, toks, sentence, focus, topic, answer=unit.term_span)
    return out


# ---------------------------------------------------------------------------------------------
# Instructions


def _signature_description(unit: Prose, a: int, b: int, focus: Subject | None) -> list[Draft]:
    """The first sentence under a function's signature, when it describes the function: "What
    does mapnew() do?" answered by "Like map() but instead of replacing items ... a new List or
    Dictionary is created and returned" (``labeling.synthetic.descriptions``); not one that
    opens on an argument's name."""
    sentence = unit.clean[a:b].strip()
    if focus is None or focus.kind != "function" or not is_description(sentence) or \
            not describes(sentence.split(), focus) or _about_argument(sentence, unit.arguments):
        return []
    end = b - 1 if unit.clean[b - 1] == "." else b
    return [Draft(f"What does {focus.phrase} do?", unit.raw_span(a, end), "what", sentence,
                  focus)]


def _about_argument(sentence: str, arguments: tuple[str, ...]) -> bool:
    """Whether ``sentence`` opens on one of the signature's argument names: it says what the
    argument is ("Text is the text to be repeated." under "REPT("Text"; Number)", LibreOffice's
    help, round 53), not what the function does."""
    first = sentence.split()[0].strip("\"'`\u2018\u2019\u201c\u201d,:").lower()
    return first in {name.lower() for name in arguments}


def _imperative(unit: Prose, toks: list[Tok], sentence: str, focus: Subject | None,
                topic: Subject | None, *, answer: tuple[int, int] | None) -> list[Draft]:
    """A reference imperative about ``focus``: "Return X" -> "What does <focus> return?";
    "Find Y" -> "How do I find Y?" answered by ``answer`` (the label naming the focus)."""
    if focus is None or not toks:
        return []
    if answer is not None and toks[0].low not in ALL_VERBS and toks[0].text[:1].isupper() \
            and base_form(toks[0].text) and toks[0].low.endswith("s"):
        toks = [replace(toks[0], text=base_form(toks[0].text).capitalize()), *toks[1:]]
        # "Creates X" describes the signature above it as "Create X" would
    verb = toks[0].low
    if verb not in ALL_VERBS or verb in SKIP_OPENERS or (len(toks) > 1 and toks[1].low in (
        "not", "n't"
    )) or verb == "do":
        return []
    if verb in NOUN_VERBS and len(toks) > 1 and toks[1].low not in OBJECT_STARTS:
        return []  # "Output file to place the data into": a noun phrase, not an instruction
    if verb == "return" and len(toks) > 1 and toks[1].low not in ("immediately", "to"):
        obj = predicate(toks[1:], 10)
        if not obj:
            return []
        span = passage_span(unit, obj[0].start, obj[-1].end)
        if span is None:
            return []
        return [Draft(finish_question(["what", "does", focus.phrase, "return"]), span, "what",
                      sentence, focus)]
    pred = predicate(toks, whole=True)
    if len(pred) < 2 or answer is None:
        return []  # "How do I block?": no object, nothing to search for
    words = render(pred, unit.clean)
    words[0] = verb
    context = _context(focus, topic, words)
    return [Draft(finish_question(["how", "do", "I", *words, *context]), answer, "how do i",
                  sentence, focus)]


# What a purpose sentence's main clause says when it states a requirement, not a way: "you must
# (also) be a superuser", "the user must have USAGE privilege", "you need to own the table".
REQUIREMENT = re.compile(r"(?i)(?:you|the user|the caller|one|users?)\s+(?:must|need to|"
                         r"have to)\s+(?:also\s+|either\s+)?(?:be|have|own|hold)\b")


# Verbs that begin the instruction of "To <goal>, use ..." when the comma is left out.
INSTRUCTION_VERBS = frozenset({"use", "call", "run", "see", "pass", "set"})


def from_purpose(unit: Prose, a: int, b: int, focus: Subject | None, topic: Subject | None
                 ) -> list[Draft]:
    """"To extract zip files with several members, use unzip instead of gunzip." -> "How do I
    extract zip files with several members?" answered by the instruction (or by the example
    that follows a sentence ending with a colon)."""
    toks = words_of(unit, a, b)
    if len(toks) < 4 or toks[0].low != "to" or base_form(toks[1].text) is None:
        return []
    comma = next((i for i, t in enumerate(toks[:16]) if t.brk), None)
    # "To obtain a GtkPageSetup use gtk_page_setup_new() to get the defaults, or ...": the
    # instruction begins at its verb when no comma marks it and a name follows the verb
    comma = next((i - 1 for i in range(3, comma or 0) if toks[i].low in INSTRUCTION_VERBS
                  and toks[i - 1].low not in ("to", *MODALS) and is_named(toks[i + 1].text)),
                 comma)
    if comma is None or comma + 1 >= len(toks) or comma < 2:
        return []
    if REQUIREMENT.match(unit.clean[toks[comma + 1].start:b]):
        return []  # "To use ALTER POLICY, you must own the table": what it takes, not how
    goal = [t for t in toks[1:comma + 1] if not t.paren]
    if len(goal) < 2:
        return []
    words = render(goal, unit.clean)
    words[0] = words[0].lower()
    sentence = unit.clean[a:b]
    last = b >= len(unit.clean.rstrip())
    example = sentence.endswith(":") or (len(toks) - comma - 1 <= 2 and last)
    if example and (unit.example is None or not last):
        return []  # "..., run:" with no command after it
    span = unit.example if example else passage_span(unit, toks[comma + 1].start, b, (a, b))
    if span is None:
        return []
    named = any(is_named(w) for w in words) or (
        topic is not None and topic.name.lower() in " ".join(words).lower())
    context = [] if named or example or topic is None or topic.kind != "command" \
        else ["with", topic.name]
    subject = topic if context else (focus if named else None)
    return [Draft(finish_question(["how", "do", "I", *words, *context]), span, "how do i",
                  sentence, subject)]


# Nouns that measure what the infinitive after them does ("the time to keep connections
# alive", "the number of seconds to wait"): the object set is a quantity for it, not a means.
MEASURES = frozenset("time number amount size maximum minimum limit period interval timeout "
                     "duration delay count length seconds".split())


def from_use_to(unit: Prose, a: int, b: int, topic: Subject | None) -> list[Draft]:
    """"Use --kill-whom= to select which processes to signal." -> "How do I select which
    processes to signal?" answered by what to use (in an option's description: the option)."""
    toks = words_of(unit, a, b)
    if len(toks) < 4 or toks[0].low not in ("use", "run", "call", "pass", "set"):
        return []
    to = next((i for i, t in enumerate(toks[2:10], 2) if t.low == "to" and i + 1 < len(toks)
               and base_form(toks[i + 1].text)), None)
    if to is None or toks[to - 1].low in MEASURES:
        return []  # "Set the time to keep idle connections alive": what is set, not a way
    goal = predicate(toks[to + 1:], whole=True)
    if len(goal) < 2:
        return []
    if unit.term_span is not None:  # an option's description: the option is what to use
        span = unit.term_span
    else:
        span = passage_span(unit, toks[1].start, toks[to - 1].end)
    if span is None:
        return []
    words = render(goal, unit.clean)
    named = any(is_named(w) for w in words) or (
        topic is not None and topic.name.lower() in " ".join(words).lower())
    context = [] if named or topic is None or topic.kind != "command" else ["with", topic.name]
    return [Draft(finish_question(["how", "do", "I", *words, *context]), span, "how do i",
                  unit.clean[a:b], topic if context else None)]


# ---------------------------------------------------------------------------------------------
# Comparisons


def named_things(unit: Prose, toks: list[Tok], topic: Subject | None,
                 extra: list[str]) -> list[Tok]:
    """Tokens naming a thing: code-like words, the topic and the passage's names, and a word
    between "the" and a class noun ("the zcat command")."""
    out = []
    known = {n.lower() for n in extra}
    if topic is not None:
        known.add(topic.name.lower())
    for i, tok in enumerate(toks):
        if tok.paren:
            continue
        before = toks[i - 1].low if i else ""
        after = toks[i + 1].low if i + 1 < len(toks) else ""
        if tok.text in COMMON_HEADINGS:
            continue
        if is_named(tok.text) or tok.low in known or (
            before == "the" and after in CLASS_NOUNS and tok.text.islower()
        ) or (tok.text[:1].isupper() and i and is_proper(tok, unit.clean)
              and after in CLASS_NOUNS):
            out.append(tok)
    return out


def from_comparison(unit: Prose, a: int, b: int, topic: Subject | None, names: list[str]
                    ) -> list[Draft]:
    """A sentence contrasting two named things -> "What is the difference between A and B?",
    answered by the sentence."""
    sentence = unit.clean[a:b]
    cue = COMPARISON_CUES.search(sentence)
    if cue is None or len(sentence.split()) > 45:
        return []
    toks = words_of(unit, a, b)
    things = named_things(unit, toks, topic, names)
    cut = a + cue.start()
    subject_zone = toks[6].start if len(toks) > 6 else b
    left = [t for t in things if t.end <= cut and t.start < subject_zone]
    right = [t for t in things if t.start >= a + cue.end()]
    if not left or not right:
        return []  # the first thing must be what the sentence is about: its subject
    lead = [t for t in toks if not t.paren][:2]
    if left[0] not in lead or (left[0] is not lead[0] and lead[0].low not in ("the", "a", "an")):
        return []  # "Like A but uses B", "If A is False, ...": A is not the sentence's subject
    after = toks[toks.index(right[0]) + 1] if toks.index(right[0]) + 1 < len(toks) else None
    if after is not None and not right[0].brk and after.text.isalpha() and after.text.islower() \
            and after.low not in ALL_VERBS | PREPOSITIONS | RESTRICTING | {"and", "or"}:
        return []  # "differs from other Node.js streams": the second name only qualifies
    first, second = left[0].text, right[0].text
    if first.lower().rstrip("()") == second.lower().rstrip("()"):
        return []
    span = passage_span(unit, a, b, (a, b))
    if span is None:
        return []
    question = f"What is the difference between {first} and {second}?"
    return [Draft(question, span, "comparison", sentence, Subject(first, first, "term"))]


# ---------------------------------------------------------------------------------------------
# The passage


def from_passage(passage: Passage, topic: Subject | None) -> list[Draft]:
    """All reference-text drafts of a passage, in text order."""
    out = from_name_line(passage, topic)
    names = passage.name_line.names if passage.name_line is not None else []
    for unit in passage.prose:
        focus = focus_of(unit, topic)
        if unit.term and unit.first_of_term:
            out += from_term(passage, unit, topic)
        for index, (a, b) in enumerate(unit.sentences):
            toks = words_of(unit, a, b)
            if len(toks) < 3:
                continue
            if index == 0 and unit.signature and unit.first_of_signature and not unit.term:
                answer = unit.signature_span
                out += _signature_description(unit, a, b, focus)
                out += _imperative(unit, [t for t in toks if not t.paren], unit.clean[a:b],
                                   focus, topic, answer=answer)
            out += from_purpose(unit, a, b, focus, topic)
            out += from_use_to(unit, a, b, topic)
            out += from_comparison(unit, a, b, topic, names)
    return out
