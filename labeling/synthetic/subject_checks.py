"""Whether a question names what it asks about the way code and headings name things: the
checks ``binding`` leaves to the end (issue 32, fourth pass; the patterns are those of the
CMake help graded blind in round 5 and of the round-4 development grades).

- A clause question (a sentence's words moved around a question word) must name the
  passage's topic, a word of its title, or a name written as code (``find_package()``,
  ``numeric_owner``, ``os.path``, ``Http2Stream``, ``$gzerrno``): a product or tool name
  alone is where the passage sits, not its subject ("What does CMake provide?", "What can
  CTest parse?"), an acronym needs the thing it belongs to, and a phrase ("What does the
  first rule match?") names nothing.
  Definitions ("What is a TZ value?") are exempt: the term is the subject; so are questions
  of a fact (how many, how much, when, where, who), whose subject ``binding`` already bound
  ("How many minutes does Okta lock the account for ...?").
- An option named without its program ("What does the --format option do?"), even from a
  definition list: the list may belong to a program the passage names elsewhere.
- An answer that points back ("sets this variable to ...") to a question that names nothing.
- A how-to with too few specifics to tell the API it is about ("How do I check
  certificates?"): fewer than ``TASK_WORDS`` content words and no name.
- Forms that graded poorly on every kind (10 samples, 5 kinds: where-questions 2 of 14
  accepted, "What should I do if ...?" 0 of 3, "What can X ...?" 0 of 5; later, "What
  will/might/may/would/could X ...?" 1 of 10 over rounds 18 to 27, "What will the
  sqlite3_config() interface return?"): a sentence copied around its place, its advice or its
  modal; and "What is the name X?".
- A sentence's object asked for with its verb last ("What does DateFormat provide?", "What
  do some generators support?"): made from a clause's words, 14 of 67 were accepted over this
  generator's graded samples (33 of 138 over the earlier generators'); the copy of a sentence
  with a blank, precision first.
- A question ending on a verb that needs a second object ("What does the property tell?").
- A definition asked of a judgement, not a term ("What is a good entry point?", "What is a
  better alternative?"), when nothing after it says of what (``EVALUATIVE``).
- A Python special method named bare ("What does __iter__() do?"): every class has its own.
- "Either" with no "or" ("How do I edit either symbol library table?"): one of two things the
  text named before.
- An answer that runs on into the next entry of a definition list, or carries reST roles.

A question caught here is not asked, nor its keyword query: precision before recall.

Before the checks, ``qualify`` names the owner of a member the question names without it (the
Javadoc held-out round's commonest reject): on a class's page, a bare call becomes the class's
("What does the start() method create?" on ``ProcessBuilder`` -> "What does the start() method of
ProcessBuilder create?", "What does insert() do ...?" -> "What does AbstractStringBuilder's insert()
do ...?": the owner in words, not in one language's syntax), and an argument or parameter gets its
owner ("the backlog argument" on ``ServerSocket`` -> "the backlog argument of ServerSocket").
``own_arguments`` does the same for a passage under a call signature (a title ending
"http2session.setLocalWindowSize(windowSize)", as API references head a function's section): "the
windowSize" and "the length parameter" named without their function (Node.js's API docs, round 22)
become "the windowSize of http2session.setLocalWindowSize()". ``owned_by_title`` names a method or
function the way its page's title does, where the question names it bare (the round-28 and round-29
held-out samples' commonest reject, Go's doc comments and Ruby's reference): "What does flush() do?"
under "Ruby Zlib::GzipWriter#flush" -> "What does Zlib::GzipWriter#flush do?", "What does NewWriter
return?" under "Go bufio: NewWriter" -> "What does NewWriter in Go bufio return?"; and a how-to
answered by that bare name ("How do I flush all the internal buffers ...?" answered "flush") is not
asked (``bare_member_answer``). ``owned_by_qualified_title`` gives a member named bare the qualified
name its page's title ends on or brackets ("What does reshape() do?" under "SciPy
scipy.sparse.csc_array" -> "What does scipy.sparse.csc_array.reshape() do?": SciPy's reference,
round 61). ``owned_by_class_signature`` gives a bare member to the class whose signature line is the
last above its answer ("class Area(**kwargs)" heads the entry of "What does Area's __getattr__()
do?", Django's reference, round 44). ``name_owners`` applies all of these in that order.
"""

from __future__ import annotations

import re

from labeling.synthetic.binding import HEADING_STOPWORDS
from labeling.synthetic.subject import Subject, title_parts
from labeling.synthetic.words import ALL_VERBS, GENERIC_NOUNS

# A name as code writes it: a separator inside (``_ . :: ->``), a call, a sigil, an inner
# capital after a lower-case letter or digit (``readFile``, ``Http2Stream``; not ``CMake``).
CODE_NAME = re.compile(r"^(?=.*[A-Za-z])(?:[$@%]?\w*(?:[_.]|::|->)[\w.:>-]*\w(?:\(\))?|"
                       r"\w+\(\d?\w*\)|\w*[a-z0-9][A-Z]\w*(?:\(\))?|[$@%]\w+)$")
STOPWORDS = frozenset("how do does did i a an the of to in on for with by from at as is are be "
                      "and or my your it its this that these those can could should what when "
                      "where why which who will may".split())
TASK_WORDS = 5  # content words a how-to needs when it names nothing
DEFINITION = re.compile(r"^What (?:is|are) (?:a|an) \w")
HOW_TO = re.compile(r"^How (?:do|can|should) I\b")
FACT = re.compile(r"^(?:How (?:many|much|long|often)|When|Who)\b")
POOR_FORM = re.compile(r"^(?:Where|What should I|What (?:can|will|might|may|would|could)|"
                       r"What is the name)\b")
BACK_NOUNS = ("variable property command function module option method macro setting policy "
              "field file target directory package class object value keyword flag parameter "
              "argument").split()
POINTS_BACK = re.compile(rf"\b(?:this|that)\s+(?:{'|'.join(BACK_NOUNS)})\b", re.I)
SECOND_OBJECT = re.compile(r"\b(?:tells?|lets?|allows?|enables?|causes?|forces?|makes?|asks?|"
                           r"permits?|instructs?)\?$")
NEXT_ENTRY = re.compile(r"\n\s*[A-Z][A-Z0-9_]{2,}\s*(?:\n|$)")
OPTION = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*")
REST_ROLE = re.compile(r":\w+:`|``")


def is_code_name(word: str) -> bool:
    """Whether ``word`` is written as code (see ``CODE_NAME``)."""
    return bool(CODE_NAME.match(word.strip("?,;:'\"‘’`")))


def title_words(title: str | None) -> set[str]:
    """The lower-cased words of a passage title that can name a subject (stopwords and
    generic nouns such as "options", "errors", "examples" left out), plural -s dropped."""
    words = (w.lower() for w in re.findall(r"[\w.:-]+", title or ""))
    return {w.rstrip("s") for w in words if len(w) > 1 and w not in STOPWORDS
            and w not in HEADING_STOPWORDS and w.rstrip("s") not in GENERIC_NOUNS
            and w.rstrip("s") not in {"error", "note", "warning", "detail"}}


def names_subject(question: str, title: str | None, topic: Subject | None) -> bool:
    """Whether ``question`` names the topic, a word of the title or a name written as code."""
    if topic is not None and topic.name.lower() in question.lower():
        return True
    words = [w.strip("?,;:'\"‘’`") for w in question.split()]
    heading = title_words(title)
    return any(w and (w.lower().rstrip("s") in heading or is_code_name(w)) for w in words)


# A definition asked of a judgement, not a term ("What is a good entry point?", "What is a
# better alternative?", "What is a common example?"): 0 of 15 accepted over twelve kinds, where
# nothing after it says of what ("What is a common use case for optional?" is asked).
EVALUATIVE = re.compile(r"^What (?:is|are) (?:a|an|the) (?:(?:very|slightly|more|most) )*"
                        r"(?:good|nice|great|better|best|typical|tricky|common|successful|"
                        r"recommended|possible|usual|alternative|interesting|handy)\b"
                        r"(?:(?! (?:for|of|in|to|with|on) ).)*\?$")
# "either" with no "or" after it: one of two things the text named before ("How do I edit
# either symbol library table?", "What does std::unexpected call in either case?"): 0 of 5.
EITHER_BACK = re.compile(r"\beither\b(?!.*\bor\b)", re.I)
OBJECT_LAST = re.compile(r"^What (?:does|do|will|did|can|may|must|should) .+ (\w+)\?$")
KEPT_VERBS = frozenset({"do", "return", "mean", "stand"})
ORDINALS = frozenset("first second third fourth last next other same following given".split())
CLASS_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")
NOUN_CALL = re.compile(r"\bthe ([a-z_]\w*\(\)) (method|function)\b(?! of)")
BARE_CALL = re.compile(r"(?<![\w.:>$])([a-z_]\w*)\(\)")
UNOWNED_ARGUMENT = re.compile(r"\bthe (?!(?:" + "|".join(ORDINALS) + r")\b)(\S+) "
                              r"(argument|parameter)\b(?! of)")


SIGNATURE_TITLE = re.compile(r"(?:^|:\s*)(?:(?:Static )?method: |Class: )?"
                             r"(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)"
                             r"\((?P<arguments>[^()]*)\)\s*$")


def signature_of(title: str | None) -> tuple[str, list[str]] | None:
    """(function, argument names) when ``title`` ends with a call signature
    (``Node.js Buffer: buf.write(string[, offset[, length]][, encoding])`` -> ``buf.write``,
    ``[string, offset, length, encoding]``), else None."""
    match = SIGNATURE_TITLE.search(title or "")
    if match is None:
        return None
    names = re.findall(r"[A-Za-z_$][\w$]*", match.group("arguments"))
    return match.group("name"), names


def own_arguments(question: str, title: str | None) -> str:
    """``question`` with the function of the title's call signature after an argument it
    names without it: "the windowSize", "the optional callback", "the length parameter"."""
    signature = signature_of(title)
    if signature is None or f"{signature[0]}(" in question:
        return question
    name, arguments = signature
    if not arguments:
        return question
    unowned = re.compile(r"\bthe ((?:optional )?(?:" + "|".join(map(re.escape, arguments))
                         + r")(?: argument| parameter)?)\b(?! of)(?=[?\s])")
    return unowned.sub(rf"the \1 of {name}()", question, count=1)


def own_parameter(question: str, title: str | None) -> str:
    """``question`` with the function a title's last part names as code after a parameter it
    names without it: "What is the activate_time parameter used for?" under "GTK 3 GtkMenu:
    gtk_menu_popup_for_device" -> "... the activate_time parameter of
    gtk_menu_popup_for_device used for?" (a parameter is its function's)."""
    function = title_parts(title)[2].strip() if title else ""
    if not is_code_name(function) or " " in function or function in question:
        return question
    return UNOWNED_ARGUMENT.sub(rf"the \1 \2 of {function}", question, count=1)


# A page title that declares what it documents, as QDoc and Doxygen title a class's page ("Qt
# QColor Class", "QTest Namespace", "std::vector Class Template Reference"): the name before it.
DECLARED = re.compile(r"(?:^|\s)([A-Za-z_][\w:]*) (?:Class|Struct|Namespace|Interface)"
                      r"(?: Template)?(?: Reference)?$")


def qualify(question: str, topic: Subject | None) -> str:
    """``question`` with the owner of an unowned member named (see the module docstring):
    only on a page whose topic is a class (``ProcessBuilder``, or the one a title declares:
    "Qt QColor Class") or a name written as code, and only when the question does not name the
    topic already."""
    if topic is None or topic.name.lower() in question.lower():
        return question
    declared = DECLARED.search(topic.name)
    if declared:
        return _own_call(question, declared.group(1))
    name = topic.name
    if CLASS_NAME.match(name):
        owned = NOUN_CALL.sub(rf"the \1 \2 of {name}", question, count=1)
        question = owned if owned != question else BARE_CALL.sub(
            lambda m: f"{name}'s {m.group(1)}()", question, count=1)
    if CLASS_NAME.match(name) or is_code_name(name):
        question = UNOWNED_ARGUMENT.sub(rf"the \1 \2 of {name}", question, count=1)
    return question


# A call the question asks about, right after its verb ("What does the toFillPolygon() return?"),
# not one a phrase qualifies ("an object's state() property", "the static trueMatrix() function").
SUBJECT_CALL = re.compile(r"^(What (?:does|do|is|are)) (?:the )?([a-z_]\w*\(\))"
                          r"(?! (?:function|method|accessor|property|member|signal|slot|call|"
                          r"argument|parameter|value)s?\b)")


def _own_call(question: str, name: str) -> str:
    """``question`` with its unowned member given to the class ``name`` a page title declares:
    "the name() function" -> "the name() function of QColor", "What does toUtf8() return?" ->
    "What does QString's toUtf8() return?" (a call the question's words qualify is left)."""
    if re.search(rf"(?<![\w:]){re.escape(name)}(?![\w:])", question):
        return question
    owned = NOUN_CALL.sub(rf"the \1 \2 of {name}", question, count=1)
    return owned if owned != question else SUBJECT_CALL.sub(rf"\1 {name}'s \2", question)


# A class's signature as API references head its entry ("class Area(**kwargs)[source]",
# "class werkzeug.datastructures.MultiDict(mapping=None)"); not a class statement of example
# code, which ends in a colon ("class Book(models.Model):").
CLASS_SIGNATURE = re.compile(r"^class (?:[a-z_]\w*\.)*([A-Z]\w*)\([^()]*\)(?:\[source\])?[ \t]*$",
                             re.M)
# A Python special method named bare: every class has its own ("What does __iter__() do?").
BARE_DUNDER = re.compile(r"(?<![\w.:#'])(?<!'s )__\w+__\b")


def owned_by_class_signature(question: str, above: str) -> str:
    """``question`` with its unowned member given to the class whose signature line is the
    last above its answer (``above``: the passage before the answer): "What does __getattr__()
    do?" under "class Area(**kwargs)" -> "What does Area's __getattr__() do?" (Django's
    reference, round 44). A passage that opens inside another entry names no class above it,
    and the member stays unowned."""
    classes = CLASS_SIGNATURE.findall(above)
    return _own_call(question, classes[-1]) if classes else question


# A module or package as titles write it: "bufio", "encoding/hex", "tornado.web", "shutil".
MODULE_PATH = re.compile(r"^[a-z][\w/.]*$")


def title_member(title: str | None) -> tuple[str, str] | None:
    """(member, qualified) of a title that ends on a member's qualified name: the name's last
    part and the name itself ("Ruby Zlib::GzipWriter#flush" -> flush, Zlib::GzipWriter#flush;
    "Go net: TCPAddr.AddrPort" -> AddrPort, TCPAddr.AddrPort), or a name under a module or
    package (``MODULE_PATH``: "Go bufio: NewWriter" -> NewWriter, "NewWriter in Go bufio"), or
    a function indicator, under its module ("Erlang lists:keysort/2" -> keysort,
    lists:keysort/2) or its system ("SWI-Prolog seek/4" -> seek, "seek/4 in SWI-Prolog"). None
    for a title that ends on words, or on a name with no owner."""
    if not title:
        return None
    owner, _, name = title.rpartition(": ")
    name = name.strip() if owner else title.split()[-1]
    # Prolog's and Erlang's function indicators: seek/4, csv//1, lists:keysort/2
    indicator = re.fullmatch(r"(\w+:)?(\w+)//?\d+", name)
    if indicator:
        prefix = owner or title[:-len(name)].strip()
        owned = indicator.group(1) or not prefix
        return indicator.group(2), name if owned else f"{name} in {prefix}"
    if " " in name or not re.fullmatch(r"[\w.:#]*\w[?!=]?", name):
        return None
    parts = _parts(name)
    if len(parts) > 1 and all(parts):
        return parts[-1], name
    if owner and re.fullmatch(r"\w+", name) and (name[:1].isupper() or is_code_name(name)) \
            and MODULE_PATH.match(owner.split()[-1]) and len(owner.split()) <= 3:
        # a name, not a word ("package"), under a module, not a page's title in words ("Django
        # PostgreSQL specific aggregation functions: JSONBAgg")
        return name, f"{name} in {owner}"
    return None


def owned_by_title(question: str, title: str | None) -> str:
    """``question`` with a member the title qualifies named as the title names it: "What does
    flush() do?" under "Ruby Zlib::GzipWriter#flush" -> "What does Zlib::GzipWriter#flush do?",
    "What does NewWriter return?" under "Go bufio: NewWriter" -> "What does NewWriter in Go
    bufio return?" (a bare method name is many classes' and packages'). Only the subject of
    "What does X do/return ...?" (``X``, ``X()``, ``obj.X()``), not when the question names the
    owner already."""
    found = title_member(title)
    if found is None:
        return question
    member, qualified = found
    owner = qualified.removesuffix(member).rstrip(".:#")
    if qualified in question or owner.split()[-1] in question:
        return question
    asked = re.compile(rf"^What does (?:the )?(?:\w+\.)?{re.escape(member)}(?:\(\))?"
                       r"(?= (?:do|return)\b)")
    if asked.search(question):
        return asked.sub(f"What does {qualified}", question, count=1)
    return question


# A qualified name a title ends on ("SciPy scipy.sparse.csc_array") or gives its section in
# brackets ("SciPy Linear algebra (scipy.linalg): Basics"): the owner of a member named bare.
TITLE_OWNER = re.compile(r"(?:^|\s)([a-z_]\w*(?:\.[A-Za-z_]\w*)+)$|\(([a-z_]\w*(?:\.[a-z_]\w*)+)\)")
BARE_SUBJECT = re.compile(r"^(What does )(?:the )?([a-z_]\w*)\(\)(?= (?:do|return)\?$)")


def owned_by_qualified_title(question: str, title: str | None) -> str:
    """``question`` with a member it names bare given the qualified name its page's title
    ends on or brackets: "What does reshape() do?" under "SciPy scipy.sparse.csc_array" ->
    "What does scipy.sparse.csc_array.reshape() do?", "What does solve() do?" under "SciPy
    Linear algebra (scipy.linalg): Basics" -> "What does scipy.linalg.solve() do?" (a method
    named bare is many classes' and modules': SciPy's reference, round 61). Not the title's own
    member, which ``owned_by_title`` names."""
    found = TITLE_OWNER.search(title or "")
    asked = BARE_SUBJECT.match(question)
    if found is None or asked is None:
        return question
    owner = found.group(1) or found.group(2)
    if owner.rsplit(".", 1)[-1] == asked.group(2):
        return question
    return BARE_SUBJECT.sub(rf"\g<1>{owner}.\g<2>()", question, count=1)


def name_owners(question: str, topic: Subject | None, title: str | None, above: str) -> str:
    """``question`` with the owners of what it names given, as the module docstring says, by
    ``qualify``, ``own_arguments``, ``own_parameter``, ``owned_by_title``,
    ``owned_by_class_signature`` (``above``: the passage before the answer) and
    ``owned_by_qualified_title``, in that order."""
    question = own_parameter(own_arguments(qualify(question, topic), title), title)
    question = owned_by_class_signature(owned_by_title(question, title), above)
    return owned_by_qualified_title(question, title)


def bare_member_answer(question: str, answer: str, title: str | None) -> bool:
    """Whether a how-to is answered by the title's member without the owner the title gives it:
    "How do I flush all the internal buffers of the GzipWriter object?" answered "flush" under
    "Ruby Zlib::GzipWriter#flush", "How do I create a new CGI::Cookie object?" answered
    "Cookie.new" (the method's name alone, many classes' name for theirs)."""
    found = title_member(title)
    if found is None or not HOW_TO.match(question) or " " in answer.strip():
        return False
    bare = _parts(answer.strip().strip("`'\"").removesuffix("()"))[-1]
    return bare == found[0] and found[1] not in answer


def _parts(name: str) -> list[str]:
    """A qualified name's parts: ``Zlib::GzipWriter#flush`` -> Zlib, GzipWriter, flush."""
    return re.split(r"::|#|\.", name)


def _object_last(question: str) -> bool:
    match = OBJECT_LAST.match(question)
    return bool(match) and match.group(1) in ALL_VERBS and match.group(1) not in KEPT_VERBS


def content_words(question: str) -> list[str]:
    return [w for w in re.findall(r"[\w'-]+", question.lower()) if w not in STOPWORDS]


def unnamed(question: str, answer: str, structured: bool, title: str | None,
            topic: Subject | None) -> bool:
    """Whether a check of the module docstring catches the question (``structured``: made
    from a definition list, a signature or a key-value line, not from a clause's words)."""
    named = names_subject(question, title, topic)
    if HOW_TO.match(question):
        vague = not named and len(content_words(question)) < TASK_WORDS
    else:
        vague = not (named or structured or DEFINITION.match(question) or FACT.match(question))
        vague = vague or (not structured and _object_last(question))
    return vague or bare_member_answer(question, answer, title) or bool(
        ((POINTS_BACK.search(answer) or OPTION.search(question)) and not named)
        or POOR_FORM.match(question) or SECOND_OBJECT.search(question)
        or NEXT_ENTRY.search(answer) or REST_ROLE.search(answer) or BARE_DUNDER.search(question)
        or EVALUATIVE.match(question) or EITHER_BACK.search(question))
