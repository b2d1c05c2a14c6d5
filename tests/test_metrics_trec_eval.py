"""trec_eval's own regression data as an external oracle (``tests/data/trec_eval``).

Every per-query and ``all`` value trec_eval printed for a measure we implement must come out of
our engine to the 4 decimals printed. See tests/data/README.md for the commands behind each
expected output.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pandas as pd
import pytest

from labeling.metrics.engine import evaluate

ORACLE = Path(__file__).resolve().parent / "data" / "trec_eval"
TOLERANCE = 5e-5  # values are printed with 4 decimals


def oracle_file(name: str) -> Path:
    path = ORACLE / name
    if not path.is_file():
        pytest.fail(
            f"trec_eval oracle file {path} is missing from the checkout "
            f"(see tests/data/README.md)",
            pytrace=False,
        )
    return path


@cache
def read_qrels(name: str) -> pd.DataFrame:
    """TREC qrels: ``query iteration doc relevance``, whitespace separated."""
    rows = [line.split()[:4] for line in oracle_file(name).read_text().splitlines() if line.strip()]
    return pd.DataFrame(
        [(q, d, int(r)) for q, _, d, r in rows], columns=["query_id", "doc_id", "relevance"]
    )


@cache
def read_run(name: str) -> pd.DataFrame:
    """TREC run: ``query Q0 doc rank score tag [anything]``; the rank column is ignored."""
    rows = [line.split()[:5] for line in oracle_file(name).read_text().splitlines() if line.strip()]
    return pd.DataFrame(
        [(q, d, int(rank), float(score)) for q, _, d, rank, score in rows],
        columns=["query_id", "doc_id", "rank", "score"],
    )


@cache
def read_expected(name: str) -> dict[str, dict[str, str]]:
    """``measure -> query -> printed value`` from a ``trec_eval -q`` output."""
    out: dict[str, dict[str, str]] = {}
    for line in oracle_file(name).read_text().splitlines():
        if line.strip():
            measure, query, value = (part.strip() for part in line.split("\t"))
            out.setdefault(measure, {})[query] = value
    return out


_PATTERNS = [
    (re.compile(r"^map$"), lambda m, rel: f"AP{rel}"),
    (re.compile(r"^map_cut_(\d+)$"), lambda m, rel: f"AP{rel}@{m[1]}"),
    (re.compile(r"^P_(\d+)$"), lambda m, rel: f"P{rel}@{m[1]}"),
    (re.compile(r"^recall_(\d+)$"), lambda m, rel: f"R{rel}@{m[1]}"),
    (re.compile(r"^success_(\d+)$"), lambda m, rel: f"Success{rel}@{m[1]}"),
    (re.compile(r"^recip_rank$"), lambda m, rel: f"RR{rel}"),
    # trec_eval's -l does not apply to ndcg.
    (re.compile(r"^ndcg$"), lambda m, rel: "nDCG"),
    (re.compile(r"^ndcg_cut_(\d+)$"), lambda m, rel: f"nDCG@{m[1]}"),
    (re.compile(r"^Rprec$"), lambda m, rel: f"Rprec{rel}"),
]


def our_name(trec_name: str, rel: int) -> str | None:
    """Our measure for a trec_eval measure name, or None when we do not implement it."""
    suffix = "" if rel == 1 else f"(rel={rel})"
    for pattern, build in _PATTERNS:
        match = pattern.match(trec_name)
        if match:
            return build(match, suffix)
    return None


# (expected output, qrels, run, relevance threshold, trec_eval measures whose parameters differ
# from ours and must be skipped)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", 1, ()),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, ()),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, ()),
    # ndcg with custom gains (ndcg.1=3,2=9,4=4.5) and the non-integer ndcg_cut.23.4 are not ours.
    "out.test.meas_params": ("qrels.test", "results.test", 1, ("ndcg_cut_23",)),
}


def _cases():
    for expected_name, (_, _, rel, skip) in CASES.items():
        expected = read_expected(expected_name) if (ORACLE / expected_name).is_file() else {}
        names = sorted(t for t in expected if t not in skip and our_name(t, rel))
        if not names:
            yield pytest.param(expected_name, None, id=f"{expected_name}-missing")
        for trec_name in names:
            yield pytest.param(expected_name, trec_name, id=f"{expected_name}-{trec_name}")


@cache
def evaluation(expected_name: str):
    qrels_name, run_name, rel, skip = CASES[expected_name]
    expected = read_expected(expected_name)
    measures = sorted(
        {our_name(t, rel) for t in expected if t not in skip and our_name(t, rel)}
    )
    return evaluate(read_qrels(qrels_name), read_run(run_name), measures)


@pytest.mark.parametrize(("expected_name", "trec_name"), list(_cases()))
def test_matches_trec_eval(expected_name, trec_name):
    expected = read_expected(expected_name)  # fails clearly if the oracle folder is missing
    assert trec_name is not None, f"no measure we implement in {expected_name}"
    rel = CASES[expected_name][2]
    name = our_name(trec_name, rel)
    ev = evaluation(expected_name)
    got = {str(q): float(v) for q, v in ev.per_query[name].items()}
    got["all"] = float(ev.mean[name])
    want = expected[trec_name]
    assert set(got) == set(want), f"{name}: queries {sorted(got)} vs trec_eval {sorted(want)}"
    wrong = {
        q: (got[q], want[q]) for q in want if abs(got[q] - float(want[q])) > TOLERANCE
    }
    assert not wrong, f"{name} (trec_eval {trec_name}) differs: query -> (ours, trec_eval) {wrong}"


def test_every_implemented_measure_is_covered():
    """The mapping catches each family we implement in the all_trec output."""
    names = {our_name(t, 1) for t in read_expected("out.test.aq")} - {None}
    kinds = {name.split("@")[0] for name in names}
    assert kinds == {"AP", "P", "R", "Success", "RR", "nDCG", "Rprec"}
    # map, recip_rank, ndcg, Rprec, 9 cutoffs of P, recall, map_cut, ndcg_cut, 3 of success
    assert len(names) == 43


@pytest.mark.parametrize("expected_name", ["out.test.aq", "out.test.aqc", "out.test.aql"])
def test_counts_match_trec_eval(expected_name):
    """num_rel, num_rel_ret and num_ret per query and summed in ``all``, from ``.parts``."""
    qrels_name, run_name, rel, _ = CASES[expected_name]
    expected = read_expected(expected_name)
    suffix = "" if rel == 1 else f"(rel={rel})"
    everything = f"R{suffix}@100000"
    found = f"AP{suffix}(denom=retrieved)" if rel == 1 else f"AP(rel={rel},denom=retrieved)"
    ev = evaluate(read_qrels(qrels_name), read_run(run_name), [everything, found])
    num_rel = ev.parts[f"{everything}.relevant"]
    num_rel_ret = ev.parts[f"{everything}.relevant_retrieved"]
    assert (ev.parts[f"{found}.denominator"] == num_rel_ret).all()
    for trec_name, ours in (("num_rel", num_rel), ("num_rel_ret", num_rel_ret)):
        want = expected[trec_name]
        got = {str(q): int(v) for q, v in ours.items()}
        got["all"] = int(ours.sum())
        assert got == {q: int(v) for q, v in want.items()}, trec_name
    assert int(expected["num_q"]["all"]) == len(ev.per_query)


def test_out_test_default_means():
    """``trec_eval qrels.test results.test``: the default report's means we implement."""
    expected = read_expected("out.test")
    names = {t: our_name(t, 1) for t in expected if our_name(t, 1)}
    assert set(names) >= {"map", "Rprec", "recip_rank", "P_5", "P_10", "P_1000"}
    ev = evaluate(read_qrels("qrels.test"), read_run("results.test"), sorted(set(names.values())))
    for trec_name, name in names.items():
        assert abs(ev.mean[name] - float(expected[trec_name]["all"])) <= TOLERANCE, name


def test_missing_queries_can_be_skipped():
    """results.trunc lacks topic 302: skipping it averages over the two answered topics."""
    expected = read_expected("out.test.aqc")
    ev = evaluate(read_qrels("qrels.test"), read_run("results.trunc"), ["AP", "P@5"],
                  missing="skip")
    assert sorted(ev.per_query.index) == ["301", "303"]
    for trec_name, name in (("map", "AP"), ("P_5", "P@5")):
        want = (float(expected[trec_name]["301"]) + float(expected[trec_name]["303"])) / 2
        assert abs(ev.mean[name] - want) <= TOLERANCE


def test_rank_column_is_ignored():
    """results.test's rank column disagrees with its scores; trec_eval orders by score."""
    run = read_run("results.test")
    by_score = run.sort_values(["query_id", "score"], ascending=[True, False])
    assert not (by_score.groupby("query_id")["rank"].diff().dropna() > 0).all()
    qrels = read_qrels("qrels.test")
    with_rank = evaluate(qrels, run, ["AP", "nDCG@10"]).per_query
    without_rank = evaluate(qrels, run.drop(columns="rank"), ["AP", "nDCG@10"]).per_query
    pd.testing.assert_frame_equal(with_rank, without_rank)
