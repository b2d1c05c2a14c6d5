"""Question forms people type, and the mix of them a team asks for.

Forms: ``how-to`` ("How do I keep input files with gzip?"), ``what-why`` (what, which, who,
when, why, how many...: a fact or an explanation), ``comparison`` (between two named things) and
``keyword`` (a short search-box query: "gzip --keep option"). ``form_of`` reads the form from
the question's words (keyword queries are written by ``labeling.synthetic.keywords``);
``allocate`` turns a mix of shares into counts.

``shape`` names what a question asks for, within its form: ``returns`` ("What does
Reader.ReadString return?"), ``purpose`` ("What is RawContent used for?"), ``behaviour`` ("What
does Array#drop do?"), else the form itself (``how-to``, ``comparison``, ``keyword``) or ``fact``
(a definition, a condition, a reason). The quality score weighs them (``SHAPE_FEATURES``): graded
questions of one shape were accepted at rates that differ by more than the other features tell,
and the difference held across kinds of text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

FORMS = ("how-to", "what-why", "comparison", "keyword")
SHAPES = ("returns", "purpose", "behaviour", "how-to", "comparison", "keyword", "fact")
# One feature per shape but ``fact``, the most common, which the intercept stands for.
SHAPE_FEATURES = {"returns": "asks_return", "purpose": "asks_purpose",
                  "behaviour": "asks_behaviour", "how-to": "asks_how_to",
                  "comparison": "asks_comparison", "keyword": "keyword_query"}
_WHAT_SHAPES = (("returns", re.compile(r"what (does|do) .+ return\b")),
                ("purpose", re.compile(r"what (is|are) .+ (used )?for\?$")),
                ("behaviour", re.compile(r"what (does|do) .+ do\?$")))
FORM_LABELS = {"how-to": "how-to", "what-why": "what / why", "comparison": "comparison",
               "keyword": "keyword"}
DEFAULT_MIX = {"how-to": 0.35, "what-why": 0.35, "comparison": 0.1, "keyword": 0.2}
QUESTION_LEADS = frozenset(
    "what which who whom whose when where why how is are was were am do does did can could "
    "should would will shall may might must has have had".split()
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


def shape(question: str, form: str = "") -> str:
    """What ``question`` asks for, one of ``SHAPES`` (see the module docstring); ``form`` is
    read from the question when not given."""
    form = form or form_of(question)
    if form != "what-why":
        return form
    low = question.strip().lower()
    return next((name for name, pattern in _WHAT_SHAPES if pattern.match(low)), "fact")


def shape_features(question: str, form: str = "") -> dict[str, float]:
    """``SHAPE_FEATURES`` of ``question``: 1.0 for its shape's feature, 0.0 for the others."""
    asked = SHAPE_FEATURES.get(shape(question, form))
    return {name: 1.0 if name == asked else 0.0 for name in SHAPE_FEATURES.values()}


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
