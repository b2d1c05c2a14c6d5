"""The one registry of keyboard shortcuts of the labeling pages.

Streamlit binds a key to a button with ``st.button(..., shortcut=KEY)``; two buttons may share a
key without any error, so every binding of the app comes from here and a test checks that no
key is used twice. ``C`` and ``R`` are reserved by Streamlit (clear cache, rerun); punctuation is
not accepted. Plain keys are ignored while the focus is in a text field, so typing a note never
grades a pair.
"""

from __future__ import annotations

from collections.abc import Sequence

RESERVED = frozenset({"C", "R"})

# action -> key. Grades are bound separately (``grade_keys``): digits.
ACTIONS: dict[str, str] = {
    "skip": "S",
    "back": "B",
    "undo": "U",
    "cant_judge": "X",
}

LABELS: dict[str, str] = {
    "skip": "Skip",
    "back": "Back",
    "undo": "Undo",
    "cant_judge": "Can't judge",
}


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


def legend(grades: Sequence[int], names: Sequence[str]) -> str:
    """A one-line key legend, e.g. ``0 not relevant · 1 partially … · S skip · B back``."""
    parts = [f"{k} {n}" for (g, k), n in zip(grade_keys(grades).items(), names, strict=False)]
    parts += [f"{k} {LABELS[a].lower()}" for a, k in ACTIONS.items()]
    return " · ".join(parts)
