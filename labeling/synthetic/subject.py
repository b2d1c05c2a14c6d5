"""What a question is about: the passage's topic and the subject of each piece of its prose.

A question must name what it asks about. The *topic* comes from the passage title (a manual
page title ``gzip(1): Options`` gives the command ``gzip``; ``strtol(3)`` the function
``strtol()``; any other title its part before the colon, a qualified name such as
``Math::BigRat`` kept whole; after a document set's name, the page: "The Cargo Book: cargo
clean"). The *focus* of a piece of prose is the nearest thing it describes: the term of a
definition list it belongs to (an option, a key, an error, a file, an environment variable),
else the function signature above it, else the topic. A sentence whose subject is a pronoun or
a bare class noun ("It", "This option", "The function") is about its focus; without one it is
not asked about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labeling.synthetic.lines import OPTION
from labeling.synthetic.passage import Passage, Prose
from labeling.synthetic.words import DEICTIC_HEADS, GENERIC_NOUNS

MAN_TITLE = re.compile(r"^\s*(?P<name>[^\s:()][^:()]*?)\((?P<section>\d)[\w]*\)")
MAN_KINDS = {"1": "command", "6": "command", "8": "command", "2": "function", "3": "function",
             "4": "file", "5": "file", "7": "topic"}
# Tokens that name something: code-like words (underscores, dots, brackets, digits, inner
# capitals, leading dashes or slashes, qualified names: Math::BigRat, $obj->method) and
# all-capital acronyms.
NAMED = re.compile(
    r"^(?:[-+]{1,2}\w[\w-]*|[/~$][\w/.${}~*-]+|\w+(?:::|->|#)\w[\w:>#-]*|\w*[_.]\w+.*|\w+\(\d?\w*\)|[A-Z]{2,}\w*|"
    r"\w*[a-z][A-Z]\w*|\w*\d\w*|(?:\w+:)?\w+//?\d+)$"
)


# A title that names a whole document set ("The Cargo Book", "The Rust Edition Guide"): the
# page after it is the topic.
DOCUMENT_NAME = re.compile(r"(?:The\s+)?(?:[A-Z][\w.+-]*\s+){0,4}(?:Book|Guide|Manual|Handbook|"
                           r"Documentation|Docs|Reference)")
# A colon that is not part of a qualified name's "::" ("Math::BigRat: METHODS").
SINGLE_COLON = r"(?<!:):(?!:)"
# A command line's words ("cargo clean", "aws ec2 create-fleet").
COMMAND_LINE = re.compile(r"[a-z][\w.+-]*(?: [a-z][\w.+-]*){1,3}")


@dataclass(frozen=True)
class Subject:
    """``phrase`` goes into questions ("the --keep option of gzip", "strtol()", "gzip");
    ``name`` is the bare name; ``kind`` one of command, function, file, topic, option, key,
    error, variable, path, term."""

    phrase: str
    name: str
    kind: str


def title_parts(title: str) -> tuple[str, str, str]:
    """``title`` split at its first colon as ``str.partition`` does, a qualified name's "::"
    kept whole ("Math::BigRat: new" -> "Math::BigRat", ":", " new")."""
    match = re.search(SINGLE_COLON, title)
    if match is None:
        return title, "", ""
    return title[:match.start()], ":", title[match.end():]


def topic_of(title: str | None, passage: Passage | None = None) -> Subject | None:
    """The passage's topic from its title (see the module docstring); None without a title."""
    title = (title or "").strip()
    if not title:
        return None
    text = " ".join(passage.text.split()) if passage is not None else ""
    man = MAN_TITLE.match(title)
    if man:
        name, kind = man.group("name").strip(), MAN_KINDS.get(man.group("section"), "topic")
        spaced = name.replace("_", " ")
        if "_" in name and (spaced in text or (kind == "command" and name.count("_") >= 2)):
            name = spaced  # a multi-word command whose page name joins the words
        if kind == "function":
            return Subject(f"{name}()", name, kind)
        return Subject(name, name, kind)
    # A colon ends the name, but not inside a qualified one ("Math::BigRat: METHODS").
    parts = re.split(rf"\s*(?:{SINGLE_COLON}|\s[-\u2013\u2014]\s)\s*", title, maxsplit=2)
    name = parts[0].strip()
    page = parts[1].strip() if len(parts) > 1 else ""
    if DOCUMENT_NAME.fullmatch(name) and page and not page.isupper():
        name = page  # "The Cargo Book: cargo clean: Options": the page, not the book ("NAME": no)
    if not name:
        return None
    if len(name.split()) == 1 or NAMED.match(name) or name.lower().startswith("the "):
        return Subject(name, name, "topic")
    return Subject(f"the {name}", name, "topic")


def option_name(label: str) -> str:
    """The option a label names, the long form preferred: ``-k, --keep`` -> ``--keep``,
    ``--schedule=SCHEDULE`` -> ``--schedule``."""
    names = [re.split(r"[=\[]", t)[0].rstrip(",") for t in re.findall(r"[-+]{1,2}\w[\w.:/+-]*",
                                                                         label)]
    names = [n for n in names if n.strip("-+")]
    longs = [n for n in names if n.startswith("--")]
    return (longs or names or [label.split()[0]])[0]


def term_subject(label: str, heading: str, topic: Subject | None, owner: str = ""
                 ) -> Subject:
    """The subject a definition-list label names (see ``Subject.kind``); ``owner`` is the
    function the list belongs to when the prose before it names one, else the topic."""
    label = label.strip()
    if owner:
        topic = Subject(owner, owner.rstrip("()"), "function")
    of_topic = f" of {topic.name}" if topic is not None and topic.kind in (
        "command", "function") else ""
    if OPTION.match(label):
        name = option_name(label)
        return Subject(f"the {name} option{of_topic}", name, "option")
    # "linehl={group}": the key, not its placeholder
    name = re.split(r"\s*[(,]|=[{<\[]", label)[0].strip() or label
    upper_heading = heading.upper()
    if "ERROR" in upper_heading and re.fullmatch(r"[A-Z][A-Z0-9_]+", name):
        return Subject(name, name, "error")
    if "ENVIRONMENT" in upper_heading:
        return Subject(f"the {name} environment variable", name, "variable")
    if name[:1] in "/~$":
        return Subject(name, name, "path")
    if re.fullmatch(r"[A-Z][A-Z0-9_]+|[A-Za-z][\w.-]*=", name):
        return Subject(name, name, "key")
    return Subject(name, name, "term")


def focus_of(unit: Prose, topic: Subject | None) -> Subject | None:
    """The subject of a piece of prose (see the module docstring)."""
    if unit.term:
        return term_subject(unit.term, unit.heading, topic, unit.owner)
    if unit.signature:
        return Subject(f"{unit.signature}()", unit.signature, "function")
    return topic


def is_deictic(words: list[str]) -> bool:
    """A subject that points back instead of naming: "it", "this option", "these functions",
    "the function", "the command"."""
    low = [w.lower() for w in words]
    if not low:
        return True
    if low[0] in DEICTIC_HEADS and (len(low) == 1 or all(w in GENERIC_NOUNS for w in low[1:])
                                    or low[0] in ("this", "these", "that", "those")):
        return True
    return low[0] in ("the", "a", "an", "each", "both") and len(low) >= 2 and all(
        w in GENERIC_NOUNS or w in ("return", "given", "specified", "above", "following")
        for w in low[1:]
    )


# The class nouns a deictic subject may use for each kind of focus ("this option" can only be
# an option; "it" and "this" can be anything).
KIND_NOUNS = {
    "option": {"option", "flag", "argument", "parameter", "switch", "setting", "value"},
    "function": {"function", "call", "routine", "method", "macro", "interface"},
    "command": {"command", "program", "utility", "tool", "daemon", "service", "script",
                "helper", "page", "manual"},
    "file": {"file", "format", "page", "manual"},
    "key": {"setting", "variable", "value", "key", "field", "entry", "parameter", "option"},
    "variable": {"variable", "value", "setting"},
    "error": {"error", "value"},
    "path": {"file", "directory", "path"},
    "term": {"value", "field", "entry", "object", "structure", "mode", "feature", "setting"},
    "topic": {"page", "manual", "policy", "document", "section", "feature"},
}


def deictic_fits(words: list[str], focus: Subject | None) -> bool:
    """Whether a deictic subject can stand for ``focus``: its class noun, if any, must be one
    the focus's kind is called by ("this option" for an option, not for a command)."""
    if focus is None:
        return False
    nouns = [w.lower() for w in words[1:] if w.lower() in GENERIC_NOUNS]
    if not nouns:
        return True
    allowed = KIND_NOUNS.get(focus.kind, set())
    return all(n.rstrip("s") in allowed or n in allowed for n in nouns)


DEICTIC_PHRASE = re.compile(
    r"\b(?:(?:this|these|that|those|the|such)\s+(?:" + "|".join(sorted(GENERIC_NOUNS)) +
    r")s?|it|this|these|they|them)\b",
    re.I,
)


def name_deictics(question: str, focus: Subject | None) -> str | None:
    """``question`` with a pointing phrase ("this option", "it") replaced by the focus's
    phrase; unchanged when it has none; None when one cannot be named."""
    found = list(DEICTIC_PHRASE.finditer(question))
    if not found:
        return question
    if focus is not None and focus.kind == "topic":
        return None  # a page or module title is not what "it" points at often enough
    out = question
    for match in reversed(found):
        words = match.group().split()
        if words[0].lower() == "the" and words[-1].lower().rstrip("s") not in ("function",
                                                                               "command"):
            continue  # "the value", "the file": ordinary nouns in most sentences
        if not deictic_fits(words, focus) or focus is None:
            return None
        out = out[:match.start()] + focus.phrase + out[match.end():]
    return out


def is_named(word: str) -> bool:
    """A token that names a specific thing (code-like, an acronym, a path, an option)."""
    word = word.strip(".,;:!?\"'")
    return bool(word) and bool(NAMED.match(word)) and not word.isdigit()

