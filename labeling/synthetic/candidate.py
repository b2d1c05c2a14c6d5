"""The candidate record shared by the generators, the importers and the review store."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidate:
    """One generated question.

    ``answer_start``/``answer_end`` are character offsets into the source chunk's text (end
    exclusive), so ``text[answer_start:answer_end] == answer``; both are ``None`` when the
    generator gave no answer (imported sets). ``kind`` is the question word family
    (``what``, ``how many``, ``when``...).
    """

    chunk_id: str
    question: str
    generator: str
    sentence: str = ""
    answer: str = ""
    answer_start: int | None = None
    answer_end: int | None = None
    kind: str = ""
    problems: list[str] = field(default_factory=list)  # rubric failures; empty = well-formed

    @property
    def well_formed(self) -> bool:
        return not self.problems
