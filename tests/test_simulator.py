"""The simulator's frames, values and arithmetic strings, against the first seed's examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.metrics.measures import KINDS
from labeling.teaching import simulator


def test_example_screen() -> None:
    result = simulator.simulate([1, 0, 1, 0, 1, 0, 0, 0], 5, 6)
    sim = {x.family: (x.shown, x.arithmetic) for x in result.lines if x.convention == "simulator"}
    assert sim == {
        "P": ("0.60", "3 / 5"), "R": ("0.50", "3 / 6"),
        "Success": ("1.00", "3 relevant in the top 5 → 1"), "RR": ("1.00", "1 / 1"),
        "AP": ("0.76", "(1.0 + 0.67 + 0.6) / 3"), "nDCG": ("0.89", "DCG 1.89 / IDCG 2.13"),
    }
    trec = result.line("AP", "trec_eval")
    assert (trec.measure, trec.shown, trec.arithmetic) == ("AP@5", "0.38", "(1.0 + 0.67 + 0.6) / 6")


def test_graded_example_and_cg() -> None:
    result = simulator.simulate([3, 0, 1], 3)
    line = result.line("nDCG", "simulator")
    assert (line.shown, line.arithmetic) == ("0.96", "DCG 3.50 / IDCG 3.63")
    assert (result.cg, result.cg_arithmetic) == (4.0, "3 + 0 + 1 = 4")
    shuffled = simulator.simulate([0, 1, 3], 3)
    assert shuffled.cg == 4.0
    assert shuffled.line("nDCG", "simulator").value < line.value


def test_late_hits() -> None:
    line = simulator.simulate([0, 0, 0, 1, 1], 5).line("AP", "simulator")
    assert (line.shown, line.arithmetic) == ("0.33", "(0.25 + 0.4) / 2")


def test_query_set_means() -> None:
    hits = simulator.simulate_queries([[1, 0, 0], [0, 0, 0], [0, 1, 0]], "Success@3")
    assert (round(hits.mean, 2), hits.arithmetic) == (0.67, "(1 + 0 + 1) / 3")
    mrr = simulator.simulate_queries([[0, 0, 1], [1, 0, 0]], "RR")
    assert (round(mrr.mean, 2), mrr.arithmetic) == (0.67, "(0.33 + 1.0) / 2")


def test_n_is_raised_to_the_relevant_documents_listed() -> None:
    result = simulator.simulate([1, 1, 1], 3, relevant_in_db=1)
    assert result.n_relevant == 3
    assert result.line("R", "trec_eval").arithmetic == "3 / 3"


def test_binary_mode_maps_grades_to_one() -> None:
    graded = simulator.simulate([3, 0, 1], 3)
    binary = simulator.simulate([3, 0, 1], 3, binary=True)
    assert binary.line("nDCG", "simulator").arithmetic == "DCG 1.50 / IDCG 1.63"
    assert binary.line("AP", "simulator").value == graded.line("AP", "simulator").value


def test_nothing_relevant() -> None:
    result = simulator.simulate([0, 0, 0], 3)
    assert result.line("RR", "simulator").arithmetic == "no relevant document in the top 3"
    assert result.line("AP", "trec_eval").arithmetic == "0 / 0"
    assert result.line("R", "trec_eval").arithmetic == "no relevant documents: 0"
    assert all(x.value == 0 for x in result.lines)


def test_unknown_convention_and_bad_k() -> None:
    with pytest.raises(ValueError):
        simulator.measure_names(5, "ranx")
    with pytest.raises(ValueError):
        simulator.simulate([1], 0)


def test_move_clamps() -> None:
    assert simulator.move(["a", "b", "c"], "a", -1) == ["a", "b", "c"]
    assert simulator.move(["a", "b", "c"], "a", 5) == ["b", "c", "a"]


@pytest.mark.slow  # forty generated screens, each scored every way
@settings(max_examples=40, deadline=None)
@given(
    grades=st.lists(st.integers(0, 3), min_size=1, max_size=8),
    k=st.integers(1, 8),
    extra=st.integers(0, 4),
    seed=st.randoms(use_true_random=False),
)
def test_arithmetic_matches_the_value_and_order_insensitive_kinds(grades, k, extra, seed) -> None:
    n = sum(g >= 1 for g in grades) + extra
    result = simulator.simulate(grades, k, n)
    for line in result.lines:
        if line.family in ("P", "R") and "/" in line.arithmetic:
            top, bottom = (float(x) for x in line.arithmetic.split(" / "))
            assert line.value == pytest.approx(top / bottom)
        if line.family == "AP" and line.arithmetic.startswith("("):
            terms, denominator = line.arithmetic[1:].split(") / ")
            total = sum(float(t) for t in terms.split(" + "))
            assert line.value == pytest.approx(total / float(denominator), abs=0.03)
    # Shuffling inside the top k moves no order-insensitive measure (measures.KINDS says which).
    top = grades[:k]
    seed.shuffle(top)
    shuffled = simulator.simulate(top + grades[k:], k, n)
    for before, after in zip(result.lines, shuffled.lines, strict=True):
        if not KINDS[before.family].order_sensitive:
            assert before.value == after.value
