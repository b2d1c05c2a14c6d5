"""The metric simulator: a hand-made ranked list scored by the metric engine, with its arithmetic.

A *stack* is one query's ranked list written as grades, rank 1 first (binary mode: 0 or 1;
graded mode: 0-3). ``relevant_in_db`` (N) is the number of relevant documents the database
holds for the query; those the stack does not contain are added to the labels as unretrieved
documents of grade 1, so that recall and the ideal lists see them. Every document of the stack
is judged (a grade 0 is a judged non-relevant document).

Values and their parts come from ``labeling.metrics.engine.evaluate`` and ``ranked_list``; this
module
only builds the input frames and writes the parts out as text ("(1.0 + 0.67 + 0.6) / 3",
"DCG 3.50 / IDCG 3.63"). Two named conventions are scored side by side:

``trec_eval``
    ``P@K``, ``R@K``, ``Success@K``, ``RR`` (not cut), ``AP@K`` (divided by every relevant
    document, N) and ``nDCG@K`` (ideal list: every judged document of the query).
``simulator``
    ``P@K``, ``R@K``, ``Success@K``, ``RR@K``, ``AP(denom=retrieved)@K`` (divided by the
    relevant documents found in the top K) and ``nDCG(ideal=retrieved)@K`` (ideal list: the
    top K's own grades re-sorted), the conventions of the metric simulator's worked examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from labeling.metrics.engine import Evaluation, evaluate, ranked_list

__all__ = [
    "CONVENTIONS",
    "FAMILIES",
    "MetricLine",
    "Simulation",
    "QuerySetResult",
    "build_frames",
    "measure_names",
    "simulate",
    "simulate_queries",
    "move",
    "EXAMPLES",
    "QUERY_SET_EXAMPLES",
    "example_grades",
]

# Measure family -> title shown to people.
FAMILIES: dict[str, str] = {
    "P": "Precision@K",
    "R": "Recall@K",
    "Success": "Hit rate@K",
    "RR": "Reciprocal rank",
    "AP": "Average precision",
    "nDCG": "nDCG@K",
}
CONVENTIONS: dict[str, str] = {
    "trec_eval": "trec_eval's conventions (default)",
    "simulator": "the simulator's conventions",
}
UNRETRIEVED_GRADE = 1  # grade given to relevant documents the stack does not contain
QUERY = "q"


def measure_names(k: int, convention: str) -> dict[str, str]:
    """Measure family -> measure string at depth ``k`` under ``convention``."""
    if convention == "trec_eval":
        return {"P": f"P@{k}", "R": f"R@{k}", "Success": f"Success@{k}", "RR": "RR",
                "AP": f"AP@{k}", "nDCG": f"nDCG@{k}"}
    if convention == "simulator":
        return {"P": f"P@{k}", "R": f"R@{k}", "Success": f"Success@{k}", "RR": f"RR@{k}",
                "AP": f"AP(denom=retrieved)@{k}", "nDCG": f"nDCG(ideal=retrieved)@{k}"}
    raise ValueError(f"unknown convention {convention!r}; known: {', '.join(CONVENTIONS)}")


def doc_names(n: int) -> list[str]:
    """Default document names D1, D2, ... for a stack of ``n``."""
    return [f"D{i}" for i in range(1, n + 1)]


def build_frames(
    stacks: Sequence[Sequence[int]],
    relevant_in_db: Sequence[int | None] | None = None,
    doc_ids: Sequence[Sequence[str]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and run frames for the metric engine, one query per stack (q1, q2, ...).

    The run scores rank i as ``len(stack) - i + 1`` so the engine keeps the stack's order.
    N lower than the relevant documents in the stack is raised to that count.
    """
    qrels_rows: list[tuple[str, str, int]] = []
    run_rows: list[tuple[str, str, float]] = []
    for index, grades in enumerate(stacks):
        query = f"{QUERY}{index + 1}"
        names = list(doc_ids[index]) if doc_ids is not None else doc_names(len(grades))
        for rank, (doc, grade) in enumerate(zip(names, grades, strict=True), start=1):
            qrels_rows.append((query, doc, int(grade)))
            run_rows.append((query, doc, float(len(grades) - rank + 1)))
        listed = sum(1 for g in grades if g >= 1)
        wanted = relevant_in_db[index] if relevant_in_db is not None else None
        for extra in range(max(0, (wanted or 0) - listed)):
            qrels_rows.append((query, f"unretrieved-{extra + 1}", UNRETRIEVED_GRADE))
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return qrels.astype({"relevance": "int64"}), run


def effective_n(grades: Sequence[int], relevant_in_db: int | None) -> int:
    """N as scored: at least the number of relevant documents (grade >= 1) in the stack."""
    return max(int(relevant_in_db or 0), sum(1 for g in grades if g >= 1))


@dataclass(frozen=True)
class MetricLine:
    """One measure's value under one convention, with the arithmetic behind it."""

    family: str
    title: str
    convention: str
    measure: str
    value: float
    arithmetic: str

    @property
    def shown(self) -> str:
        """The value as the page shows it (two decimals)."""
        return f"{self.value:.2f}"


@dataclass(frozen=True)
class Simulation:
    """The scored stack: lines for both conventions, the ranked rows and the cumulative gain."""

    k: int
    n_relevant: int
    lines: list[MetricLine]
    ranked: pd.DataFrame
    cg: float
    cg_arithmetic: str

    def line(self, family: str, convention: str) -> MetricLine:
        return next(x for x in self.lines if x.family == family and x.convention == convention)

    def frame(self) -> pd.DataFrame:
        """Every line as a table (for display and CSV export)."""
        return pd.DataFrame(
            [
                {"measure family": x.title, "convention": x.convention, "measure": x.measure,
                 "value": x.value, "arithmetic": x.arithmetic}
                for x in self.lines
            ]
        )


def _number(value: float) -> str:
    """Two decimals without trailing zeros, keeping one decimal: 1.0, 0.67, 0.6."""
    text = f"{value:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _count(value: float) -> str:
    return str(int(round(value)))


def _arithmetic(
    family: str, measure: str, k: int, ev: Evaluation, ranked: pd.DataFrame, query: str
) -> str:
    """The value of ``measure`` for ``query`` written as the engine's parts."""
    parts = ev.parts.loc[query]
    if family == "P":
        return f"{_count(parts[f'{measure}.relevant_retrieved'])} / {k}"
    if family == "R":
        total = parts[f"{measure}.relevant"]
        if total == 0:
            return "no relevant documents: 0"
        return f"{_count(parts[f'{measure}.relevant_retrieved'])} / {_count(total)}"
    if family == "Success":
        found = _count(parts[f"{measure}.relevant_retrieved"])
        return f"{found} relevant in the top {k} → {_count(ev.per_query.loc[query, measure])}"
    if family == "RR":
        first = parts[f"{measure}.first_relevant_rank"]
        if first == 0:
            return "no relevant document" + ("" if measure == "RR" else f" in the top {k}")
        return f"1 / {_count(first)}"
    if family == "AP":
        mine = ranked[(ranked["query_id"] == query) & ranked["relevant"] & (ranked["rank"] <= k)]
        denominator = _count(parts[f"{measure}.denominator"])
        if mine.empty:
            return f"0 / {denominator}"
        return f"({' + '.join(_number(p) for p in mine['precision'])}) / {denominator}"
    if family == "nDCG":
        return f"DCG {parts[f'{measure}.dcg']:.2f} / IDCG {parts[f'{measure}.idcg']:.2f}"
    raise ValueError(f"unknown measure family {family!r}")


def simulate(
    grades: Sequence[int],
    k: int,
    relevant_in_db: int | None = None,
    doc_ids: Sequence[str] | None = None,
    *,
    binary: bool = False,
) -> Simulation:
    """Score one stack at depth ``k`` under both conventions.

    ``grades``: rank 1 first; grades >= 1 count as relevant for the binary measures and are the
    gain of nDCG. ``binary=True`` maps grades 1-3 to 1 first (binary mode), so nDCG's gain is
    0 or 1. ``relevant_in_db``: N (None: the relevant documents of the stack).
    """
    if k < 1:
        raise ValueError("K must be at least 1")
    if binary:
        grades = [1 if g >= 1 else 0 for g in grades]
    n = effective_n(grades, relevant_in_db)
    ids = [list(doc_ids)] if doc_ids is not None else None
    qrels, run = build_frames([grades], [n], ids)
    names = {c: measure_names(k, c) for c in CONVENTIONS}
    wanted = sorted({m for per in names.values() for m in per.values()}) + [f"CG@{k}"]
    ev = evaluate(qrels, run, wanted)
    ranked = ranked_list(qrels, run)
    query = f"{QUERY}1"
    lines = [
        MetricLine(family, FAMILIES[family], convention, measure,
                   float(ev.per_query.loc[query, measure]),
                   _arithmetic(family, measure, k, ev, ranked, query))
        for family in FAMILIES
        for convention, per in names.items()
        for measure in [per[family]]
    ]
    top = ranked[ranked["rank"] <= k]
    gains = " + ".join(_count(g) for g in top["grade"].fillna(0)) or "0"
    shown = ranked.drop(columns=["query_id", "score"]).reset_index(drop=True)
    return Simulation(k, n, lines, shown, float(ev.per_query.loc[query, f"CG@{k}"]),
                      f"{gains} = {_count(ev.per_query.loc[query, f'CG@{k}'])}")


@dataclass(frozen=True)
class QuerySetResult:
    """One measure over several stacks: per-query values, the mean and its arithmetic."""

    measure: str
    per_query: list[float]
    mean: float
    arithmetic: str


def simulate_queries(
    stacks: Sequence[Sequence[int]], measure: str, relevant_in_db: Sequence[int] | None = None
) -> QuerySetResult:
    """The mean of ``measure`` over ``stacks`` (one query each), e.g. "(1 + 0 + 1) / 3"."""
    qrels, run = build_frames(stacks, relevant_in_db)
    ev = evaluate(qrels, run, [measure])
    values = [float(v) for v in ev.per_query[measure]]
    binary = measure.lower().startswith(("success", "hit"))
    terms = " + ".join(_count(v) if binary else _number(v) for v in values)
    return QuerySetResult(measure, values, float(ev.mean[measure]), f"({terms}) / {len(values)}")


@dataclass(frozen=True)
class Example:
    """A worked example of the first seed document, loadable into the simulator."""

    title: str
    mode: str  # "binary" or "graded"
    grades: tuple[int, ...]  # ranks 1.. of the stack; the rest of the stack is grade 0
    k: int
    n: int
    says: str  # what the example shows


EXAMPLES: dict[str, Example] = {
    "screen": Example(
        "Relevant at ranks 1, 3 and 5 (K = 5, N = 6)", "binary", (1, 0, 1, 0, 1), 5, 6,
        "P@5 = 3 / 5 = 0.60, R@5 = 3 / 6 = 0.50, RR = 1 / 1, AP = (1.0 + 0.67 + 0.6) / 3 = 0.76 "
        "with the simulator's denominator (trec_eval divides by all 6 relevant documents).",
    ),
    "late": Example(
        "Relevant pushed down to ranks 4 and 5", "binary", (0, 0, 0, 1, 1), 5, 2,
        "AP = (0.25 + 0.4) / 2 = 0.33: average precision punishes late hits; P@5 does not move.",
    ),
    "graded": Example(
        "Graded stack [3, 0, 1]", "graded", (3, 0, 1), 3, 2,
        "CG = 3 + 0 + 1 = 4; DCG = 3 / 1 + 0 + 1 / 2 = 3.50; IDCG of [3, 1, 0] = 3.63; "
        "nDCG = 0.96.",
    ),
    "shuffled": Example(
        "The same grades shuffled to [0, 1, 3]", "graded", (0, 1, 3), 3, 2,
        "CG is still 4 (order-insensitive) while nDCG drops: the best document is now last.",
    ),
}
STACK_SIZE = 10


def example_grades(example: Example, size: int = STACK_SIZE) -> list[int]:
    """The example's grades padded with non-relevant documents to ``size``."""
    return list(example.grades) + [0] * max(0, size - len(example.grades))


# Query-set examples of the first seed document: (title, measure, stacks).
QUERY_SET_EXAMPLES: list[tuple[str, str, list[list[int]]]] = [
    ("Average hit rate@3 of three queries", "Success@3", [[1, 0, 0], [0, 0, 0], [0, 1, 0]]),
    ("MRR of two queries: first hit at rank 3, then at rank 1", "RR", [[0, 0, 1], [1, 0, 0]]),
]


def move(order: Sequence[str], doc: str, step: int) -> list[str]:
    """``order`` with ``doc`` moved ``step`` places (negative: towards rank 1), clamped."""
    items = list(order)
    at = items.index(doc)
    to = min(max(at + step, 0), len(items) - 1)
    items.insert(to, items.pop(at))
    return items
