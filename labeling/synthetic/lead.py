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

from labeling.synthetic import screens
from labeling.synthetic.clauses import base_form
from labeling.synthetic.descriptions import describes, is_description
from labeling.synthetic.labelled_lists import owner_of
from labeling.synthetic.passage import Passage
from labeling.synthetic.reference import Draft
from labeling.synthetic.subject import Subject, title_parts
from labeling.synthetic.subject_checks import is_code_name
from labeling.synthetic.words import BE

# Files that are documents about a package, named in titles like code ("README.Debian").
DOCUMENT_FILE = re.compile(r"(?i)^(?:readme|copying|licen[cs]e|news|changes|changelog|install|"
                           r"todo|authors|thanks|faq|history|notice)(?:[._-][\w.-]*)?$")
KEY_OR_CODE = re.compile(r"^(?=.*[\d_])[A-Za-z][\w.-]*$")


def entry_question(title: str | None, text: str = "") -> tuple[str, Subject] | None:
    """The question a title's one thing gets, and that thing (see the module docstring);
    ``text``, the passage's, says whether a name is written as a call."""
    title = (title or "").strip()
    owner = owner_of(title, text)
    if owner is not None:
        return f"What does {owner} do?", Subject(owner, owner.removeprefix("the "), "function")
    head, colon, tail = (part.strip() for part in title_parts(title))
    if DOCUMENT_FILE.match(tail or title):
        return None  # "vim: README.Debian": a document, not a thing its first sentence defines
    if colon and " " not in head and (KEY_OR_CODE.match(tail) or is_code_name(tail)) \
            and not screens.SECTION_LABEL.match(tail):
        return f"What is {tail} in {head}?", Subject(tail, tail, "key")
    if not colon and " " not in title and is_code_name(title):
        return f"What is {title} used for?", Subject(title, title, "term")
    return None


def _purpose(words: list[str]) -> bool:
    """Whether a sentence can say what a name is for: a noun phrase or an instruction
    ("Number of command line arguments ...", "Specify verbosity of ..."), not a purpose clause
    ("To reference the installation prefix ...") nor a clause about another subject ("The
    script uses find to capture ...": a later passage of the entry)."""
    low = [w.lower() for w in words]
    if low[0] == "to":
        return False
    return not (low[0] in ("the", "a", "an") and any(
        w in BE or base_form(w) for w in low[2:4]))


def lead_draft(passage: Passage) -> Draft | None:
    """The lead question of ``passage``, or None (see the module docstring)."""
    entry = entry_question(passage.title, passage.text)
    if entry is None or not passage.blocks or passage.blocks[0].kind != "prose" \
            or not passage.prose or not passage.prose[0].sentences:
        return None
    unit = passage.prose[0]
    a, b = unit.sentences[0]
    sentence = unit.clean[a:b].strip()
    if not is_description(sentence):
        return None
    question, subject = entry
    if not describes(sentence.split(), subject) or (
            question.endswith(" used for?") and not _purpose(sentence.split())):
        return None
    start, end = unit.raw_span(a, b)
    text = passage.text[start:end].rstrip()
    end = start + len(text) - (1 if text.endswith(".") else 0)
    return Draft(question, (start, end), "what", sentence, subject)
