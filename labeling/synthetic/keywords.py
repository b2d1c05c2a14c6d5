"""Keyword queries: what people type into a search box about a question's subject.

A query is written only from a question whose template is known and whose subject is a name
(an option, a function, a key, an error, an acronym): the thing first, then at most a word or
two saying what is wanted, never the question's own words cut short ("posix .WEXITSTATUS()
return" was). The templates:

- "What does the --keep option of gzip do?" -> "gzip --keep option";
  "What does numeric_owner do in tarfile?" -> "tarfile numeric_owner";
- "What does the subprocess.killed property indicate?" -> "subprocess.killed property" (a
  named property, option, argument... and one verb, nothing after it; not an option, whose
  query needs its command: "--set-utc option" is not specific);
- "What does strtol() return?" -> "strtol return value";
- "What does the error EINVAL mean?" -> "EINVAL error meaning";
  "When does open() fail with EACCES?" -> "open EACCES error";
- "What does SGR stand for?" -> "SGR abbreviation";
- "What is TYPE in gnupg?" -> "gnupg TYPE" only when the name is code-like, not a capitalised
  word;
- "How many modes of operation does shuf have?" -> "shuf modes of operation";
- "What is CCM mode?" -> "CCM mode": a definition of a named thing of two to four words;
- "How do I keep input files with gzip?" -> "gzip keep input files" (the tool first, then the
  task without its articles), at most six words.

Anything else: no query.
"""

from __future__ import annotations

import re

from labeling.synthetic.subject import is_named

ARTICLES = frozenset("a an the".split())
MAX_WORDS = 6
LINKING = frozenset("for of in on to by with from at as and or default first".split())
_OPTION_OF = re.compile(r"^What does the (?P<name>\S+) (?P<noun>option|flag|switch|setting)"
                        r"(?: of (?P<owner>[\w.:+-]+))? do\?$")
CLASS_NOUNS = ("property|option|method|function|flag|field|parameter|argument|variable|setting|"
               "directive|attribute|event|macro|key")
_NOUN_VERB = re.compile(rf"^What (?:does|do) the (?P<name>\S+) (?P<noun>{CLASS_NOUNS})"
                        r"(?: of (?P<owner>[\w.:]+))? (?:\w+)\?$")
_DOES_DO = re.compile(r"^What does (?P<name>\S+) do(?: in (?P<owner>[\w.:+-]+))?\?$")
_RETURNS = re.compile(r"^What does (?:(?P<owner>[\w.:]+)'s )?(?P<name>\S+?)(?:\(\))? return"
                      r"(?P<on> on (?:error|success|failure))?\?$")
_ERROR = re.compile(r"^What does the error (?P<name>\S+) mean\?$")
_FAILS = re.compile(r"^When does (?P<owner>\S+?)(?:\(\))? fail with (?P<name>\S+)\?$")
_STANDS = re.compile(r"^What does (?P<name>[A-Z][A-Z0-9]{1,7}) stand for\?$")
_IS_IN = re.compile(r"^What is (?P<name>\S+) in (?P<owner>[\w.:+-]+)\?$")
_HOW_MANY = re.compile(r"^How many (?P<noun>[a-z][a-z ]+?) does (?P<owner>\S+) have\?$")
_WHAT_IS = re.compile(r"^What is (?:the |an? )?(?P<thing>[^?]+)\?$")
_HOW_WITH = re.compile(r"^How do I (?P<task>[^?]+?) with (?P<owner>[\w.:+-]+)\?$")


def _code_like(name: str) -> bool:
    """A name a person would type as it is: an option, identifier or call, not a capitalised
    word ("TYPE" is a placeholder, "numeric_owner" a name)."""
    name = name.rstrip("()")
    return (name[:1].isalpha() or name[:1] in "-_") and is_named(name) and not re.fullmatch(
        r"[A-Z]+", name)


def keyword_for(question: str) -> str | None:
    """The search-box query for ``question`` (see the module docstring), or None."""
    q = " ".join(question.split())
    m = _OPTION_OF.match(q)
    if m:
        owner = m.group("owner")
        return " ".join(filter(None, (owner, m.group("name"), m.group("noun"))))
    m = _NOUN_VERB.match(q)
    if m and _code_like(m.group("name")) and not m.group("name").startswith("-"):
        return " ".join(filter(None, (m.group("owner"), m.group("name").rstrip("()"),
                                      m.group("noun"))))
    m = _RETURNS.match(q)
    if m and _code_like(m.group("name")):
        name = " ".join(filter(None, (m.group("owner"), m.group("name").rstrip("()"))))
        return f"{name} return value{m.group('on') or ''}"
    m = _ERROR.match(q) or _FAILS.match(q)
    if m and re.fullmatch(r"E[A-Z0-9]{2,}", m.group("name")):
        owner = m.groupdict().get("owner")
        return f"{owner} {m.group('name')} error" if owner else f"{m.group('name')} error meaning"
    m = _STANDS.match(q)
    if m:
        return f"{m.group('name')} abbreviation"
    m = _DOES_DO.match(q) or _IS_IN.match(q)
    if m and m.group("owner") and _code_like(m.group("name")):
        return f"{m.group('owner')} {m.group('name').rstrip('()')}"
    m = _HOW_MANY.match(q)
    if m and _code_like(m.group("owner")) or m and m.group("owner").islower():
        words = [m.group("owner"), *m.group("noun").split()]
        return " ".join(words) if len(words) <= MAX_WORDS else None
    m = _WHAT_IS.match(q)
    if m and " in " not in m.group("thing"):
        thing = m.group("thing").split()
        if 2 <= len(thing) <= 4 and any(_code_like(w) or w.isupper() for w in thing) and all(
                w.lower() not in LINKING and (w.islower() or _code_like(w) or w.isupper()
                                              or i == 0) for i, w in enumerate(thing)):
            return " ".join(thing)
    m = _HOW_WITH.match(q)
    if m:
        task = [w for w in m.group("task").split() if w.lower() not in ARTICLES]
        words = [m.group("owner"), *task]
        if len(words) <= MAX_WORDS and not any(w in ("I", "my", "me") or "<" in w or "'" in w
                                               for w in task):
            return " ".join(words)
    return None
