"""Measure names: parsing, aliases, canonical form and the errors a user sees."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.errors import MeasureError, ScorecardError
from labeling.metrics.measures import KINDS, PARAM_DEFAULTS, PARAM_VALUES, Measure, parse_measure


@pytest.mark.parametrize(
    ("text", "kind", "cutoff", "params", "canonical"),
    [
        ("P@5", "P", 5, (), "P@5"),
        ("P(rel=2)@5", "P", 5, (("rel", 2),), "P(rel=2)@5"),
        ("R@10", "R", 10, (), "R@10"),
        ("Recall@10", "R", 10, (), "R@10"),
        ("Success@3", "Success", 3, (), "Success@3"),
        ("Hit@3", "Success", 3, (), "Success@3"),
        ("HitRate@3", "Success", 3, (), "Success@3"),
        ("RR", "RR", None, (), "RR"),
        ("RR@10", "RR", 10, (), "RR@10"),
        ("MRR", "RR", None, (), "RR"),
        ("MRR@10", "RR", 10, (), "RR@10"),
        ("AP", "AP", None, (), "AP"),
        ("AP@100", "AP", 100, (), "AP@100"),
        ("MAP", "AP", None, (), "AP"),
        ("AP(denom=retrieved)@5", "AP", 5, (("denom", "retrieved"),), "AP(denom=retrieved)@5"),
        ("nDCG", "nDCG", None, (), "nDCG"),
        ("nDCG@10", "nDCG", 10, (), "nDCG@10"),
        ("nDCG(gain=exp)@10", "nDCG", 10, (("gain", "exp"),), "nDCG(gain=exp)@10"),
        ("nDCG(ideal=retrieved)", "nDCG", None, (("ideal", "retrieved"),),
         "nDCG(ideal=retrieved)"),
        ("Rprec", "Rprec", None, (), "Rprec"),
        ("R-Prec", "Rprec", None, (), "Rprec"),
        ("R-Prec(rel=2)", "Rprec", None, (("rel", 2),), "Rprec(rel=2)"),
        ("CG@3", "CG", 3, (), "CG@3"),
        ("DCG@3", "DCG", 3, (), "DCG@3"),
        ("DCG(gain=exp)@3", "DCG", 3, (("gain", "exp"),), "DCG(gain=exp)@3"),
        ("Judged@10", "Judged", 10, (), "Judged@10"),
    ],
)
def test_parse(text, kind, cutoff, params, canonical):
    measure = parse_measure(text)
    assert measure == Measure(kind, cutoff, params)
    assert (measure.kind, measure.cutoff, measure.params) == (kind, cutoff, params)
    assert str(measure) == canonical
    assert parse_measure(canonical) == measure


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ndcg@10", "nDCG@10"),
        ("NDCG@10", "nDCG@10"),
        ("map", "AP"),
        ("mrr", "RR"),
        ("p@5", "P@5"),
        ("recall@20", "R@20"),
        ("RECALL@20", "R@20"),
        ("hitrate@1", "Success@1"),
        ("r-prec", "Rprec"),
        ("RPREC", "Rprec"),
        ("judged@5", "Judged@5"),
        ("cg@2", "CG@2"),
        ("dcg@2", "DCG@2"),
        ("success@2", "Success@2"),
    ],
)
def test_names_and_aliases_are_case_insensitive(text, canonical):
    assert str(parse_measure(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # Default parameters are dropped so that equal measures print and compare equal.
        ("P(rel=1)@5", "P@5"),
        ("nDCG(gain=linear)@10", "nDCG@10"),
        ("nDCG(ideal=judged)", "nDCG"),
        ("AP(denom=relevant)", "AP"),
        ("nDCG(gain=linear,ideal=judged)@3", "nDCG@3"),
        # Parameters come out in the registry's order whatever order they were written in.
        ("nDCG(ideal=retrieved,gain=exp)@5", "nDCG(gain=exp,ideal=retrieved)@5"),
        ("nDCG(gain=exp,ideal=retrieved)@5", "nDCG(gain=exp,ideal=retrieved)@5"),
        ("AP(denom=retrieved,rel=2)@5", "AP(rel=2,denom=retrieved)@5"),
        # Values are case-insensitive; whitespace around the parts is tolerated.
        ("nDCG(gain=EXP)@10", "nDCG(gain=exp)@10"),
        ("AP(denom=Retrieved)", "AP(denom=retrieved)"),
        ("  nDCG @ 10 ", "nDCG@10"),
        ("P( rel = 2 )@5", "P(rel=2)@5"),
        ("nDCG()@10", "nDCG@10"),
        ("P(rel=0)@5", "P(rel=0)@5"),
    ],
)
def test_canonical_form(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure


def test_equal_measures_compare_and_hash_equal():
    written = ["MAP", "AP", "ap", "AP(denom=relevant)", "AP(rel=1)"]
    assert len({parse_measure(text) for text in written}) == 1
    assert parse_measure("P(rel=2)@5") != parse_measure("P@5")
    assert parse_measure("nDCG@5") != parse_measure("nDCG@10")
    assert parse_measure("nDCG") != parse_measure("nDCG@10")


def test_a_measure_passes_through():
    measure = parse_measure("nDCG(gain=exp)@10")
    assert parse_measure(measure) is measure


def test_param_accessors():
    measure = parse_measure("AP(rel=2,denom=retrieved)@5")
    assert measure.rel == 2
    assert measure.param("denom") == "retrieved"
    plain = parse_measure("nDCG@10")
    assert plain.rel == 1
    assert plain.param("gain") == "linear"
    assert plain.param("ideal") == "judged"
    assert parse_measure("AP").param("denom") == "relevant"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Foo@5", "unknown measure"),
        ("Precision@5", "unknown measure"),
        ("F1@5", "cannot read"),
        ("", "cannot read"),
        ("@5", "cannot read"),
        ("P", "needs a cutoff"),
        ("R", "needs a cutoff"),
        ("Recall", "needs a cutoff"),
        ("Success", "needs a cutoff"),
        ("Hit", "needs a cutoff"),
        ("CG", "needs a cutoff"),
        ("DCG", "needs a cutoff"),
        ("Judged", "needs a cutoff"),
        ("P(rel=2)", "needs a cutoff"),
        ("Rprec@10", "takes no cutoff"),
        ("R-Prec@10", "takes no cutoff"),
        ("P@0", "at least 1"),
        ("P@-1", "at least 1"),
        ("P@x", "whole number"),
        ("P@1.5", "whole number"),
        ("nDCG@ten", "whole number"),
        ("nDCG(gain=cubic)@10", "gain must be one of"),
        ("nDCG(ideal=best)", "ideal must be one of"),
        ("AP(denom=all)", "denom must be one of"),
        ("P(rel=high)@5", "rel must be a whole number"),
        ("P(rel=1.5)@5", "rel must be a whole number"),
        ("P(gain=exp)@5", "does not apply"),
        ("nDCG(rel=2)@10", "does not apply"),
        ("nDCG(denom=retrieved)", "does not apply"),
        ("AP(gain=exp)", "does not apply"),
        ("AP(ideal=retrieved)", "does not apply"),
        ("RR(denom=retrieved)", "does not apply"),
        ("Judged(rel=2)@5", "does not apply"),
        ("CG(rel=2)@5", "does not apply"),
        ("P(foo=1)@5", "does not apply"),
        ("P(rel)@5", "does not apply"),
    ],
)
def test_errors(text, fragment):
    with pytest.raises(MeasureError) as caught:
        parse_measure(text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ScorecardError)


def test_unknown_measure_lists_the_known_ones():
    with pytest.raises(MeasureError) as caught:
        parse_measure("Foo@5")
    message = str(caught.value)
    assert "'Foo'" in message
    for name in KINDS:
        assert name in message


def test_errors_name_the_text():
    for text in ("nDCG(gain=cubic)@10", "Rprec@3", "P", "P(gain=exp)@5"):
        with pytest.raises(MeasureError, match=r"in '"):
            parse_measure(text)


def test_registry_is_consistent():
    for name, kind in KINDS.items():
        assert kind.name == name
        assert kind.cutoff in ("required", "optional", "none")
        assert kind.description
        for param in kind.params:
            assert param in PARAM_VALUES
            assert param in PARAM_DEFAULTS


@st.composite
def measures(draw):
    kind = KINDS[draw(st.sampled_from(sorted(KINDS)))]
    if kind.cutoff == "required":
        cutoff = draw(st.integers(1, 1000))
    elif kind.cutoff == "optional":
        cutoff = draw(st.none() | st.integers(1, 1000))
    else:
        cutoff = None
    params = []
    for key in kind.params:
        choices = PARAM_VALUES[key]
        value = draw(st.integers(-3, 5) if choices is None else st.sampled_from(choices))
        if value != PARAM_DEFAULTS[key] and draw(st.booleans()):
            params.append((key, value))
    return Measure(kind.name, cutoff, tuple(params))


@settings(max_examples=200, deadline=None)
@given(measures())
def test_round_trip(measure):
    text = str(measure)
    assert parse_measure(text) == measure
    assert parse_measure(text.lower()) == measure
    assert str(parse_measure(text)) == text
