"""The grading scale of a workspace, and creating a workspace with one.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from pathlib import Path

import sqlite_utils

from labeling.errors import ScorecardError
from labeling.workspace.store import open_workspace, write_transaction

GRADED_SCALE: list[tuple[int, str, str]] = [
    (0, "not relevant", "The chunk does not help answer the query."),
    (1, "partially relevant", "The chunk touches the topic but does not answer the query."),
    (2, "relevant", "The chunk answers part of the query."),
    (3, "highly relevant", "The chunk answers the query fully."),
]
# The workspace's default relevance threshold lives in ``labeling_settings`` under this name.
RELEVANCE_SETTING = "relevance_threshold"
DEFAULT_RELEVANCE = 1  # trec_eval's -l: grade 1 and above are relevant
BINARY_SCALE: list[tuple[int, str, str]] = [
    (0, "not relevant", "The chunk does not help answer the query."),
    (1, "relevant", "The chunk helps answer the query."),
]


# ---------------------------------------------------------------------------------------------
# Scale


def parse_scale(spec: str) -> list[tuple[int, str, str]]:
    """``"graded"``, ``"binary"`` or a custom ``"0:not relevant,1:relevant"`` list."""
    if spec == "graded":
        return list(GRADED_SCALE)
    if spec == "binary":
        return list(BINARY_SCALE)
    scale: list[tuple[int, str, str]] = []
    for item in spec.split(","):
        grade, sep, name = item.partition(":")
        try:
            value = int(grade.strip())
        except ValueError:
            value = None
        if not sep or value is None or not name.strip():
            raise ScorecardError(
                f"scale item {item.strip()!r} is not GRADE:NAME "
                "(use graded, binary or e.g. '0:not relevant,1:relevant')"
            )
        scale.append((value, name.strip(), ""))
    if len({g for g, _, _ in scale}) != len(scale):
        raise ScorecardError("scale lists a grade twice")
    return sorted(scale)


def set_scale(db: sqlite_utils.Database, scale: Sequence[tuple[int, str, str]]) -> None:
    """Replace the grading scale. Refused when existing judgments use a grade not in it."""
    grades = {int(g) for g, _, _ in scale}
    with write_transaction(db) as conn:
        used = {
            r[0] for r in conn.execute("SELECT DISTINCT grade FROM judgments WHERE grade NOT NULL")
        }
        if used - grades:
            raise ScorecardError(
                f"judgments use grades {sorted(used - grades)} that the new scale lacks"
            )
        conn.execute("DELETE FROM scale")
        conn.executemany("INSERT INTO scale (grade, name, guideline) VALUES (?, ?, ?)", scale)


def get_scale(db: sqlite_utils.Database) -> list[tuple[int, str, str]]:
    """The scale as (grade, name, guideline) rows, lowest grade first."""
    return [
        tuple(r) for r in db.conn.execute("SELECT grade, name, guideline FROM scale ORDER BY grade")
    ]


def default_relevance(db: sqlite_utils.Database) -> int:
    """The workspace's default relevance threshold: the lowest grade binary measures count as
    relevant unless a page or a command picks another (1, trec_eval's, until one is set; also
    when the stored grade left the scale)."""
    row = db.conn.execute(
        "SELECT value FROM labeling_settings WHERE name = ?", [RELEVANCE_SETTING]
    ).fetchone()
    grades = {g for g, _, _ in get_scale(db)}
    try:
        grade = int(row[0]) if row else DEFAULT_RELEVANCE
    except ValueError:
        return DEFAULT_RELEVANCE
    return grade if grade in grades and grade >= DEFAULT_RELEVANCE else DEFAULT_RELEVANCE


def set_default_relevance(db: sqlite_utils.Database, grade: int) -> int:
    """Store ``grade`` as the workspace's default relevance threshold (admin); it must be a
    grade of the scale, at least 1. Returns it."""
    grades = sorted(g for g, _, _ in get_scale(db) if g >= DEFAULT_RELEVANCE)
    if isinstance(grade, bool) or not isinstance(grade, numbers.Integral) or grade not in grades:
        raise ScorecardError(
            f"the relevance threshold must be a grade of the scale from 1 up "
            f"({', '.join(map(str, grades)) or 'none'}), not {grade!r}"
        )
    with write_transaction(db, action="set_relevance") as conn:
        conn.execute(
            "INSERT OR REPLACE INTO labeling_settings (name, value) VALUES (?, ?)",
            [RELEVANCE_SETTING, str(int(grade))],
        )
    return grade


def init_workspace(
    path: str | Path, *, scale: str | Sequence[tuple[int, str, str]] = "graded"
) -> sqlite_utils.Database:
    """Create (or open) a workspace and set its scale if it has none yet."""
    db = open_workspace(path)
    rows = parse_scale(scale) if isinstance(scale, str) else list(scale)
    if not get_scale(db):
        set_scale(db, rows)
    elif [g for g, _, _ in get_scale(db)] != [g for g, _, _ in rows] and scale != "graded":
        raise ScorecardError(f"{path}: workspace already has a different scale")
    return db
