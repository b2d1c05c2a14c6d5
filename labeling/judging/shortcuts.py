"""The one registry of keyboard shortcuts of the labeling pages.

Streamlit binds a key to a button with ``st.button(..., shortcut=KEY)``; two buttons may share a
key without any error, so every binding of the app comes from here and a test checks that no
key is used twice on a page. ``C`` and ``R`` are reserved by Streamlit (clear cache, rerun);
punctuation is not accepted. Plain keys are ignored while the focus is in a text field, so typing
a note never grades a pair.

Every key works whatever Caps Lock and Shift say, and the numeric keypad's digits grade like the
digit row (the pages add those keys with ``pages/_keys.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

RESERVED = frozenset({"C", "R"})

# action -> key of the Label page. Grades are bound separately (``grade_keys``): digits.
ACTIONS: dict[str, str] = {
    "skip": "S",
    "back": "B",
    "undo": "U",
    "cant_judge": "X",
    "search": "F",
    "context": "N",
    "guideline": "G",
}

LABELS: dict[str, str] = {
    "skip": "Skip",
    "back": "Back",
    "undo": "Undo",
    "cant_judge": "Can't judge",
    "search": "Find in the corpus",
    "context": "Around this chunk",
    "guideline": "Guideline",
}

# The judge-by-query grid: move between rows (the arrow keys move too); digits grade the
# current row; the search and guideline toggles as on the Label page.
GRID_ACTIONS: dict[str, str] = {
    "row_next": "J",
    "row_previous": "K",
    "search": "F",
    "guideline": "G",
}
GRID_ARROWS: dict[str, str] = {"row_next": "down", "row_previous": "up"}
GRID_LABELS: dict[str, str] = {
    "row_next": "Next row",
    "row_previous": "Previous row",
    "search": "Find in the corpus",
    "guideline": "Guideline",
}

# The synthetic review card: accept, reject with the chosen reason, move; digits choose the
# reject reason (``reason_keys``).
REVIEW_ACTIONS: dict[str, str] = {
    "accept": "A",
    "reject": "X",
    "next": "N",
    "previous": "P",
}


# The evidence step after a relevant grade: digits pick the answering sentences (1-9, in order),
# E saves them as the judgment's evidence, S skips.
EVIDENCE_ACTIONS: dict[str, str] = {"save_evidence": "E", "skip_evidence": "S"}
EVIDENCE_LABELS: dict[str, str] = {"save_evidence": "Save the answer",
                                   "skip_evidence": "Skip: no answer marked"}


def grade_keys(grades: Sequence[int]) -> dict[int, str]:
    """grade -> digit key. The grade itself when every grade is 0-9 (press 2 for grade 2),
    else the position 1-9 on the scale. A scale of more than ten grades gets no grade keys
    past the tenth position."""
    grades = list(grades)
    if grades and all(0 <= g <= 9 for g in grades):
        return {g: str(g) for g in grades}
    return {g: str(i) for i, g in enumerate(grades[:9], start=1)}


def key(action: str) -> str:
    """The key bound to ``action`` (``KeyError`` for an unknown action)."""
    return ACTIONS[action]


def reason_keys(reasons: Sequence[str]) -> dict[str, str]:
    """reject reason -> digit key: 1, 2, ... in the list's order (at most nine reasons)."""
    return {reason: str(i) for i, reason in enumerate(reasons[:9], start=1)}


def legend(grades: Sequence[int], names: Sequence[str]) -> str:
    """A one-line key legend, e.g. ``0 not relevant · 1 partially … · S skip · B back``."""
    parts = [f"{k} {n}" for (g, k), n in zip(grade_keys(grades).items(), names, strict=False)]
    parts += [f"{k} {LABELS[a].lower()}" for a, k in ACTIONS.items()]
    return " · ".join(parts)
