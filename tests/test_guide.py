"""The metric guide's content agrees with the engine and with the simulator."""

from __future__ import annotations

import pytest

from labeling.metrics.measures import KINDS, parse_measure
from labeling.teaching import guide, simulator


def test_definitions_follow_the_measure_registry() -> None:
    sensitive = {d.kind: d.order_sensitive for d in guide.DEFINITIONS}
    assert sensitive == {"P": False, "R": False, "Success": False, "RR": True, "AP": True,
                         "nDCG": True}
    for definition in guide.DEFINITIONS:
        assert parse_measure(definition.example).kind == definition.kind
        assert definition.description == KINDS[definition.kind].description
    rows = guide.definitions_table()
    assert [r["relevance"] for r in rows].count("graded") == 1


@pytest.mark.parametrize(
    ("failure", "graded", "lead"),
    [("miss", True, "R@5"), ("noise", True, "P@5"), ("first_hit", True, "RR@5"),
     ("order", True, "nDCG@5"), ("order", False, "AP@5")],
)
def test_chooser(failure: str, graded: bool, lead: str) -> None:
    advice = guide.recommend(failure, 5, graded)
    assert advice.lead == lead
    assert advice.measures[0] == lead
    assert all(parse_measure(m).cutoff == 5 for m in advice.measures)


def test_chooser_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        guide.recommend("latency", 5)
    with pytest.raises(ValueError):
        guide.recommend("miss", 0)


def test_knowledge_check_answers() -> None:
    assert guide.check_answer("swap", 1)[0]
    right, why = guide.check_answer("swap", 0)
    assert not right and "order-insensitive" in why
    assert guide.check_answer("factoid", 0) == (True, guide.QUESTIONS[1].if_right)
    with pytest.raises(ValueError):
        guide.check_answer("swap", 3)
    with pytest.raises(ValueError):
        guide.check_answer("nope", 0)


def test_swap_answer_holds_in_the_engine() -> None:
    # Ranks 2 and 5 hold a relevant and a non-relevant document; swap them.
    before = simulator.simulate([1, 1, 0, 0, 0], 5, 3)
    after = simulator.simulate([1, 0, 0, 0, 1], 5, 3)
    changed = {x.family for x, y in zip(before.lines, after.lines, strict=True)
               if x.value != y.value}
    assert changed == {"AP", "nDCG"}
