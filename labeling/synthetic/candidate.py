"""The candidate record shared by the generators, the importers and the review store."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidate:
    """One generated question.

    ``answer_start``/``answer_end`` are character offsets into the source chunk's text (end
    exclusive), so ``text[answer_start:answer_end] == answer``; both are ``None`` when the
    generator gave no answer (imported sets). ``kind`` is the question word family
    (``what``, ``how many``, ``when``...); ``form`` one of ``labeling.synthetic.forms.FORMS``
    (empty: read from the question when stored). ``subject`` is what the question names (the
    passage topic, an option, a function; empty: nothing named), ``critic`` the LLM critic's
    score in [0, 1] (None: not scored). ``structured`` is False when a rule made the question by
    moving the words of a parsed clause (more error-prone than a question written from the
    passage's structure or by a model).
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
    form: str = ""
    subject: str = ""
    critic: float | None = None
    structured: bool = True

    @property
    def well_formed(self) -> bool:
        """No rubric objection other than grammar ones (which only lower the quality score)."""
        return not any(not p.startswith("grammar: ") for p in self.problems)
