"""Questions from the labelled lists of API reference: a label line ("Returns:", "Parameters:",
"Throws:"; "Args:", "Raises:" as Google-style docstrings write them) and the indented items
under it, each an item name and its description ("e1 - the first element", "timeout: seconds to
wait") or, under "Returns:", the description alone, which gtk-doc and Doxygen write on the
label's line ("Returns: a GIcon. ...").

The owner is the member the passage documents, from its title: "List: of(E e1, E e2)" gives
``List.of()`` (a class, then the member's call; "the TreeSet() constructor" for its own
name), "GIO GFile: g_file_get_uri" or "SDL2 SDL_mouse.h: SDL_GetMouseState()" the C function
``g_file_get_uri()`` (a name with an underscore or a call, after a heading of several words),
"strtol(3)" the function ``strtol()`` (``subject.topic_of``'s reading of a manual page
title: "gzip(1)" is a command, which has no parameters to list); without one, nothing is asked
(whose parameter?). The questions, each answered by the item's
description: "What does List.of() return?", "When does List.of() throw NullPointerException?",
"What is the e1 parameter of List.of()?".
"""

from __future__ import annotations

import re

from labeling.synthetic.reference import Draft
from labeling.synthetic.subject import Subject, title_parts, topic_of

LABEL = re.compile(r"(?m)^(?P<label>Returns?|Parameters|Params|Args|Arguments|Throws|Raises|"
                   r"Exceptions):[ \t]*\n(?P<items>[ \t]+\S[^\n]*(?:\n[ \t]+\S[^\n]*)*)")
ITEM = re.compile(r"(?m)^[ \t]+(?P<name>[A-Za-z_$][\w.$]*)(?:[ \t]+-[ \t]+|:[ \t]+)"
                  r"(?P<text>\S[^\n]*)$")
# "Returns: a GIcon. The returned object ...": the label with its text on the same line, as
# gtk-doc and Doxygen pages read as text write it (the text runs to the paragraph's end).
INLINE_RETURNS = re.compile(r"(?m)^Returns?:[ \t]+(?P<body>\S[^\n]*(?:\n(?![ \t]*\n)[^\n]+)*)")
MEMBER = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*\(")
# A C function as a title's last part names it: "SDL_GetMouseState()", "g_file_get_uri".
C_FUNCTION = re.compile(r"^(?P<name>[A-Za-z]\w*_\w*|[A-Za-z]\w*(?=\(\)))(?:\(\))?$")
CLASS = re.compile(r"^[A-Z][A-Za-z0-9]*$")
PARAMETER_WORDS = 5
PARAMETER_NAME = 3  # characters: "a", "c", "e1" name no parameter a person asks about


def owner_of(title: str | None, text: str = "") -> str | None:
    """The member a passage title documents, as a call (see the module docstring); a name
    with an underscore is a function only where the title or the passage ``text`` writes it as
    a call ("QMAKE_CXXFLAGS", "Q_GADGET", "G_VSCALE" are a variable, a macro, an opcode)."""
    title = (title or "").strip()
    head, _, tail = title_parts(title)
    member = MEMBER.match(tail.strip())
    if member and CLASS.match(head.strip()):
        if member.group("name") == head.strip():
            return f"the {head.strip()}() constructor"
        return f"{head.strip()}.{member.group('name')}()"
    function = C_FUNCTION.match(tail.strip())
    # "GIO GFile: g_file_get_uri", "SDL2 SDL_mouse.h: SDL_GetMouseState()"
    if function and " " in head.strip() and _called(function.group("name"), tail + text):
        return f"{function.group('name')}()"
    topic = topic_of(title)  # a manual page of a function ("strtol(3)"), not of a command
    return topic.phrase if topic is not None and topic.kind == "function" else None


def _called(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", text) is not None


def from_labelled_lists(text: str, title: str | None) -> list[Draft]:
    """Drafts from the labelled lists of ``text`` (passage offsets as answers)."""
    owner = owner_of(title, text)
    if owner is None:
        return []
    subject = Subject(owner, owner.removeprefix("the ").split("(")[0], "function")
    out: list[Draft] = []
    for inline in INLINE_RETURNS.finditer(text):
        a, b = inline.span("body")
        out.append(Draft(f"What does {owner} return?", (a, b), "what", inline.group("body"),
                         subject))
    for block in LABEL.finditer(text):
        label, start = block.group("label"), block.start("items")
        items = block.group("items")
        if label.startswith("Return"):
            body = items.strip()
            a = start + items.index(body)
            out.append(Draft(f"What does {owner} return?", (a, a + len(body)), "what", body,
                             subject))
            continue
        for item in ITEM.finditer(items):
            if label not in ("Throws", "Raises", "Exceptions") and (
                    len(item.group("text").split()) < PARAMETER_WORDS
                    or len(item.group("name")) < PARAMETER_NAME):
                continue  # "e1 - the first element", "a - the array": nothing to ask
            span = (start + item.start("text"), start + item.end("text"))
            name = item.group("name")
            if label in ("Throws", "Raises", "Exceptions"):
                question = f"When does {owner} {'raise' if label == 'Raises' else 'throw'} {name}?"
                kind = "when"
            else:
                question, kind = f"What is the {name} parameter of {owner}?", "what"
            out.append(Draft(question, span, kind, item.group(0).strip(), subject))
    return out
