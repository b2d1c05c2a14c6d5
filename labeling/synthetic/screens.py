"""Screens for questions the rules misread: source artefacts, a verb or an adverb where the
subject should be, a preposition left behind, a capitalised article inside the question
("What is The Named?"), a token with no letter or digit ("Where is the result // in the latter
case?"), a sentence adverb ("also", "now"), a placeholder ("--fuzz=LINES"); an answer that
points at what follows ("a command like the following"). A question a screen catches is not
asked, nor its keyword query.

From the Perl POD held-out round: a capitalised word copied from mid-sentence ("do If Test2
..."), a version or change-log fragment ("as of 1.37_02"), a note marker read as a term ("NB"),
a word doubled ("the the"), a source sentence copied with its verb blanked ("What can the
SelfLoader load?"), a how-to with a code variable ("the root of $x"), "What happens if ...?"
naming no API; answers cut mid-phrase ("... a filepath even"), code fragments ("=
HTTP::Tiny->can_ssl"), advice where a behaviour was asked ("one should always specify ..."),
or pointing back ("set these options").

From the Vim help held-out round: a how-to copied from a description with its placeholders
("How do I place the sign defined as {name} at line {lnum}?"), the reader put in the third
person's verb ("which file I are editing"), a template fragment as the subject
("end={end-pattern}"), a question ending on a bare copula ("... if {name} is?"), a definition
of a single common word ("What is a filter?"), a relative reference ("the opposite command");
answers that run on past the end of their sentence into the next line.

From the development rounds graded by independent graders (Javadoc, GNU Info, READMEs, Vim,
the Python reference): an answer that only restates what the question names ("the number of
tasks" for ``getTaskCount()``), a manual's argument placeholder in the question ("when {check}
is omitted"), a FAQ's own label read as a term ("What is A1 in libc6?"), a pointing phrase
("related to this object"), a capital copied from mid-sentence ("What is As SO_SNDBUF?").

From the BIND 9 manual (round 56): an answer that is a configuration block's opening line
('zone "example.com" IN {'), a "When is ...?" that kept its participle ("When is EDNS a standard
that was first specified?") and a how-to that runs on into a description's verb ("How do I
connect to 127.0.0.1 port 953 and causes the name server to reload?").

From SQLAlchemy's reference (round 54): a permalink mark or a Sphinx entry's object type left
beside a name ("pool_timeout=30¶", "What do attribute sqlalchemy.orm...load_options return?").

From KiCad's manuals (round 51): an instruction to use a control the text shows only as a
picture ("click the icon"), neither named nor placed.
"""

from __future__ import annotations

import re

from labeling.synthetic.clauses import base_form
from labeling.synthetic.quality import STOPWORDS
from labeling.synthetic.subject import is_named
from labeling.synthetic.words import ALL_VERBS, PREPOSITIONS

# Source artefacts a person would not type: reST/Markdown markup, "--" dashes, stray quotes,
# a scope operator with its owner left out ("the::backspace signal" of gtk-doc's "The
# ::backspace signal is ...": whose signal, the question cannot say; "return value
# of::http::geturl", Tcl's "::http::geturl" glued to the word before it).
ARTEFACTS = re.compile(r"\s--\s|[`*^]|\s=|(?:^|\s)'|'(?:\s|\?)|(?:^|\s)[-+]{1,2}\w[\w-]*,?\s+"
                       r"[-+]{1,2}\w|(?:^|[\s(]|\b(?:the|a|an|of|to|in|for|on|with|by))::\w", re.I)
# What documentation generators leave beside a name: a permalink mark ("pool_timeout=30¶"), a
# Sphinx entry's object type before a qualified name ("What do attribute
# sqlalchemy.orm.ORMExecuteState.load_options return?": SQLAlchemy's reference, round 54; "What
# is function rep.int?" is R's own wording).
GENERATOR_MARK = re.compile(r"\u00b6|^What (?:do|does) (?:attribute|method|classmethod|"
                            r"staticmethod|property|data|function|class|exception|module) "
                            r"[A-Za-z_]\w*(?:\.\w+)+")
# A question whose subject slot holds an adverb or a gerund: "What do always read?", "What
# does using all for COMPONENT launch?" (a definition-list label or a clause misread).
NO_SUBJECT = re.compile(r"^What (?:do|does|did|will|can|may) (?:always|never|not|only|also|"
                        r"using|adding|selecting|calling|running|setting|passing|specifying|"
                        r"enabling|disabling|giving|providing|making|\w+ly)\b")
# An answer that points at what follows instead of holding it: "you can use a command like the
# following", "the following functions are used"; or only at the entry's own subject: "Use this
# function to free an SDL_RWops ..." answered "this function", "this command" (rounds 38, 39).
POINTING_ANSWER = re.compile(r"\b(?:the following|as follows|like this|shown below|see below)\b|"
                             r":\s*$|^\s*(?:this|that|these|those)\s+[a-z]+\s*$", re.I)
# "What is The Named?", "What is 2:2,3c 3:4,5c The named?": a sentence's capital inside.
# "What does x() do If Test2 ...?", "What is As SO_SNDBUF?": a sentence-initial capital
# copied from mid-sentence.
INNER_ARTICLE = re.compile(r"\s(?:The|A|An|If|When|Unless|While|Whether|This|These|Those|It|"
                           r"Its|Then|Otherwise|Also|Note|As|Since|Because|Although|Once)\s")
# Version and change-log fragments: "as of 1.37_02", "since version 3.2", "added in v0.20".
VERSION = re.compile(r"\b(?:as of|since|until|prior to|before|after|from|in)\s+(?:version\s+|"
                     r"v)?\d+(?:[._]\d+)+|\bversion\s+\d|\bv\d+\.\d", re.I)
# Note markers read as a term ("What is NB in ...?"), a word doubled ("the the").
NOTE_OR_DOUBLE = re.compile(r"\b(?:NB|N\.B|TODO|FIXME|XXX)\b|\b(\w+)\s+\1\b", re.I)
# "How do I calculate the root of $x?": a code variable stands where a thing should be named.
HOWTO_VARIABLE = re.compile(r"^How (?:do|can|should) I\b.*\s[$@%]\w")
# "What does X do if <condition>?": accepted 17 times in 42 over rounds 4-12 even after every
# other screen (the condition copied from the sentence, its subject often another one's).
# Precision first: not asked.
CONDITIONAL = re.compile(r"^What (?:does|do|happens|will|would|should|is)\b.*"
                         r"\b(?:if|when|unless)\b")
# "How do I find the alias?", "How do I generate a report?": a task of fewer than three content
# words naming nothing (accepted 5 times in 22 over all rounds, 84 in 145 otherwise).
SHORT_TASK = re.compile(r"^How (?:do|can) I (?P<task>.+)\?$")
# Note markers and pointers read as a subject: "What is the difference between NOTE and AWS?",
# "What does see AWS CloudHSM key store ...?".
MARKER_SUBJECT = re.compile(r"\b(?:NOTE|WARNING|TIP|IMPORTANT|CAUTION|DEPRECATED|EXPERIMENTAL|"
                            r"CHANGE|CHANGED|OBSOLETE)\b|^What (?:does|do) (?:see|note|refer)\b")
# From the round-14 grades (the Rust book, a tutorial): the author's voice copied ("How does
# we'll explore ...", "Why can we no longer use user1?"); a reference to the document's own
# numbering ("How does Listing 9-4 show ...?"); the example's entry point standing for "this
# code" ("Why does main() print one?"); a heading's gerund read as a term ("What is Using
# RefCell<T>?"); a pointing noun ("the code", "the process"); why-questions, accepted 12 times
# in 29 over all rounds (a clause's reason, copied).
TUTORIAL = re.compile(r"\b(?:we|we'll|we\u2019ll|we've|we\u2019ve|us|our)\b|"
                      r"\b(?:listing|figure|table)\s+\d|\bmain\(\)|^Why\b|"
                      r"^What (?:is|are) [A-Z][a-z]+ing\b|"
                      r"\bthe (?:code|process|function|example|program|relationships)(?![\w.(])",
                      re.I)
# A fact moved out of a clause with the rest copied around a question word: "Who depends on
# the Cairo library?", "How does the EC2 Fleet launch 2 Spot Instances?", "How many colors is
# xterm in most cases built with support for?", "Where do I try o conf init prefs_dir?".
# Graded over rounds 1-15: who 0 of 2, how-by-what-means 1 of 18, how many/much 12 of 35,
# where 2 of 22 (a how-to, "How do I ...?", is asked from the passage's own "To X, use Y").
MOVED_FACT = re.compile(r"^(?:Who|Where|How (?:many|much))\b|"
                        r"^How (?:does|do|did|is|are|was|were|can|could|will|would) (?!I\b)")
# From the round-17 grades (the Cargo book): an option's description copied with its argument's
# referent ("How do I install only the specified binary?": which? 0 of 9 accepted over all
# rounds) and a table's entries read as a subject ("What is each key in the replace table?",
# 0 of 3); from round 18 (Rust's API docs), a method's result as one ("What is the returned
# TcpStream?", 0 of 6) and a when-question ending on a preposition ("When was the fallback
# changed to?", 0 of 1).
UNBOUND_REFERENT = re.compile(r"\bthe (?:specified|given|supplied|provided|returned|resulting)\b|"
                              r"^resulting\b|"
                              r"^What (?:is|are) (?:each|every)\b|"
                              r"^When\b.*\s(?:to|from|of|with|by|in|on|at|for)\?$", re.I)
# From round 37 (Haskell's Haddock reference): a complexity label read into the subject ("What
# does o(n) takeEnd n t return?" of "O(n) takeEnd n t returns ...", "What is \(\mathcal{O}(n)\)
# scanr?"), and a common noun standing before a name as its label ("What does computation
# hTell hdl return?" of "Computation hTell hdl returns ...").
COMPLEXITY = re.compile(r"(?<![\w.])O\([^)]*\)|\\mathcal\b", re.I)
LABEL_BEFORE_NAME = re.compile(r"^What (?:does|do|is|are) (?!(?:the|a|an|each|every|this|that|"
                               r"function|method|macro|command|class|type|module|option)\b)"
                               r"[a-z]+ (?:[a-z]+[A-Z]\w*|[a-z]+_\w+)\b")
# From round 41 (the Ada Reference Manual): a paragraph's number read into the subject ("What is
# 2/3 a categorization pragma?", "What does 92 To_String return?", "15/2 CPU_Time_Unit").
# From round 42 (Qt's reference): a table row's value read into the subject after the name
# ("What does QStandardPaths::PicturesLocation 6 return?" of "QStandardPaths::PicturesLocation 6
# Returns the directory ...").
NUMBER_LABEL = re.compile(r"^\d+(?:\.\d+)*/\d+ |^What (?:is|are|does|do|shall|must|can|will) "
                          r"(?:\d+(?:\.\d+)*(?:/\d+)? (?!(?:mean|stand)\b)[A-Za-z]|"
                          r"\S*(?:::|_|\.)\S* (?:0x[\dA-Fa-f]+|\d+) [a-z])")
# From round 19 (the Rust Reference): a generic head defined ("What is a common example?", "a
# special case", "a square element": 0 of 6 over all rounds), an adverb copied between the
# copula and its subject ("What is here the capture path?", 0 of 2), and a bracket left open by
# the source's markup ("What is the #[diagnostic attribute namespace?", 0 of 3).
GENERIC_HEAD = re.compile(r"^What (?:is|are) (?:a|an|the) (?:[a-z]+ )?(?:case|example|term|kind|"
                          r"way|form|thing|element|part|instance|one)s?\?$|"
                          r"^What (?:is|are) (?:here|otherwise|then|there|now|thus|so)\b")
# A FAQ's own label for a question or its answer ("Q2", "A1"), read as a term: "What is A1 in
# libc6?" (a priority such as "P1" is a term of its own).
SECTION_LABEL = re.compile(r"^[QA]\d{1,2}$")
# "What does has() do when {check} is omitted?", "... if the <newname> path exists?": a
# manual's argument placeholder copied into the question (graded unnatural 13 times in 19;
# an option's value, "if no --type=<type> is given", is how the manual names the option).
PLACEHOLDER_ARGUMENT = re.compile(r"(?<![=\w-])(?:\{[\w-]+\}|<[\w-]+>)")
# "I are", "I has": the reader put where the source's "you" or a third person was.
READER_AGREEMENT = re.compile(r"\bI (?:are|is|has|does|was not)\b")
# A clause moved around "When is" that kept its participle: "When is Devuan a fork of Debian
# started?", "When is EDNS a standard that was first specified?" (rounds 52 and 56; 0 of 6
# "When is ...?" accepted over the held-out rounds).
WHEN_IS_PARTICIPLE = re.compile(r"^When is \S+ (?:a|an|the) .+ \w+ed\?$")
# "What is end={end-pattern} in syntax?": a template as the subject (an option's placeholder in
# a condition, "if no --type=<type> is given", is how the source names it).
TEMPLATE = re.compile(r"^What (?:is|are|does|do) (?:the )?\S+=[{<\[]")
# "... if {name} is?": the complement of a condition's copula cut off (not "what the current
# language is?", a question inside the question).
BARE_COPULA = re.compile(r"\b(?:if|when|unless|whether)\s+\S+\s+(?:is|are|was|were|be)\?$")
# "What is a filter?", "What is the palette?": one common word defined, with no name to tell
# which (with "the": 0 of 6 graded over five kinds by round 37).
# "What is the string obj_file?", "What is the second parameter szExtra?", "What is the
# corresponding SQLITE_STMTSTATUS_FILTER_MISS value?": a name introduced by the words of the
# sentence that described it, asked as if they were part of it (a preposition before the name,
# "the octal for S_IWUSR", asks of it properly).
DESCRIBED_NAME = re.compile(r"^What (?:is|are) (?:the|an?) (?!(?:[\w-]+ )?(?:of|for|in|on|to|with|"
                            r"between|from|by)\b)(?:[a-z][a-z-]* ){1,2}(?:\S*[_(]\S*|"
                            r"[A-Z][A-Z0-9_]{2,}|[a-z]+[A-Z]\w*)(?: [A-Za-z]+){0,2}\?$")
COMMON_WORD_DEFINITION = re.compile(r"^What (?:is (?:a|an|the)|are the) [a-z]+\?$")
# "the opposite command", "the former": a reference to the text around the sentence.
RELATIVE = re.compile(r"\b(?:opposite|latter|former|aforementioned|previous|preceding)\b|"
                      r"\b(?:this|these|those)\s+[a-z]", re.I)
# An API named: a call, a qualified name, a method, an option, a constant.
API = re.compile(r"^(?:\w+\(\)|\w+(?:::|\.|->)\w[\w:.>-]*|--?\w[\w-]*|[A-Z][A-Z0-9_]{2,})$")
# Answers: cut after a word that cannot end a phrase; code; advice; pointing back.
DANGLING = frozenset("even also only the a an of to and or but with for from by as than that "
                     "which not just either both into on in at".split())
# Code for an answer: one that opens on an operator, ends on a statement's semicolon or a
# block's opening brace ('zone "example.com" IN {', "controls {": BIND's manual, round 56), or
# assigns.
CODE_ANSWER = re.compile(r"^\s*(?:[=;{}>]|->)|[;{]\s*$|\s=\s")
ADVICE = re.compile(r"^(?:(?:one|you|users?|the user)\s+)?(?:\w+ly\s+)?(?:should|must|ought to|"
                    r"needs? to|have to)\b", re.I)
POINTING_BACK = re.compile(r"^(?:\S+\s+){0,2}(?:these|those)\s", re.I)
# An answer that is only a pointing word ("this": use what?).
POINTING_WORD = re.compile(r"(?:this|that|these|those|it|here|there|below|above)\W*", re.I)
# An instruction to use a control the text shows as a picture, neither named nor placed ("click
# the icon", "click on the icon to show the dialog below": KiCad's manuals, round 51).
UNSEEN_CONTROL = re.compile(r"(?:to\s+)?(?:click|press|select|tap)(?:\s+on)?\s+the\s+"
                            r"(?:icon|button)(?:\s+(?:to|and)\b.*)?\W*", re.I | re.S)
RUNS_ON = re.compile(r"[.!?]\s*\n\s*\S")  # past its sentence's end onto the next line
# Sentence adverbs that only make sense next to the source sentence: "What does BBV also
# count?", "What can the monitor command now control?", "What does chmod ignore in contrast?".
SENTENCE_ADVERBS = re.compile(r"\b(?:also|now|still|in contrast|however|therefore|thus|"
                              r"furthermore|moreover|additionally|likewise|similarly|"
                              r"by contrast|on the other hand|in particular|happily|"
                              r"in brief|in short|in other words|i\.e|e\.g)\b|"
                              r"\bthen\?$", re.I)
# An option's value placeholder read as part of a name: "What do --fuzz=LINES set?".
PLACEHOLDER = re.compile(r"\S=[A-Z]")
# A token with neither a letter nor a digit: "//", "->", "..." (a dash option has letters).
NO_WORD = re.compile(r"(?:^|\s)[^\w\s]+(?=\s|\?|$)")


def points_away(answer: str) -> bool:
    """Whether the answer points at text after it, or at the entry's subject, instead of
    holding the answer."""
    return bool(POINTING_ANSWER.search(answer))


def task_joins_description(question: str) -> bool:
    """Whether a how-to runs on into a description's verb: "How do I connect to 127.0.0.1 port
    953 and causes the name server to reload?" (a task and what the command does, one clause;
    BIND's manual, round 56)."""
    match = re.match(r"^How (?:do|can|should) I .+? and (\w+s)\b", question)
    return bool(match) and (base_form(match.group(1)) or "") in ALL_VERBS


def misread(question: str) -> bool:
    """Whether a screen catches ``question`` (see the module docstring)."""
    return bool(ARTEFACTS.search(question) or NO_SUBJECT.search(question)
                or INNER_ARTICLE.search(question) or NO_WORD.search(question.rstrip("?"))
                or SENTENCE_ADVERBS.search(question) or PLACEHOLDER.search(question)
                or VERSION.search(question) or NOTE_OR_DOUBLE.search(question)
                or HOWTO_VARIABLE.search(question) or verb_for_subject(question)
                or PLACEHOLDER_ARGUMENT.search(question) or CONDITIONAL.search(question)
                or MARKER_SUBJECT.search(question) or short_task(question)
                or TUTORIAL.search(question)
                or any(SECTION_LABEL.match(w.strip("?,")) for w in question.split()[1:])
                or READER_AGREEMENT.search(question) or TEMPLATE.search(question)
                or BARE_COPULA.search(question) or COMMON_WORD_DEFINITION.match(question)
                or RELATIVE.search(question) or MOVED_FACT.search(question)
                or UNBOUND_REFERENT.search(question) or GENERIC_HEAD.search(question)
                or unbalanced(question) or COMPLEXITY.search(question)
                or LABEL_BEFORE_NAME.search(question) or NUMBER_LABEL.match(question)
                or preposition_twice(question) or verb_echoes_name(question)
                or names_twice(question) or DESCRIBED_NAME.match(question)
                or verb_as_subject(question) or CUT_RELATIVE.search(question)
                or GENERATOR_MARK.search(question) or WHEN_IS_PARTICIPLE.match(question)
                or task_joins_description(question))


def verb_as_subject(question: str) -> bool:
    """"What are returns a list whose elements?": a description's opening verb ("Returns a list
    whose elements are ...") read as the subject of its "are"."""
    match = re.match(r"What (?:is|are) (\w+s) ", question)
    if match is None:
        return False
    word = match.group(1).lower()
    return word not in STOPWORDS and base_form(word) in ALL_VERBS and base_form(word) != word


# "What is a pair whose car?": a relative clause cut before its verb.
CUT_RELATIVE = re.compile(r"\bwhose \w+\?$")


def names_twice(question: str) -> bool:
    """Whether one name (``API``: a call, a qualified name, an option, a constant; not a word
    of letters only) is written twice: a heading read into the sentence ("What is
    SQLITE_PREPARE_NORMALIZE the SQLITE_PREPARE_NORMALIZE flag?") or a list of names."""
    names = [w for w in (w.strip("?,;:") for w in question.split())
             if API.match(w) and not w.isalpha()]  # "LTO ... LTO": an acronym may repeat
    return len(names) != len(set(names))


def unbalanced(question: str) -> bool:
    """Whether a bracket of ``question`` is left open or closed without opening."""
    return any(question.count(a) != question.count(b) for a, b in ("()", "[]", "{}"))


def bad_answer(question: str, answer: str) -> bool:
    """Whether ``answer`` is cut mid-phrase, a code fragment, a bare value ("to false"), a word
    doubled, pointing back ("these options") or only a pointing word ("this"), a control
    shown only as a picture ("click the icon"), advice where a behaviour was asked ("What
    happens ...?"), or not what a thing is where that was asked (``NOT_WHAT_IT_IS``)."""
    words = answer.split()
    return not words or words[-1].lower() in DANGLING or restates(question, answer) or bool(
        BARE_VALUE.match(answer) or CODE_ANSWER.search(answer) or NOTE_OR_DOUBLE.search(answer)
        or RUNS_ON.search(answer)
        or POINTING_BACK.search(answer) or POINTING_WORD.fullmatch(answer.strip())
        or UNSEEN_CONTROL.fullmatch(answer.strip())
        or (question.startswith(("What happens", "What does")) and ADVICE.search(answer))
        or (question.startswith(("What is ", "What are ")) and NOT_WHAT_IT_IS.match(
            answer.strip())))


def one_case(question: str, answer: str, after: str) -> bool:
    """Whether a return question is answered by one case of the value, its condition left
    after the answer (``after``: the passage text that follows it): "What does the
    sqlite3_mutex_try() interface return?" answered "SQLITE_OK" of "returns SQLITE_OK upon
    successful entry", "is.character return value" answered "TRUE" of "returns TRUE or FALSE
    depending on ..." (the other value after "or")."""
    return question.endswith(("return?", "returns?")) and len(answer.split()) <= SHORT_VALUE \
        and bool(CASE_CONDITION.match(after))


def happens_unnamed(question: str, topic: str) -> bool:
    """"What happens if there is already a context active?": a condition naming no API (a
    call, a qualified name, an option, a constant) nor the passage's topic."""
    match = re.match(r"What happens (?:if|when|unless)\b(.*)", question)
    if match is None:
        return False
    words = [w.strip("?,;:") for w in match.group(1).split()]
    return not any(API.match(w) or (topic and w == topic) for w in words)


# "to false" for "How do I disable the progress bar?": the value without the setting it is for.
BARE_VALUE = re.compile(r"^to\s+\S+$", re.I)
# Answers to "What is X?" that say something else: an instance ("an example of an innocuous
# function" for abs()), a side case ("a no-op if is called with a NULL pointer" for
# sqlite3_free()), a difference from an unnamed thing ("the same except that ..."), or the
# background an option changes ("Normally, VACUUM will skip pages ...").
NOT_WHAT_IT_IS = re.compile(r"^(?:(?:an?|one)\s+(?:example|instance)\s+of\b|a\s+no-op\b|"
                            r"the\s+same\s+(?:except|but)\b|"
                            r"(?:normally|usually|typically|ordinarily),)", re.I)
# A value of at most this many words followed by a condition is one case of a return value.
SHORT_VALUE = 3
CASE_CONDITION = re.compile(r"^['\"\u2019\u201d]?\s*(?:if|iff|when|whenever|unless|upon|only|on|"
                            r"after|once|in case|otherwise|depending|or)\b", re.I)
# Words an answer may add to a question's words and still say nothing new ("the local
# date-time, not null" for the localDateTime parameter; "a callable object" returned by
# privilegedCallable()).
NOTHING_NEW = frozenset("a an the this that these those to be is are of for in on by with from "
                        "as not null non true false otherwise if object objects value values "
                        "new given specified return returns returned it its or and".split())


def name_parts(text: str) -> set[str]:
    """The words of ``text`` but ``NOTHING_NEW``, names split at case changes and underscores
    (``localDateTime`` -> local, date, time), a plural or past ending dropped."""
    out = set()
    for token in re.findall(r"[A-Za-z][A-Za-z0-9_]*", text):
        for part in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", token.replace("_", " ")):
            part = part.lower()
            if part in NOTHING_NEW or len(part) < 2:
                continue
            for ending in ("ing", "ed", "es", "s", "d"):
                if part.endswith(ending) and len(part) - len(ending) >= 3:
                    part = part[:-len(ending)]
                    break
            out.add(part)
    return out


def short_task(question: str) -> bool:
    """Whether a how-to's task has fewer than three content words and names nothing (see
    ``SHORT_TASK``)."""
    match = SHORT_TASK.match(question)
    if match is None:
        return False
    task = match.group("task").split()
    content = [w for w in re.findall(r"[\w'-]+", match.group("task").lower())
               if w not in STOPWORDS]
    return len(content) < 3 and not any(is_named(w.strip(",;:")) for w in task)


def restates(question: str, answer: str) -> bool:
    """Whether a what-question's answer only says again what the question names, adding at
    most one word of its own ("What does ThreadPoolExecutor.getTaskCount() return?" -> "the
    number of tasks"). Not for options, numbers, conditions ("... do if the input is
    invalid?" -> "nothing is returned") or one-word answers."""
    if not (question.startswith("What ") or question.endswith(" return value")) or \
            len(answer.split()) < 2 or re.search(r"\d", answer) or re.search(
                r"(?:^|\s)--?\w|\b(?:if|when|unless)\b", question):
        return False
    return len(name_parts(answer) - name_parts(question)) <= 1


def verb_echoes_name(question: str) -> bool:
    """"What can the SelfLoader load?", "What will ... add_bits() add?": the source sentence
    copied with its verb blanked, the verb already in the name it is asked about."""
    words = question.rstrip("?").split()
    last = words[-1].lower() if len(words) > 3 else ""
    return len(last) >= 3 and last.isalpha() and last not in PREPOSITIONS and any(
        last in w.lower() and w.lower() != last for w in words[1:-1])


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
    that the question already used; "How do I set a label at to y=x?", "... from the origin to
    with ...": a preposition whose object was dropped (the sentence's "(1,2)"); "How do I
    produce a gray palette use?": the instruction's verb left after the task of "To ... use:"."""
    words = question.rstrip("?").lower().split()
    pairs = zip(words, words[1:], strict=False)
    left_use = question.startswith("How do I ") and words[-1] == "use" and \
        words[-2] not in PREPOSITIONS | {"to"}  # not "... in use?", "which one to use?"
    return len(words) > 3 and (
        (words[-1] in PREPOSITIONS and words[-1] in words[:-1]) or left_use
        or any(a in EMPTIED and b in EMPTIED and a != b for a, b in pairs))


# Prepositions that take a point or a value ("at 1,2", "to 1,2", "from the origin"): two in a
# row ("at to", "to with") are one left without its object ("out of", "from within" are not).
EMPTIED = frozenset("at to from with".split())


