"""The committed blind grading sheets of issue 32's held-out rounds
(``benchmarks/synthetic_grading/<round>/heldout/sheet.md``) read back as the generator's input:
each passage's id, title and text, and what the offline generator now asks of one passage."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from labeling.synthetic import offline

GRADING = Path(__file__).resolve().parent.parent / "benchmarks" / "synthetic_grading"
HEADING = re.compile(r"^## (.*) \(([^()]*)\)$")


@cache
def passages(folder: str) -> dict[str, tuple[str, str]]:
    """passage id -> (title, text) of the sheet in ``folder`` (e.g. ``round4/heldout``), as
    ``benchmarks/synthetic_quality.py`` writes it: a ``## title (id)`` heading, the text fenced,
    then its question lines; a passage's own fences are told from the closing one by the
    question line that follows it."""
    lines = (GRADING / folder / "sheet.md").read_text(encoding="utf-8").split("\n")
    out, i = {}, 0
    while i < len(lines):
        heading = HEADING.match(lines[i])
        if heading and lines[i + 1:i + 3] == ["", "```"]:
            end = i + 3
            while not (lines[end] == "```" and lines[end + 1:end + 2] == [""]
                       and lines[end + 2:end + 3] and lines[end + 2].startswith("- `")):
                end += 1
            out[heading.group(2)] = (heading.group(1), "\n".join(lines[i + 3:end]))
            i = end
        i += 1
    return out


def answers(folder: str, chunk_id: str) -> dict[str, str]:
    """question -> answer for every question the generator asks of one passage of the sheet."""
    title, text = passages(folder)[chunk_id]
    return {c.question: c.answer for c in offline.generate(chunk_id, text, title=title,
                                                          max_per_chunk=0)}


def questions(folder: str, chunk_id: str) -> list[str]:
    """The questions the generator asks of one passage of the sheet, in its order."""
    return list(answers(folder, chunk_id))
