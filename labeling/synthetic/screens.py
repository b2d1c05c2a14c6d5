"""Screens for questions the rules misread: source artefacts, a verb or an adverb where the
subject should be, a preposition left behind, a capitalised article inside the question
("What is The Named?"), a token with no letter or digit ("Where is the result // in the latter
case?"), a sentence adverb ("also", "now"), a placeholder ("--fuzz=LINES"); an answer that
points at what follows ("a command like the following"). A question a screen catches is not
asked, nor its keyword query.
"""

from __future__ import annotations

import re

from labeling.synthetic.clauses import base_form
from labeling.synthetic.subject import is_named
from labeling.synthetic.words import ALL_VERBS, PREPOSITIONS

# Source artefacts a person would not type: reST/Markdown markup, "--" dashes, stray quotes.
ARTEFACTS = re.compile(r"\s--\s|[`*^]|\s=|(?:^|\s)'|'(?:\s|\?)|(?:^|\s)[-+]{1,2}\w[\w-]*,?\s+"
                       r"[-+]{1,2}\w")
# A question whose subject slot holds an adverb or a gerund: "What do always read?", "What
# does using all for COMPONENT launch?" (a definition-list label or a clause misread).
NO_SUBJECT = re.compile(r"^What (?:do|does|did|will|can|may) (?:always|never|not|only|also|"
                        r"using|adding|selecting|calling|running|setting|passing|specifying|"
                        r"enabling|disabling|giving|providing|making|\w+ly)\b")
# An answer that points at what follows instead of holding it: "you can use a command like the
# following", "the following functions are used".
POINTING_ANSWER = re.compile(r"\b(?:the following|as follows|like this|shown below|see below)\b|"
                             r":\s*$", re.I)
# "What is The Named?", "What is 2:2,3c 3:4,5c The named?": a sentence's capital inside.
INNER_ARTICLE = re.compile(r"\s(?:The|A|An)\s")
# Sentence adverbs that only make sense next to the source sentence: "What does BBV also
# count?", "What can the monitor command now control?", "What does chmod ignore in contrast?".
SENTENCE_ADVERBS = re.compile(r"\b(?:also|now|still|in contrast|however|therefore|thus|"
                              r"furthermore|moreover|additionally|likewise|similarly)\b", re.I)
# An option's value placeholder read as part of a name: "What do --fuzz=LINES set?".
PLACEHOLDER = re.compile(r"\S=[A-Z]")
# A token with neither a letter nor a digit: "//", "->", "..." (a dash option has letters).
NO_WORD = re.compile(r"(?:^|\s)[^\w\s]+(?=\s|\?|$)")


def points_away(answer: str) -> bool:
    """Whether the answer points at text after it instead of holding the answer."""
    return bool(POINTING_ANSWER.search(answer))


def misread(question: str) -> bool:
    """Whether a screen catches ``question`` (see the module docstring)."""
    return bool(ARTEFACTS.search(question) or NO_SUBJECT.search(question)
                or INNER_ARTICLE.search(question) or NO_WORD.search(question.rstrip("?"))
                or SENTENCE_ADVERBS.search(question) or PLACEHOLDER.search(question)
                or verb_for_subject(question) or preposition_twice(question))


def verb_for_subject(question: str) -> bool:
    """"Where does create link to each TARGET ...?", "What does disallow processing file?": a
    verb where the subject should be."""
    words = question.rstrip("?").split()
    for i, word in enumerate(words[:-1]):
        if word.lower() in ("do", "does", "did") and i <= 3:
            after, then = words[i + 1], (words[i + 2:] or [""])[0]
            verb = after in ALL_VERBS or (after.endswith("s") and base_form(after) not in (
                None, after))  # "What do returns an object ...?"
            return after.islower() and verb and not is_named(after) and not (
                then[:1].isdigit() or is_named(then))  # "release 4.2" is a noun
    return False


def preposition_twice(question: str) -> bool:
    """"How many stages does APT work in its internal resolver in?": a preposition left behind
    that the question already used."""
    words = question.rstrip("?").lower().split()
    return len(words) > 3 and words[-1] in PREPOSITIONS and words[-1] in words[:-1]


