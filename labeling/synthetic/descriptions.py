"""Whether a sentence describes the one thing a question asks about: the lead sentence of a
reference entry ("Returns an unmodifiable list containing two elements." for ``List.of()``),
the first sentence under a function's signature ("Like map() but ... a new List is created").

Not a description: a sentence too short or too long, one that opens on a pronoun, a pointer
("See", "Note") or a condition, one with a modal in its first words (a rule about something
else: "Parameter 'verbosity' should be set ..."), one whose subject is another name written as
code ("The LINK_OPTIONS property is used ..." under another title), and, for a key or a term
(asked "What is X?"), one that opens on the name without a defining verb ("DES3 has a key
size of 168 bits": one fact, not what DES3 is), and, for a function, one whose subject is a
noun phrase that does not name it (``QUANTIFIERS``).
"""

from __future__ import annotations

import re

from labeling.synthetic import screens
from labeling.synthetic.subject import Subject
from labeling.synthetic.subject_checks import is_code_name
from labeling.synthetic.words import MODALS

# A tutorial's voice: "First, we change s to be mut" tells a step of a lesson, not what a
# function is.
FIRST_PERSON = re.compile(r"\b(?:we|we're|we\u2019re|we'll|we\u2019ll|us|our|I)\b")
NOT_A_DESCRIPTION = frozenset("it its this these those they there see note for in if when "
                              "example examples since as you we also here although though "
                              "first then now with after before once while".split())
SENTENCE_WORDS = (5, 40)  # a description's length, in words
# Verbs that define what their subject is: "DES3 is ..." defines, "DES3 has a key size of ..."
# tells one fact about it.
DEFINING = frozenset("is are represents means denotes stands names specifies defines "
                     "describes refers holds identifies".split())


# A sentence that opens on one of these has a noun phrase for its subject: under a function's
# signature, one that does not name the function is about something else ("The SQLite core uses
# these routines ..." under sqlite3_mutex_alloc(), "A virtual filesystem (VFS) is ..." under
# sqlite3_vfs_find()). The name must come within the first SUBJECT_WORDS words.
QUANTIFIERS = frozenset("the a an each every most many all some any".split())
SUBJECT_WORDS = 5


def _bare_call(name: str) -> str:
    """``sqlite3_vfs_find`` of ``sqlite3_vfs_find()``, ``join`` of ``os.path.join()``."""
    return re.split(r"[.:]+", name.lower().removesuffix("()"))[-1]


def names_code(word: str) -> bool:
    """Whether ``word`` (quotes and trailing punctuation aside) is a name written as code
    (``subject_checks.is_code_name``) or an API name (``screens.API``: a call, an option, a
    constant, a qualified name)."""
    word = word.strip(",;:'\"`\u2018\u2019")
    return is_code_name(word) or bool(screens.API.match(word))


def describes(words: list[str], subject: Subject) -> bool:
    """Whether ``words``, a sentence that reads as a description (``is_description``), say
    what ``subject`` is or does (see the module docstring)."""
    low = [w.lower().strip(",;:()'\"\u2018\u2019`") for w in words]
    if any(w in MODALS for w in low[:4]):
        return False
    opener = words[1] if low[0] in ("the", "a", "an") and len(words) > 1 else words[0]
    if names_code(opener) and opener.strip(",;:'\"`\u2018\u2019").removesuffix(
            "()").lower() not in subject.name.lower():
        return False  # "The --rsyncable option is used to ...": about another name
    if subject.kind == "function":
        return not (low[0] in QUANTIFIERS and _bare_call(subject.name) not in " ".join(
            low[:SUBJECT_WORDS]))
    name = subject.name.lower()
    if name in low[:3]:
        at = low.index(name)
        return at + 1 < len(low) and low[at + 1] in DEFINING
    return True


def is_description(sentence: str) -> bool:
    """Whether ``sentence`` reads as a description: a whole sentence of ``SENTENCE_WORDS``
    words, opening with a capital on a word that is not a pronoun, a pointer or a condition."""
    words = sentence.split()
    return SENTENCE_WORDS[0] <= len(words) <= SENTENCE_WORDS[1] and sentence.endswith(".") \
        and words[0].lower().strip(",:") not in NOT_A_DESCRIPTION and words[0][:1].isupper() \
        and not FIRST_PERSON.search(sentence)
