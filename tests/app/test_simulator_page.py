"""Simulator page: the first seed document's worked examples, read from the rendered page."""

from __future__ import annotations

import pytest

TREC, SIM = 0, 1  # column order of the two conventions on the page
FAMILIES = ["P", "R", "Success", "RR", "AP", "nDCG"]


def cards(at) -> dict[tuple[str, int], tuple[str, str, str]]:
    """(family, convention) -> (measure label, shown value, arithmetic) as rendered."""
    metrics, texts = list(at.main.metric), [t.value for t in at.main.text if t.key is None]
    # Each card is one metric followed by its arithmetic; the doc names are texts too, first
    # (the main area only: the sidebar shows the workspace path as text).
    arithmetic = texts[-len(metrics):]
    out = {}
    for i, (metric, arith) in enumerate(zip(metrics, arithmetic, strict=True)):
        out[(FAMILIES[i // 2], i % 2)] = (metric.label, metric.value, arith)
    return out


@pytest.fixture
def sim(open_app):
    at = open_app("simulator")
    assert not at.exception
    return at


def test_example_screen_binary_figures(sim) -> None:
    # The default state is the seed's example screen: relevant at 1, 3, 5; K = 5; N = 6.
    got = cards(sim)
    assert got[("P", SIM)] == ("P@5", "0.60", "3 / 5")
    assert got[("R", SIM)] == ("R@5", "0.50", "3 / 6")
    assert got[("Success", SIM)][1] == "1.00"
    assert got[("RR", SIM)] == ("RR@5", "1.00", "1 / 1")
    assert got[("AP", SIM)] == ("AP(denom=retrieved)@5", "0.76", "(1.0 + 0.67 + 0.6) / 3")
    # trec_eval's AP divides by all six relevant documents of the database.
    assert got[("AP", TREC)] == ("AP@5", "0.38", "(1.0 + 0.67 + 0.6) / 6")
    assert got[("RR", TREC)][:2] == ("RR", "1.00")


def test_graded_example_gives_the_screens_ndcg_line(sim) -> None:
    sim.selectbox(key="sim_example").set_value("graded")
    sim.button(key="sim_load_example").click().run()
    got = cards(sim)
    assert got[("nDCG", SIM)] == ("nDCG(ideal=retrieved)@3", "0.96", "DCG 3.50 / IDCG 3.63")
    assert got[("nDCG", TREC)] == ("nDCG@3", "0.96", "DCG 3.50 / IDCG 3.63")
    assert any("3 + 0 + 1 = 4" in c.value for c in sim.caption)


def test_shuffled_grades_keep_cg_and_lose_ndcg(sim) -> None:
    sim.selectbox(key="sim_example").set_value("shuffled")
    sim.button(key="sim_load_example").click().run()
    assert any("0 + 1 + 3 = 4" in c.value for c in sim.caption)
    assert float(cards(sim)[("nDCG", SIM)][1]) < 0.96


def test_late_hits_example(sim) -> None:
    sim.selectbox(key="sim_example").set_value("late")
    sim.button(key="sim_load_example").click().run()
    got = cards(sim)
    assert got[("AP", SIM)][1:] == ("0.33", "(0.25 + 0.4) / 2")
    assert got[("P", SIM)][1:] == ("0.40", "2 / 5")


def test_reorder_toggle_and_sliders_reproduce_the_screen(sim) -> None:
    # Build the screen by hand from the late-hits example: D4, D5 relevant at ranks 4 and 5.
    sim.selectbox(key="sim_example").set_value("late")
    sim.button(key="sim_load_example").click().run()
    sim.checkbox(key="sim_rel_D4").uncheck().run()
    sim.checkbox(key="sim_rel_D1").check().run()
    sim.checkbox(key="sim_rel_D3").check().run()
    sim.slider(key="sim_n").set_value(6).run()
    got = cards(sim)
    assert got[("AP", SIM)][1:] == ("0.76", "(1.0 + 0.67 + 0.6) / 3")
    # Swap ranks 2 and 5 (D2 down three places): order-sensitive measures move, P/R/Hit do not.
    for _ in range(3):
        sim.button(key="sim_down_D2").click().run()
    for _ in range(2):
        sim.button(key="sim_up_D5").click().run()
    assert [t.value for t in sim.text][:5] == ["D1", "D5", "D3", "D4", "D2"]
    after = cards(sim)
    for family in ("P", "R", "Success"):
        assert after[(family, SIM)] == got[(family, SIM)]
    assert after[("AP", SIM)][1] != got[("AP", SIM)][1]
    sim.slider(key="sim_k").set_value(3).run()
    assert cards(sim)[("P", SIM)][:3] == ("P@3", "1.00", "3 / 3")


def test_graded_mode_grade_buttons(sim) -> None:
    sim.radio(key="sim_mode").set_value("graded").run()
    sim.button_group(key="sim_grade_D1").set_value(3).run()
    assert not sim.exception
    assert sim.session_state["_sim_grades"]["D1"] == 3
    table = sim.dataframe[0].value
    assert set(table["convention"]) == {"trec_eval", "simulator"}
    assert len(table) == 12
