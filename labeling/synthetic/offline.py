"""The offline question generator: rules over fact-bearing sentences, no network, no model.

For each sentence of a chunk it looks for facts (numbers and quantities, money, dates and times,
definitions, acronyms, named roles, conditions, procedures, ``key: value`` lines) and moves the
fact out of the clause into a question word of the fitting kind ("How many days of annual leave
do full-time employees get?"). Every question carries the answer span as offsets into the chunk
text, and none is emitted whose span is not in the chunk. ``rubric`` decides well-formedness.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from labeling.synthetic.candidate import Candidate
from labeling.synthetic.text import split_sentences

GENERATOR = "offline"

# --- word lists ------------------------------------------------------------------------------
QUESTION_WORDS = frozenset("what which who whom whose when where why how".split())
AUXILIARIES = frozenset(
    "is are was were am do does did can could should would will shall may might must has have "
    "had".split()
)
BE = frozenset({"is", "are", "was", "were"})
MODALS = frozenset({"can", "could", "may", "might", "must", "shall", "should", "will", "would"})
PREPOSITIONS = frozenset(
    "about above across after against along among around at before behind below beside between "
    "by during for from in inside into near of off on onto out over per since through "
    "throughout till to toward towards under until up upon via with within without".split()
)
DETERMINERS = frozenset("a an the this that these those your our their its his her my any each "
                        "every some no all".split())
CONJUNCTIONS = frozenset("and or but nor so yet plus than as".split())
# A question may not end on one of these (a dangling fragment).
DANGLING = DETERMINERS | CONJUNCTIONS | frozenset(
    "of with to from into by at in on that which who whose such very not if when".split()
)
# Pronouns that leave a question without its referent ("What does it add?").
VAGUE = frozenset("it they them he she him these those".split())
STRANDABLE = frozenset({"for", "to", "on", "with", "from", "about", "in", "into", "at", "by"})
LEAD_WORDS = frozenset(
    "after before during within once for in on at from until by since while between over".split()
)
CONDITIONS = frozenset({"if", "when", "unless", "whenever", "once"})
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "half": 0.5,
}
DURATION_UNITS = frozenset(
    "second seconds minute minutes hour hours day days week weeks month months year years "
    "working business calendar".split()
)
CURRENCIES = frozenset("eur gbp usd chf sek nok dkk pln jpy cad aud € $ £ euro euros dollars "
                       "pounds".split())
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday weekday weekdays "
                     "weekend weekends".split())
QUANTIFIERS = ("up to", "at least", "at most", "more than", "less than", "fewer than", "over",
               "about", "around", "under", "approximately", "no more than", "a maximum of",
               "a minimum of")
ROLES = frozenset(
    "manager managers director directors team teams lead leads buddy buddies finance it hr ops "
    "people owner owners admin admins administrator administrators colleague colleagues "
    "committee board officer officers reviewer reviewers approver approvers engineer engineers "
    "support desk helpdesk security legal payroll recruiter recruiters ceo cto cfo "
    "coordinator coordinators".split()
)
PLACE_NOUNS = frozenset(
    "office offices lab labs tool portal channel folder system page app drive wiki calendar "
    "room building site desk repository inbox queue website intranet hris handbook form".split()
)
# Common verbs in policy, product and procedure text (base forms); -s forms are derived.
VERBS = frozenset(
    """accept access add agree allow apply approve arrive ask assign attend become begin block
    book buy call cancel carry change charge check choose claim close collect come confirm
    connect contact continue contribute cost count cover create decide define delete deliver
    depend describe detect disable email enable end enroll enrol ensure enter escalate expire
    explain fall file fill find finish fix follow get give go grant handle happen help hold
    include increase introduce invite issue join keep last lead leave limit list log lose make
    manage mean meet move need notify offer open order own pass pause pay plan post prepare
    protect provide publish reach read receive record reduce register reimburse reject release
    remain remove renew replace report request require reset respond restart restore return
    review roll rotate run save schedule see select sell send set share ship show sign start
    stay stop store submit support take tell track train transfer try turn update upgrade use
    verify wait want work write let""".split()
)
IRREGULAR_S = {"has": "have", "does": "do", "goes": "go", "is": "be", "are": "be"}
SUBJECT_STOPS = frozenset(
    "that who which and or but when if only to where while because than".split()
)
PRONOUNS_SUBJECT = {"you": "I", "we": "we"}
PRONOUNS_OTHER = {"you": "me", "your": "my", "yours": "mine", "yourself": "myself"}


@dataclass(frozen=True)
class Tok:
    """A word of the chunk: its text and character offsets; ``brk`` = clause punctuation after."""

    text: str
    start: int
    end: int
    brk: bool = False
    paren: bool = False  # inside brackets: left out of questions

    @property
    def low(self) -> str:
        return self.text.lower()


def tokenize(text: str, start: int, end: int) -> list[Tok]:
    """Words of ``text[start:end]`` with absolute offsets, edge punctuation trimmed."""
    toks = []
    depth = 0
    for match in re.finditer(r"\S+", text[start:end]):
        a, b = start + match.start(), start + match.end()
        raw = text[a:b]
        lead = len(raw) - len(raw.lstrip("\"'(“‘["))
        trail_raw = raw[lead:]
        core = trail_raw.rstrip(".,;:!?)\"'”’]")
        if not core or (not toks and core in ("-", "*", "•")):
            continue  # punctuation, or a list bullet
        tail = trail_raw[len(core):]
        depth += raw[:lead].count("(")
        inside = depth > 0
        depth = max(0, depth - tail.count(")"))
        toks.append(Tok(core, a + lead, a + lead + len(core), brk=any(c in ",;:" for c in tail),
                        paren=inside))
    return toks


def _base(word: str) -> str | None:
    """The base form of a verb given as base or -s form, else None."""
    low = word.lower()
    if low in VERBS:
        return low
    if low in IRREGULAR_S:
        return IRREGULAR_S[low]
    if low.endswith("ies") and low[:-3] + "y" in VERBS:
        return low[:-3] + "y"
    if low.endswith("es") and low[:-2] in VERBS:
        return low[:-2]
    if low.endswith("s") and low[:-1] in VERBS:
        return low[:-1]
    return None


def _third_person(base: str) -> str:
    if base == "have":
        return "has"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ies"
    if base.endswith(("s", "sh", "ch", "x", "o")):
        return base + "es"
    return base + "s"


# --- clause analysis ---------------------------------------------------------------------------


@dataclass
class Clause:
    """``pre`` (leading adverbial) + ``subj`` + ``verb`` + ``rest``; all words of one sentence."""

    pre: list[Tok]
    subj: list[Tok]
    verb: Tok
    rest: list[Tok]


def _clause(toks: list[Tok]) -> Clause | None:
    pre: list[Tok] = []
    main = toks
    if toks and toks[0].low in LEAD_WORDS | CONDITIONS:
        comma = next((i for i, t in enumerate(toks[:14]) if t.brk), None)
        you = next((i for i, t in enumerate(toks[1:12], 1) if t.low == "you"), None)
        if comma is not None and toks[0].low not in CONDITIONS:
            pre, main = toks[: comma + 1], toks[comma + 1:]
        elif you is not None and toks[0].low not in CONDITIONS:
            pre, main = toks[:you], toks[you:]
        else:
            return None
    for i, tok in enumerate(main[1:11], 1):
        if main[i - 1].brk or main[i - 1].low in SUBJECT_STOPS:
            return None  # a comma, relative clause or conjunction in the subject: too hard
        if main[i - 1].low in DETERMINERS or main[i - 1].low in PREPOSITIONS:
            continue  # "the claims": a noun after a determiner
        if tok.low in BE or tok.low in MODALS or tok.low == "has":
            return Clause(pre, main[:i], tok, main[i + 1:])
        base = _base(tok.text)
        if base is None:
            continue
        if i + 1 < len(main) and (main[i + 1].low in BE or main[i + 1].low in MODALS):
            continue  # "security updates must ...": a noun before the real verb
        head = main[i - 1].low
        plural_subject = head.endswith("s") or head in ("you", "we", "they", "i") or head in ROLES
        if tok.low != base and not head.endswith("s") or tok.low == base and plural_subject:
            return Clause(pre, main[:i], tok, main[i + 1:])
    return None


def _is_proper(tok: Tok, text: str) -> bool:
    """Keep a capital when the word is an acronym or is capitalised mid-sentence elsewhere."""
    word = tok.text
    if any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
        return True
    if not word[:1].isupper():
        return False
    if tok.low in MONTHS | WEEKDAYS:
        return True
    return re.search(rf"[a-z,;]\s+{re.escape(word)}\b", text) is not None


def _render(toks: list[Tok], text: str, *, first_is_subject: bool = False) -> list[str]:
    """Words for the question: sentence-initial capital dropped, you -> I/me, your -> my."""
    out = []
    for i, tok in enumerate(toks):
        if tok.paren:
            continue
        word = tok.text
        if i == 0 and first_is_subject and tok.low in PRONOUNS_SUBJECT:
            word = PRONOUNS_SUBJECT[tok.low]
        elif tok.low == "you" and i + 1 < len(toks) and (
            toks[i + 1].low in AUXILIARIES or toks[i + 1].low in VERBS
        ):
            word = "I"  # "if you need ..." -> "if I need ..."
        elif tok.low in PRONOUNS_OTHER:
            word = PRONOUNS_OTHER[tok.low]
        elif word[:1].isupper() and not _is_proper(tok, text):
            word = word[:1].lower() + word[1:]
        out.append(word)
    return out


def _aux_and_verb(clause: Clause, text: str) -> tuple[str, list[str], list[str]]:
    """(auxiliary, subject words, words after the subject) for a question on ``clause``."""
    subj = _render(clause.subj, text, first_is_subject=True)
    verb = clause.verb.low
    if verb in BE:
        aux = "am" if subj == ["I"] and verb == "are" else verb
        return aux, subj, []
    if verb in MODALS:
        return verb, subj, []
    base = _base(verb) or verb
    singular = verb != base or verb == "has"
    if subj == ["I"]:
        singular = False
    return ("does" if singular else "do"), subj, [base]


def _finish(words: list[str]) -> str:
    question = " ".join(w for w in words if w).strip()
    question = re.sub(r"\s+([,;:])", r"\1", question).rstrip(",;: ")
    question = re.sub(r"\bi\b", "I", question)
    return question[:1].upper() + question[1:] + "?"


def _trim_rest(rest: list[Tok]) -> list[Tok]:
    """The rest of the clause up to its first comma or semicolon."""
    for i, tok in enumerate(rest):
        if tok.brk:
            return rest[: i + 1]
    return rest


def _wh_question(clause: Clause, wh: str, answer: tuple[int, int], text: str) -> str | None:
    """Move an answer inside ``clause.rest`` to the front as ``wh``."""
    a, _ = answer
    before = [t for t in clause.rest if t.end <= a]
    if len(before) > 10 or any(t.brk or t.low in CONJUNCTIONS or _number_value(t) for t in before):
        return None
    aux, subj, verb = _aux_and_verb(clause, text)
    pre = _render(clause.pre, text) if clause.pre else []
    return _finish([wh, aux, *subj, *verb, *_render(before, text), *pre])


# --- fact finders: each yields (answer start, answer end, wh phrase, kind) in a clause ---------


def _number_value(tok: Tok) -> bool:
    low = tok.low
    return bool(re.fullmatch(r"\d+(?:[.,]\d+)?%?", low)) or low in NUMBER_WORDS


def _quantities(clause: Clause):
    rest = clause.rest
    for i, tok in enumerate(rest):
        if not _number_value(tok) or (i and rest[i - 1].low in ("release", "version", "v")):
            continue
        if re.fullmatch(r"\d+\.\d+", tok.low) and "%" not in tok.low:
            continue  # a version number, not a quantity
        start = i
        for q in QUANTIFIERS:  # "up to 3 months": the quantifier belongs to the answer
            n = len(q.split())
            if start >= n and " ".join(t.low for t in rest[start - n:start]) == q:
                start -= n
                break
        unit: list[Tok] = []
        for nxt in rest[i + 1:i + 6]:
            if nxt.low in PREPOSITIONS - {"of"} or nxt.low in CONJUNCTIONS or nxt.low in (
                "that", "which", "who", "if", "when"
            ):
                break
            unit.append(nxt)
            if nxt.brk:
                break
        while unit and unit[-1].low in DETERMINERS | {"of"}:
            unit.pop()
        if tok.low.endswith("%"):
            yield (rest[start].start, tok.end), "what percentage", "how much"
            continue
        if not unit or _is_date(unit[0]) or (
            unit[0].low in MONTHS and unit[0].text[:1].isupper()
        ):
            continue  # a bare number or a date ("30 September")
        plural = unit[0].low.endswith("s") or unit[0].low in CURRENCIES
        if not plural and not (start < i and rest[i - 1].low in CURRENCIES):
            continue  # "one week", "half day": "how many week" is not English
        span = (rest[start].start, unit[-1].end)
        if unit[0].low in CURRENCIES or (start < i and rest[i - 1].low in CURRENCIES):
            yield span, "how much", "how much"
        elif unit[0].low in DURATION_UNITS and _base(clause.verb.text) in ("last", "take"):
            yield span, "how long", "how long"
        else:
            unit_words = [t.text for t in unit]
            yield span, "how many " + " ".join(unit_words), "how many"


def _is_date(tok: Tok) -> bool:
    low = tok.low
    return (
        low in MONTHS - {"may"} or (low == "may" and tok.text == "May") or low in WEEKDAYS
        or bool(re.fullmatch(r"\d{1,2}[:.]\d{2}|\d{1,2}(st|nd|rd|th)|(19|20)\d\d|q[1-4]", low))
    )


TIME_PREPS = frozenset("at on in by from before after until between during within".split())


def _times(clause: Clause):
    rest = clause.rest
    for i, tok in enumerate(rest):
        within = (
            tok.low in ("within", "by", "before") and i + 2 < len(rest)
            and _number_value(rest[i + 1]) and rest[i + 2].low in DURATION_UNITS
        )
        dated = _is_date(tok) or (
            _number_value(tok) and i + 1 < len(rest) and _is_date(rest[i + 1])
        )
        if not (within or (dated and i and rest[i - 1].low in TIME_PREPS | {"the"})):
            continue
        start = i if within else i - 1
        if rest[start].low == "the" and start and rest[start - 1].low in TIME_PREPS:
            start -= 1
        if rest[start].low not in TIME_PREPS:
            continue
        end = i + 2 if within else i
        while end + 1 < len(rest) and not rest[end].brk and (
            _is_date(rest[end + 1]) or _number_value(rest[end + 1])
            or rest[end + 1].low in ("to", "and", "of", "each", "every", "the", "year", "month",
                                     "week", "day", "days", "expense", "date", "-")
        ):
            end += 1
        while rest[end].low in ("to", "and", "of", "each", "every", "the"):
            end -= 1
        yield (rest[start].start, rest[end].end), "when", "when"
        return


def _places(clause: Clause, text: str):
    rest = clause.rest
    for i, tok in enumerate(rest[:-1]):
        if tok.low not in ("in", "at", "on", "via", "through", "into"):
            continue
        np: list[Tok] = []
        for nxt in rest[i + 1:i + 7]:
            if nxt.low in PREPOSITIONS or nxt.low in CONJUNCTIONS:
                break
            np.append(nxt)
            if nxt.brk:
                break
        if not np or any(_is_date(t) or _number_value(t) for t in np):
            continue
        named = any(t.text[:1].isupper() for t in np) or np[-1].low in PLACE_NOUNS
        if named:
            yield (tok.start, np[-1].end), "where", "where"
            return


# --- question builders ------------------------------------------------------------------------


def _from_clause(clause: Clause, text: str) -> list[tuple[str, int, int, str]]:
    out = []
    for (a, b), wh, kind in [*_quantities(clause), *_times(clause), *_places(clause, text)]:
        question = _wh_question(clause, wh, (a, b), text)
        if question:
            out.append((question, a, b, kind))
    verb_base = _base(clause.verb.text)
    subject_words = {t.low for t in clause.subj}
    # Who: a person or team does something.
    if (
        clause.subj[-1].low in ROLES and not subject_words & VAGUE
        and clause.verb.low not in BE and verb_base and clause.rest
    ):
        verb = clause.verb.low if clause.verb.low != verb_base else _third_person(verb_base)
        if clause.verb.low in MODALS:
            verb = clause.verb.low
        rest = _render(_trim_rest(clause.rest), text)
        out.append((_finish(["who", verb, *rest]), clause.subj[0].start, clause.subj[-1].end,
                    "who"))
    # What is X: a definition ("A security incident is any event that ...").
    if (
        clause.verb.low in ("is", "are") and not clause.pre and len(clause.subj) <= 6
        and clause.rest and clause.rest[0].low in ("a", "an", "any", "the", "one", "every")
        and not any(_number_value(t) for t in clause.subj)
    ):
        subj = _render(clause.subj, text)
        out.append((_finish(["what", clause.verb.low, *subj]), clause.rest[0].start,
                    clause.rest[-1].end, "what"))
    # What do X need: the object of a lexical verb.
    if (
        verb_base and clause.verb.low not in BE and clause.rest
        and clause.rest[0].low not in PREPOSITIONS and not _number_value(clause.rest[0])
        and verb_base not in ("be", "go", "come", "happen", "last", "start", "end", "run")
    ):
        obj = []
        for tok in clause.rest[:7]:
            if tok.low in PREPOSITIONS - {"of"} or tok.low in CONJUNCTIONS | {"that", "which"}:
                break
            obj.append(tok)
            if tok.brk:
                break
        while obj and obj[-1].low in DETERMINERS | {"of"}:
            obj.pop()
        if obj:
            aux, subj, verb = _aux_and_verb(clause, text)
            pre = _render(clause.pre, text) if clause.pre else []
            out.append((_finish(["what", aux, *subj, *verb, *pre]), obj[0].start, obj[-1].end,
                        "what"))
    # What may staff access: a modal and a main verb.
    if (
        clause.verb.low in MODALS and len(clause.rest) > 2 and clause.rest[0].low in VERBS
        and clause.rest[1].low not in PREPOSITIONS | {"not", "never", "be", "only"}
    ):
        obj = _object(clause.rest[1:])
        if obj:
            subj = _render(clause.subj, text, first_is_subject=True)
            pre = _render(clause.pre, text) if clause.pre else []
            out.append((_finish(["what", clause.verb.low, *subj, clause.rest[0].low, *pre]),
                        obj[0].start, obj[-1].end, "what"))
    return out


def _object(rest: list[Tok]) -> list[Tok]:
    """The noun phrase at the start of ``rest``: up to a preposition, conjunction or comma."""
    obj: list[Tok] = []
    for tok in rest[:7]:
        if tok.low in PREPOSITIONS - {"of"} or tok.low in CONJUNCTIONS or tok.low in (
            "that", "which", "so", "because", "only", "when", "if"
        ):
            break
        obj.append(tok)
        if tok.brk:
            break
    while obj and obj[-1].low in DETERMINERS | {"of"}:
        obj.pop()
    return obj


def _imperative(toks: list[Tok]) -> bool:
    """A sentence that starts with a base-form verb: "Submit expense claims within 60 days"."""
    if not toks or toks[0].low not in VERBS or (len(toks) > 1 and _number_value(toks[1])):
        return False
    for i, tok in enumerate(toks[1:4], 1):
        if _base(tok.text) and tok.low not in VERBS:  # an -s form: a verb, or a plural noun?
            after = toks[i + 1].low if i + 1 < len(toks) else ""
            if not (after in PREPOSITIONS or tok.brk or not after):
                return False  # "Release 4.2 introduces time windows": a subject and its verb
    return True


def _from_sentence(toks: list[Tok], text: str) -> list[tuple[str, int, int, str]]:
    out: list[tuple[str, int, int, str]] = []
    if not toks:
        return out
    # Conditions: "If X, Y" -> "What should I do if X?" / "What happens if X?"
    if toks[0].low in CONDITIONS:
        comma = next((i for i, t in enumerate(toks[:18]) if t.brk), None)
        if comma and comma + 1 < len(toks):
            cond = _render(toks[: comma + 1], text)
            main = toks[comma + 1:]
            lead = ["what", "should", "I", "do"] if _imperative(main) else ["what", "happens"]
            out.append((_finish([*lead, *cond]), main[0].start, main[-1].end, "what"))
    # Procedures: "Submit claims within 60 days" -> "When should I submit claims?"
    if _imperative(toks):
        clause = Clause([], [], toks[0], toks[1:])
        for (a, b), _, kind in _times(clause):
            before = [t for t in clause.rest if t.end <= a]
            if before and not any(t.brk for t in before):
                out.append((_finish(["when", "should", "I", toks[0].low,
                                     *_render(before, text)]), a, b, kind))
        obj = _object(toks[1:])
        after = toks[1 + len(obj):]
        if obj and len(after) >= 2 and after[0].low in ("in", "through", "via", "on", "at"):
            np = _object(after[1:])
            if np:
                out.append((_finish(["where", "do", "I", toks[0].low, *_render(obj, text)]),
                            after[0].start, np[-1].end, "where"))
        if len(toks) >= 3 and toks[1].low in PREPOSITIONS and not out:
            out.append((_finish(["how", "do", "I", toks[0].low]), toks[1].start, toks[-1].end,
                        "how do i"))
    clause = None if _imperative(toks) else _clause(toks)
    if clause is not None:
        out.extend(_from_clause(clause, text))
    return out


def _acronyms(text: str) -> list[tuple[str, int, int, str]]:
    out = []
    for match in re.finditer(r"\(([A-Z][A-Z0-9]{1,7})\)", text):
        acronym = match.group(1)
        before = text[: match.start()].split(" ")
        letters = [c for c in acronym if c.isalpha()]
        expansion = None
        for k in range(1, min(len(letters), len(before) - 1) + 1):
            words = before[-k - 1:-1] if before[-1] == "" else before[-k:]
            parts = [p for w in words for p in re.split(r"[-/]", w) if p]
            if [p[0].upper() for p in parts] == letters:
                expansion = words
                break
        if expansion is None:
            continue
        start = match.start() - len(" ".join(expansion)) - 1
        out.append((f"What does {acronym} stand for?", start, match.start() - 1, "what"))
    return out


def _tables(text: str) -> list[tuple[str, int, int, str]]:
    """Markdown tables: "What is the <column> for <first cell>?" for each body cell."""
    out = []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    header: list[str] | None = None
    for start, line in lines:
        if not line.strip().startswith("|"):
            header = None
            continue
        cells = [(m.start(1), m.group(1)) for m in re.finditer(r"\|\s*([^|]*?)\s*(?=\|)", line)]
        if header is None:
            header = [c for _, c in cells]
            continue
        if all(set(c) <= set("-: ") for _, c in cells):
            continue  # the separator row
        if not cells or not cells[0][1]:
            continue
        row = cells[0][1]
        row = row if _is_name(row) or " " not in row else row[:1].lower() + row[1:]
        for (offset, cell), column in zip(cells[1:], header[1:], strict=False):
            words = column.lower().split()
            if cell and words and words[-1] not in PREPOSITIONS and words[0] not in (
                QUESTION_WORDS | {"then", "now", "else", "notes"}
            ):
                out.append((f"What is the {column.lower()} for {row}?", start + offset,
                            start + offset + len(cell), "what"))
    return out


def _is_name(cell: str) -> bool:
    first = cell.split()[0] if cell.split() else ""
    return any(c.isupper() for c in first[1:]) or any(c.isdigit() for c in first)


def _key_values(text: str) -> list[tuple[str, int, int, str]]:
    out = []
    for match in re.finditer(r"(?m)^[ \t]*([A-Za-z][\w /-]{1,40}):[ \t]+(\S[^\n]{0,200})$", text):
        key = match.group(1).strip().lower()
        out.append((f"What is the {key}?", match.start(2), match.end(2), "what"))
    return out


# --- rubric ------------------------------------------------------------------------------------


def rubric(question: str, sentence: str = "") -> list[str]:
    """Why ``question`` is not well-formed; an empty list means it passes.

    Checks: ends with one "?"; starts with a question word or an auxiliary (or a preposition
    followed by one: "Under which heading..."); 4-25 words; no dangling last word (an article,
    conjunction or possessive); brackets and quotes balanced; first letter upper case, "I"
    capitalised, not shouting; no pronoun without its referent ("it", "they"...); and not a
    copy of ``sentence`` with a question mark.
    """
    problems = []
    q = question.strip()
    body = q.rstrip("?").strip()
    tokens = body.split()
    if not q.endswith("?") or q.count("?") != 1:
        problems.append("does not end with a single '?'")
    first = tokens[0].lower() if tokens else ""
    second = tokens[1].lower() if len(tokens) > 1 else ""
    if not (first in QUESTION_WORDS or first in AUXILIARIES or (
        first in PREPOSITIONS and second in QUESTION_WORDS
    )):
        problems.append("does not start with a question word or an auxiliary")
    if not 4 <= len(tokens) <= 25:
        problems.append(f"{len(tokens)} words (4-25 allowed)")
    last = re.sub(r"\W+$", "", tokens[-1].lower()) if tokens else ""
    if last in DANGLING and not (last in STRANDABLE and len(tokens) > 2):
        problems.append(f"ends on a dangling {last!r}")
    if re.search(r"[,;:]\s*\?$|\s[,;:]|\s{2,}", q) or body.endswith(("-", "(", "/")):
        problems.append("dangling punctuation")
    if q.count("(") != q.count(")") or q.count('"') % 2:
        problems.append("unbalanced brackets or quotes")
    if not q[:1].isupper() or re.search(r"\bi\b", q) or (body.isupper() and len(body) > 3):
        problems.append("casing")
    vague = sorted(VAGUE & {w.lower() for w in re.findall(r"[\w']+", body)})
    if vague:
        problems.append(f"vague pronoun {vague[0]!r}")
    if sentence and _is_copy(body, sentence):
        problems.append("copies the sentence")
    return problems


def _is_copy(body: str, sentence: str) -> bool:
    q = re.findall(r"\w+", body.lower())
    s = re.findall(r"\w+", sentence.lower())
    if not q or not s:
        return False
    if q[0] in QUESTION_WORDS or q[0] in AUXILIARIES:
        q = q[1:]
    if " ".join(q) in " ".join(s) and len(q) >= 0.8 * len(s):
        return True
    return difflib.SequenceMatcher(None, q, s, autojunk=False).ratio() >= 0.9


# --- public API --------------------------------------------------------------------------------


def fact_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of ``text`` that state a fact the generator can ask about."""
    return [(a, b) for a, b in split_sentences(text) if _from_sentence(tokenize(text, a, b), text)]


def generate(chunk_id: str, text: str, *, max_per_chunk: int = 5) -> list[Candidate]:
    """Questions for one chunk, well-formed ones first (then in sentence order).

    Each candidate's answer span is checked against ``text``; ``problems`` holds the rubric's
    objections (kept so the reviewer and the statistics can see them).
    """
    found: list[tuple[str, int, int, str, str]] = []
    for a, b in split_sentences(text):
        sentence = text[a:b]
        if sentence.lstrip().startswith("|"):
            continue  # table rows are read by _tables
        for question, start, end, kind in _from_sentence(tokenize(text, a, b), text):
            found.append((question, start, end, kind, sentence))
    for question, start, end, kind in [*_acronyms(text), *_key_values(text), *_tables(text)]:
        found.append((question, start, end, kind, _sentence_at(text, start)))
    seen: set[str] = set()
    out: list[Candidate] = []
    for question, start, end, kind, sentence in found:
        answer = text[start:end]
        if question.lower() in seen or not answer.strip() or answer not in text:
            continue
        seen.add(question.lower())
        out.append(Candidate(
            chunk_id=chunk_id, question=question, generator=GENERATOR, sentence=sentence,
            answer=answer, answer_start=start, answer_end=end, kind=kind,
            problems=rubric(question, sentence),
        ))
    out.sort(key=lambda c: bool(c.problems))  # stable: well-formed first, sentence order kept
    return out[:max_per_chunk]


def _sentence_at(text: str, offset: int) -> str:
    for a, b in split_sentences(text):
        if a <= offset < b:
            return text[a:b]
    return ""
