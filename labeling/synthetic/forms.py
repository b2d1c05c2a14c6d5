"""Question forms people type, and the mix of them a team asks for.

Forms: ``how-to`` ("How do I keep input files with gzip?"), ``what-why`` (what, which, who,
when, why, how many...: a fact or an explanation), ``comparison`` (between two named things) and
``keyword`` (a short search-box query: "gzip --keep option"). ``form_of`` reads the form from
the question's words; ``keyword_query`` shortens a question to its subject and content words;
``allocate`` turns a mix of shares into counts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

FORMS = ("how-to", "what-why", "comparison", "keyword")
FORM_LABELS = {"how-to": "how-to", "what-why": "what / why", "comparison": "comparison",
               "keyword": "keyword"}
DEFAULT_MIX = {"how-to": 0.35, "what-why": 0.35, "comparison": 0.1, "keyword": 0.2}
QUESTION_LEADS = frozenset(
    "what which who whom whose when where why how is are was were am do does did can could "
    "should would will shall may might must has have had".split()
)
FILLER = frozenset(
    "a an the of to in on at by for from with and or is are do does did i me my you your it "
    "its this that these those what which who when where why how can could should would will "
    "there their be been being used use using mean means difference between compare happens "
    "happen get option stand also only just then".split()
)


def form_of(question: str) -> str:
    """The form of ``question`` (see the module docstring)."""
    q = question.strip()
    low = q.lower()
    if not q.endswith("?") and low.split(" ", 1)[0] not in QUESTION_LEADS:
        return "keyword"
    if re.search(r"\b(difference|differences) between\b|\bcompare[sd]? (with|to)\b|"
                 r"\bversus\b|\bvs\.? ", low):
        return "comparison"
    if re.match(r"how (do|can|should|would) (i|we|you)\b|how to\b", low):
        return "how-to"
    return "what-why"


def keyword_query(question: str, subject: str | None = None, *, limit: int = 5) -> str | None:
    """A search-box query from ``question``: the subject first, then the question's content
    words in order (at most ``limit`` words in all); None when fewer than 2 words remain."""
    body = question.rstrip("?").strip()
    subject = (subject or "").strip()
    tokens = body.split()
    if subject:
        lowered = body.lower()
        at = lowered.find(subject.lower())
        if at >= 0:
            tokens = (body[:at] + " " + body[at + len(subject):]).split()
    content = [t.strip(",;:") for t in tokens if t.lower().strip(",;:") not in FILLER]
    named = {subject.split(".")[-1].rstrip("()").lower()} if subject else set()
    content = [re.sub(r"\(\)$", "", t.lstrip(".")) for t in content if "/" not in t]
    content = [t for t in content if t and not re.fullmatch(r"\W+", t)
               and t.lower() not in named]
    out = ([subject] if subject else []) + content
    words: list[str] = []
    for word in out:
        if len(" ".join(words + [word]).split()) > limit:
            break
        words.append(word)
    query = " ".join(words)
    if len(query.split()) < 2:
        return None
    return query[:1].lower() + query[1:] if query[:1].isupper() and not (
        len(query) > 1 and query[1].isupper()) and not subject else query


def normalise_mix(mix: Mapping[str, float] | None) -> dict[str, float]:
    """``mix`` as shares of ``FORMS`` summing to 1 (unknown forms dropped, negatives as 0);
    the default mix when nothing positive is left."""
    raw = {form: max(0.0, float((mix or {}).get(form, 0.0))) for form in FORMS}
    total = sum(raw.values())
    if not total:
        return dict(DEFAULT_MIX)
    return {form: value / total for form, value in raw.items()}


def allocate(mix: Mapping[str, float], n: int) -> dict[str, int]:
    """``n`` split over the forms in proportion to ``mix`` (largest remainders, ties in
    ``FORMS`` order); the counts sum to ``n``."""
    shares = normalise_mix(mix)
    exact = {form: shares[form] * n for form in FORMS}
    counts = {form: math.floor(value) for form, value in exact.items()}
    left = n - sum(counts.values())
    order = sorted(FORMS, key=lambda f: (-(exact[f] - counts[f]), FORMS.index(f)))
    for form in order[:left]:
        counts[form] += 1
    return counts
