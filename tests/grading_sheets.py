"""The committed blind grading sheets of issue 32's held-out rounds
(``benchmarks/synthetic_grading/<round>/heldout/sheet.md``) read back as the generator's input:
each passage's id, title and text, and what the offline generator now asks of one passage."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from labeling.synthetic import offline

GRADING = Path(__file__).resolve().parent.parent / "benchmarks" / "synthetic_grading"
PASSAGE = re.compile(r"## (.*?) \((\S+)\)\n\n```\n(.*?)\n```", re.S)


@cache
def passages(folder: str) -> dict[str, tuple[str, str]]:
    """passage id -> (title, text) of the sheet in ``folder`` (e.g. ``round4/heldout``)."""
    sheet = (GRADING / folder / "sheet.md").read_text(encoding="utf-8")
    return {m.group(2): (m.group(1), m.group(3)) for m in PASSAGE.finditer(sheet)}


def answers(folder: str, chunk_id: str) -> dict[str, str]:
    """question -> answer for every question the generator asks of one passage of the sheet."""
    title, text = passages(folder)[chunk_id]
    return {c.question: c.answer for c in offline.generate(chunk_id, text, title=title,
                                                          max_per_chunk=0)}


def questions(folder: str, chunk_id: str) -> list[str]:
    """The questions the generator asks of one passage of the sheet, in its order."""
    return list(answers(folder, chunk_id))
