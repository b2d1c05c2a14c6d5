"""Sentences that say what a named thing is for: "`:const` is used for making both the variable
and the value a constant", "The --rsyncable option is used to make the output friendly to
rsync" -> "What is :const used for?", "What is the --rsyncable option used for?", answered by
the purpose ("for making both ...", "to make the output ...").

Only a name written as code (a command, an option, a call, a constant, a qualified name) opening
the sentence is asked about: "The file is used to ..." names nothing a reader could search for.
"""

from __future__ import annotations

import re

from labeling.synthetic.descriptions import names_code
from labeling.synthetic.passage import Passage
from labeling.synthetic.reference import Draft
from labeling.synthetic.spans import passage_span
from labeling.synthetic.subject import Subject

KINDS = ("option", "property", "variable", "argument", "parameter", "command", "function",
         "method", "setting", "key", "field", "flag", "macro", "attribute", "directive")
# Groups: 1 the name, 2 its kind ("option"), 3 the purpose. (No named groups and no "?" after
# a group: the tables-layer check reads ">(?" and ")?" as SQL placeholders.)
USED = re.compile(
    r"(?:The\s+){0,1}(\S+)((?:\s+(?:" + "|".join(KINDS) + r")){0,1})\s+"
    r"(?:is|are)\s+(?:mainly\s+|mostly\s+|only\s+|typically\s+|usually\s+|commonly\s+){0,1}"
    r"used\s+((?:to|for)\s.+?)\.{0,1}$",
    re.S,
)


def used_for_drafts(passage: Passage, topic: Subject | None) -> list[Draft]:
    """A "What is X used for?" draft for each sentence of the passage's prose that says what a
    name written as code is used for; an option is named with its program, the ``topic``
    ("the --rsyncable option of gzip")."""
    out: list[Draft] = []
    for unit in passage.prose:
        for a, b in unit.sentences:
            match = USED.match(unit.clean, a, b)
            if match is None or match.end() != b:
                continue
            name = match.group(1).strip("`'\"\u2018\u2019")
            if not names_code(name):
                continue
            kind = (match.group(2) or "").strip()
            if name.startswith("-"):
                kind = "option"
            phrase = f"the {name} {kind}" if kind else name
            if kind == "option" and topic is not None and len(topic.name.split()) == 1:
                phrase += f" of {topic.name}"
            span = passage_span(unit, match.start(3), match.end(3), (a, b))
            if span is not None:
                out.append(Draft(f"What is {phrase} used for?", span, "what",
                                 unit.clean[a:b], Subject(phrase, name, kind or "term")))
    return out
