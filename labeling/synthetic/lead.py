"""The lead sentence of a reference entry: a passage that opens on prose under a title naming one
thing, and whose first sentence describes it, is asked what the thing does or is, answered by
that sentence.

The thing, from the title: a member ("List: of(E e1, E e2)" -> "What does List.of() do?"), a
code or key after the page's name ("rustc: E0382" -> "What is E0382 in rustc?",
"StandardSocketOptions: SO_REUSEADDR"), or a title that is itself a name written as code
("CMAKE_ARGC" -> "What is CMAKE_ARGC used for?"). A heading of words ("builtin: Details", "gzip(1):
Options") names no one thing: nothing is asked. The sentence must describe, not point: one
that opens on a pronoun, a pointer ("See", "Note") or a condition is not a description, nor
one with a modal in its first words ("Parameter 'verbosity' should be set ...") or one that
opens on the key it is asked about without defining it ("DES3 has a key size of ...").
"""

from __future__ import annotations

import re

from labeling.synthetic.labelled_lists import owner_of
from labeling.synthetic.passage import Passage
from labeling.synthetic.reference import Draft
from labeling.synthetic.subject import Subject
from labeling.synthetic.subject_checks import is_code_name
from labeling.synthetic.words import MODALS

NOT_A_DESCRIPTION = frozenset("it its this these those they there see note for in if when "
                              "example examples since as you we also here".split())
KEY_OR_CODE = re.compile(r"^(?=.*[\d_])[A-Za-z][\w.-]*$")
SENTENCE_WORDS = (5, 40)  # a description's length, in words
# Verbs that define what their subject is: "DES3 is ..." defines, "DES3 has a key size of ..."
# tells one fact about it.
DEFINING = frozenset("is are represents means denotes stands names specifies defines "
                     "describes refers holds identifies".split())


def describes(words: list[str], subject: Subject) -> bool:
    """Whether a lead sentence's ``words`` describe ``subject``: no modal in its first words (a
    rule about something else: "Parameter 'verbosity' should be set ..."), and, for a key or a
    term (asked "What is X?"), the name, when the sentence opens on it, followed by a
    defining verb."""
    low = [w.lower().strip(",;:()'\"\u2018\u2019`") for w in words]
    if any(w in MODALS for w in low[:4]):
        return False
    if subject.kind == "function":
        return True
    name = subject.name.lower()
    if name in low[:3]:
        at = low.index(name)
        return at + 1 < len(low) and low[at + 1] in DEFINING
    return True


def entry_question(title: str | None) -> tuple[str, Subject] | None:
    """The question a title's one thing gets, and that thing (see the module docstring)."""
    title = (title or "").strip()
    owner = owner_of(title)
    if owner is not None:
        return f"What does {owner} do?", Subject(owner, owner.removeprefix("the "), "function")
    head, colon, tail = (part.strip() for part in title.partition(":"))
    if colon and " " not in head and (KEY_OR_CODE.match(tail) or is_code_name(tail)):
        return f"What is {tail} in {head}?", Subject(tail, tail, "key")
    if not colon and " " not in title and is_code_name(title):
        return f"What is {title} used for?", Subject(title, title, "term")
    return None


def lead_draft(passage: Passage) -> Draft | None:
    """The lead question of ``passage``, or None (see the module docstring)."""
    entry = entry_question(passage.title)
    if entry is None or not passage.blocks or passage.blocks[0].kind != "prose" \
            or not passage.prose or not passage.prose[0].sentences:
        return None
    unit = passage.prose[0]
    a, b = unit.sentences[0]
    sentence = unit.clean[a:b].strip()
    words = sentence.split()
    if not SENTENCE_WORDS[0] <= len(words) <= SENTENCE_WORDS[1] or not sentence.endswith(".") \
            or words[0].lower().strip(",:") in NOT_A_DESCRIPTION or not words[0][:1].isupper():
        return None
    question, subject = entry
    if not describes(words, subject):
        return None
    start, end = unit.raw_span(a, b)
    text = passage.text[start:end].rstrip()
    end = start + len(text) - (1 if text.endswith(".") else 0)
    return Draft(question, (start, end), "what", sentence, subject)
