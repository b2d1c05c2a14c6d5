"""Whether a question's subject is bound with evidence: precision before recall.

A question is kept only when it names something the passage gives evidence for (issue 32): a
code-like or all-capital token (``is_named``), a word the passage quotes as a name (‘sed’,
'gpgv', ``JSONDecoder``), the single-word part of the title after its colon ("posix: readv"),
a capitalised name inside the question ("the Translation Project"), a content word of the
heading the passage is under (the title after its colon, and the part before it when that is
a name of several words: "Leave policy: Annual leave" binds "leave" and "policy", "coreutils:
cp invocation" binds "cp"), the topic when the topic is a command or function
of a manual page, a definition ("What is a security incident?" from "A security incident is
any event ..."), and a how-to whose answer is itself a name (the signature it belongs to). A
page or module title of no such kind ("coreutils", "json") is where the passage sits, not
evidence of what a sentence is about.
A call (``sqrt()``) is a name: its parentheses say so.
Questions that still point ("such", "this", "another use") or copy an example's framing ("for
example") are not bound either.
"""

from __future__ import annotations

import re

from labeling.synthetic.subject import Subject, is_named, title_parts
from labeling.synthetic.words import QUESTION_WORDS

QUOTED = re.compile(r"[‘'`\"]{1,2}([^\s‘’'`\"]{1,40})[’'`\"]{1,2}")
UNBOUND = re.compile(r"\b(such|this|these|those|another|above|below|following|for example|for "
                     r"instance|e\.g|in addition|for that reason|in that case)\b", re.I)
BOUND_KINDS = ("command", "function", "option", "key", "variable", "error", "path")


HEADING_STOPWORDS = frozenset("the a an of and or to in on for with by from at as is are its "
                               "invocation options option introduction overview usage "
                               "description examples example details notes general".split())


def passage_names(text: str, title: str | None) -> set[str]:
    """Lower-cased names the passage or its title gives as names, and the content words of
    its heading (see the module docstring)."""
    names = {m.group(1).lower().rstrip("().,;:") for m in QUOTED.finditer(text)}
    title = (title or "").strip()
    head, _, tail = title_parts(title)
    heading = f"{head} {tail}" if len(head.split()) > 1 else (tail or head)
    for word in re.findall(r"[\w.()-]+", heading):
        word = word.lower().rstrip("().")
        if word not in HEADING_STOPWORDS and (len(word) > 3 or len(heading.split()) == 1):
            names |= {word, word.split(".")[-1], word.rstrip("s")}
    return {n for n in names if len(n) > 1}


def is_definition(question: str, answer: str) -> bool:
    """"What is a security incident?" answered by "any event that ...": a definition."""
    return bool(re.match(r"What (is|are) (a|an) \w", question)) and len(answer.split()) >= 3


def answer_is_name(question: str, answer: str, names: set[str]) -> bool:
    """A how-to answered by a name ("How do I block until ...?" -> ``wait``)."""
    bare = answer.strip().strip("‘’'`\"").rstrip("()")
    return question.lower().startswith("how do i ") and bool(bare) and " " not in bare and (
        is_named(bare) or bare.lower() in names)


def is_bound(question: str, names: set[str], topic: Subject | None) -> bool:
    """Whether ``question`` names a subject with evidence (see the module docstring)."""
    if UNBOUND.search(question):
        return False
    low = question.lower()
    if topic is not None and topic.kind in BOUND_KINDS and topic.name.lower() in low:
        return True
    words = question.rstrip("?").split()
    for i, word in enumerate(words):
        raw = word.strip(".,;:!?\"'‘’`")
        bare = raw.rstrip("()")
        if not bare or bare.lower() in QUESTION_WORDS:
            continue
        if is_named(bare) or is_named(raw) or bare.lower() in names or (
            bare.lower().rstrip("s") in names) or (
            i > 0 and bare[:1].isupper() and bare != "I" and bare[1:].islower()
            and words[i - 1].lower() != "i"
        ):
            return True
    return False
