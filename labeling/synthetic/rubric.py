"""The rubric: whether a synthetic question is well-formed, the same test for every generator.

The offline generator, the LLM generator and the imported question sets (LlamaIndex, Ragas) all
keep a question's objections in ``Candidate.problems``, so the reviewer and the statistics see
them whatever wrote the question.
"""

from __future__ import annotations

import difflib
import re

from labeling.synthetic.text import words
from labeling.synthetic.words import (
    AUXILIARIES,
    DANGLING,
    PREPOSITIONS,
    QUESTION_WORDS,
    STRANDABLE,
    VAGUE,
)


def rubric(question: str, sentence: str = "", *, form: str = "") -> list[str]:
    """Why ``question`` is not well-formed; an empty list means it passes.

    Checks: ends with one "?"; starts with a question word or an auxiliary (or a preposition
    followed by one: "Under which heading..."); 4-25 words; no dangling last word (an article,
    conjunction or possessive); brackets and quotes balanced; first letter upper case, "I"
    capitalised, not shouting; no pronoun without its referent ("it", "they"...); and not a
    copy of ``sentence`` with a question mark. The grammar checks (``grammar``) apply too. A
    ``keyword`` query is judged as one (``keyword_rubric``).
    """
    if form == "keyword":
        return keyword_rubric(question)
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
    if re.match(r"(how|where) (do|can|should) i \S+$", body.lower()):
        problems.append("how-to without an object")  # "How do I block?" names nothing
    return problems + grammar(q)


GRAMMAR = "grammar: "


def is_soft(problem: str) -> bool:
    """A grammar objection: it lowers the quality score but does not keep the question out."""
    return problem.startswith(GRAMMAR)


def grammar(question: str) -> list[str]:
    """Grammar faults rules make, each prefixed ``grammar: ``: a how-to with no object ("How do
    I block?"), a repeated word, an article before a function word ("What is the for ..."), a
    capital mid-sentence ("What happens If ..."), shell or code symbols."""
    return [GRAMMAR + p for p in _grammar(question)]


def _grammar(question: str) -> list[str]:
    problems = []
    low = question.lower().rstrip("?")
    if re.search(r"\b(\w+) \1\b", low):
        problems.append("repeated word")
    if re.search(r"\b(is|are|was|were|do|does|did|can|will|may|must|should) (is|are|was|were|"
                 r"do|does|did)\b", low):
        problems.append("two auxiliaries in a row")
    if re.search(r"\b(the|a|an) (to|for|of|in|on|at|by|with|from|is|are|and|or|do|does|this|"
                 r"that|these|the|a|an)\b", low):
        problems.append("article before a function word")
    if re.search(r"\s(If|When|The|This|It|Is|Are|And|Or|Of|To)\b", question.strip()):
        problems.append("casing")
    if re.search(r"[${}\\;|]|\s[<>]|\$\s", question):
        problems.append("code in the question")
    return problems


def keyword_rubric(query: str) -> list[str]:
    """Why a keyword query is not well-formed: 2-8 words, no question mark, no dangling last
    word, balanced brackets and quotes, no vague pronoun, no code symbols."""
    problems = []
    q = query.strip()
    tokens = q.split()
    if not 2 <= len(tokens) <= 8:
        problems.append(f"{len(tokens)} words (2-8 allowed)")
    if q.endswith("?"):
        problems.append("a keyword query has no question mark")
    last = re.sub(r"\W+$", "", tokens[-1].lower()) if tokens else ""
    if last in DANGLING:
        problems.append(f"ends on a dangling {last!r}")
    if q.count("(") != q.count(")") or q.count('"') % 2:
        problems.append("unbalanced brackets or quotes")
    if VAGUE & {w.lower() for w in re.findall(r"[\w']+", q)}:
        problems.append("vague pronoun")
    if re.search(r"[${}\\;|]", q):
        problems.append("code in the question")
    return problems


def _is_copy(body: str, sentence: str) -> bool:
    q, s = words(body), words(sentence)
    if not q or not s:
        return False
    if q[0] in QUESTION_WORDS or q[0] in AUXILIARIES:
        q = q[1:]
    if " ".join(q) in " ".join(s) and len(q) >= 0.8 * len(s):
        return True
    return difflib.SequenceMatcher(None, q, s, autojunk=False).ratio() >= 0.9
