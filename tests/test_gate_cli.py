"""`scorecard gate`: its four outcomes and exit statuses on files and on stored runs, and its
text, JSON and JUnit XML reports (the XML validated against the schema CI systems read)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lxml import etree

from labeling.commands.cli import main
from labeling.evaluation.planning import regression_gate
from labeling.judging import consensus
from labeling.metrics.engine import ranked_list
from labeling.metrics.unjudged_fillings import GateValues, Slots
from labeling.workspace import store
from tests import hostile
from tests.workspaces import add_rows

SCHEMA = Path(__file__).resolve().parent / "data" / "junit" / "junit-10.xsd"
PASS, WORSE, BAD_INPUT, NOT_ENOUGH = 0, 1, 2, 3


def _trec_run(rows: list[tuple[str, str, float]]) -> str:
    lines, rank = [], {}
    for query, doc, score in sorted(rows, key=lambda r: (r[0], -r[2], r[1])):
        rank[query] = rank.get(query, 0) + 1
        lines.append(f"{query} Q0 {doc} {rank[query]} {score:.4f} gate-test")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """80 queries with 12 graded documents each; a baseline run that ranks them by grade with
    noise, a run that is the same up to small noise, a run that reverses the order (a real
    regression), a run whose top 5 are documents nobody judged, and a queries file with a
    segment attribute."""
    folder = tmp_path_factory.mktemp("gate-files")
    rng = np.random.default_rng(19)
    qrels, base, same, broken, unjudged, queries = [], [], [], [], [], []
    for i in range(80):
        query = f"q{i:03d}"
        queries.append({"id": query, "text": f"question {i}", "topic": ("hr", "it")[i % 2]})
        grades = rng.choice([0, 0, 1, 2, 3], size=12)
        for j, grade in enumerate(grades):
            doc = f"d{i:03d}-{j:02d}"
            qrels.append(f"{query} 0 {doc} {grade}")
            score = float(grade) + rng.normal(0, 1.2)
            base.append((query, doc, score))
            same.append((query, doc, score + rng.normal(0, 0.05)))
            broken.append((query, doc, -score))
            unjudged.append((query, doc, score))
        for j in range(5):
            unjudged.append((query, f"x{i:03d}-{j}", 100.0 - j))
    paths = {name: folder / name for name in
             ("labels.qrels", "old.run", "same.run", "broken.run", "unjudged.run",
              "queries.jsonl")}
    paths["labels.qrels"].write_text("\n".join(qrels) + "\n")
    for name, rows in (("old.run", base), ("same.run", same), ("broken.run", broken),
                       ("unjudged.run", unjudged)):
        paths[name].write_text(_trec_run(rows))
    paths["queries.jsonl"].write_text("".join(json.dumps(q) + "\n" for q in queries))
    return paths


def _gate_files(files, run: str, *extra: str) -> list[str]:
    return ["gate", "--qrels", str(files["labels.qrels"]), "--run", str(files[run]),
            "--baseline", str(files["old.run"]), "-m", "nDCG@10", "--max-drop", "0.01", *extra]


@pytest.mark.parametrize(("run", "extra", "status", "word"), [
    ("same.run", (), PASS, "PASS"),
    ("broken.run", (), WORSE, "WORSE"),
    ("unjudged.run", (), NOT_ENOUGH, "NOT ENOUGH LABELS"),
    ("same.run", ("--min-judged", "1.5"), BAD_INPUT, "--min-judged"),
])
def test_four_outcomes_on_files(files, capsys, run, extra, status, word):
    assert main(_gate_files(files, run, *extra)) == status
    captured = capsys.readouterr()
    shown = captured.out if status != BAD_INPUT else captured.err
    assert word in shown
    if status != BAD_INPUT:
        verdict = shown.splitlines()[0]
        assert "80 queries" in verdict  # the number of queries ...
        assert "interval" in verdict or "Judged@10" in verdict  # ... and the interval


def test_bad_input_names_the_file_and_line_and_writes_nothing(files, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text(files["same.run"].read_text() + "q001 Q0 d001-01 one 2.5 tag\n")
    out = tmp_path / "report.xml"
    assert main(["gate", "--qrels", str(files["labels.qrels"]), "--run", str(bad),
                 "--baseline", str(files["old.run"]), "-m", "nDCG@10", "--max-drop", "0.01",
                 "--format", "junit", "--out", str(out)]) == BAD_INPUT
    err = capsys.readouterr().err
    assert "bad.run" in err and "line 961" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("args", [
    ["-m", "nDCG@10", "--max-drop", "0.01"],  # neither a workspace nor --qrels
    ["-m", "nDCG(gain=cubic)@10", "--max-drop", "0.01", "--qrels", "x"],
    ["-m", "nDCG@10", "--max-drop", "-0.01", "--qrels", "x"],
])
def test_bad_settings_exit_two(args, capsys):
    assert main(["gate", "--run", "a", "--baseline", "b", *args]) == BAD_INPUT
    assert capsys.readouterr().err.startswith("scorecard: ")


def test_a_missing_option_is_bad_input_too():
    with pytest.raises(SystemExit) as exit_info:
        main(["gate", "--run", "a", "--baseline", "b", "-m", "nDCG@10"])
    assert exit_info.value.code == BAD_INPUT


def _add_broken(db) -> None:
    """Runs ``broken``: bm25's top ten of every query in reverse order (the same chunks, so
    the same slots judged, ranked worst first); and ``deeper``: bm25's ranks 11 to 20 in
    order (results the demo's pool of depth 10 left mostly unjudged)."""
    frame = consensus.run_frame(db, "bm25")
    top = frame.loc[frame["rank"] <= 10]
    deeper = frame.loc[frame["rank"].between(11, 20)]
    add_rows(db, runs={
        "broken": [(q, c, float(rank)) for q, c, rank in
                   zip(top["query_id"], top["doc_id"], top["rank"], strict=True)],
        "deeper": [(q, c, -float(rank)) for q, c, rank in
                   zip(deeper["query_id"], deeper["doc_id"], deeper["rank"], strict=True)]})


def _label_every_unjudged_top_ten(db, runs=("bm25", "fusion")) -> int:
    """Import a label (by ``carol``, grades 0 to 2 in turn) for every unjudged pair of the
    runs' top ten, as the issue did; returns how many."""
    qrels = consensus.consensus_qrels(db, "default")
    pairs = set()
    for run in runs:
        ranked = ranked_list(qrels, consensus.run_frame(db, run)[["query_id", "doc_id", "score"]])
        top = ranked.loc[(ranked["rank"] <= 10) & ranked["grade"].isna()]
        pairs |= set(zip(top["query_id"], top["doc_id"], strict=True))
    pairs = sorted(pairs)
    add_rows(db, judgments=[(q, c, i % 3, "carol") for i, (q, c) in enumerate(pairs)])
    return len(pairs)


@pytest.fixture
def stored(make_workspace) -> Path:
    """The demo with the run ``broken`` (``_add_broken``)."""
    path = make_workspace.path("demo")
    db = store.open_workspace(path, create=False)
    _add_broken(db)
    db.close()
    return path


@pytest.fixture(scope="module")
def labeled(build_workspace) -> Path:
    """The demo with ``broken`` and a label for every unjudged top-ten pair of bm25 and
    fusion: only empty slots are left without a label."""
    path = build_workspace.path("demo")
    db = store.open_workspace(path, create=False)
    _add_broken(db)
    assert _label_every_unjudged_top_ten(db) > 0
    db.close()
    return path


def _gate_stored(path: Path, run: str, *extra: str) -> list[str]:
    return ["gate", str(path), "--run", run, "--baseline", "bm25", "-m", "nDCG@10",
            "--max-drop", "0.01", *extra]


@pytest.mark.parametrize(("run", "extra", "status"), [
    ("broken", (), WORSE),
    ("broken", ("--min-judged", "0.95"), WORSE),  # worse whatever the coverage
    ("fusion", (), PASS),
    ("fusion", ("--min-judged", "0.95"), NOT_ENOUGH),  # 94% of its filled slots judged
    ("deeper", (), NOT_ENOUGH),  # its verdict depends on the unjudged results
    ("nope", (), BAD_INPUT),
])
def test_four_outcomes_on_a_stored_run(stored, capsys, run, extra, status):
    assert main(_gate_stored(stored, run, *extra)) == status
    captured = capsys.readouterr()
    if status == BAD_INPUT:
        assert "no run named 'nope'" in captured.err
    else:
        assert captured.out.startswith(("PASS", "WORSE", "NOT ENOUGH LABELS")[[0, 1, 3].index(
            status)])
        assert "46 queries" in captured.out


def test_a_reversed_top_ten_is_worse_whatever_the_coverage(stored, capsys):
    """Issue 26, case 2: bm25's top ten reversed on the demo, where 22 of bm25's filled
    top-ten slots are unjudged, exited 3 "not enough labels" (Judged@10 below the 90% floor),
    and the README's CI example merged it. It is worse even if every unjudged result of the
    reversed run were relevant and none of bm25's: exit 1."""
    assert main(_gate_stored(stored, "broken", "--format", "json")) == WORSE
    payload = json.loads(capsys.readouterr().out)
    check = payload["checks"][0]
    assert check["unjudged"] > 0 and check["status"] == "worse"
    assert check["change_worst"] <= check["change"] <= check["change_best"] < -0.01
    assert check["high"] < -0.01 and check["p_holm"] < 0.05
    assert "even if every unjudged result of the run were relevant" in payload["verdict"]
    assert "every unjudged result of the run relevant" in payload["filling"]


def test_empty_slots_are_not_unjudged(labeled, capsys):
    """Issue 26, case 1: with a label for every unjudged top-ten pair of fusion and bm25, the
    gate exited 3 at 85% Judged@10, 14.8% of fusion's slots being empty (it returned fewer
    than ten results), so no floor of 90% could be met. Empty slots are counted apart: every
    filled slot is judged, and the same floor passes."""
    assert main(_gate_stored(labeled, "fusion", "--min-judged", "0.9", "--format",
                             "json")) == PASS
    check = json.loads(capsys.readouterr().out)["checks"][0]
    assert check["judged"] == check["filled"] and check["judged_share"] == 1.0
    assert check["unjudged"] == 0
    assert check["slots"] == 460 and check["empty"] == 68  # 14.8% of the slots
    assert check["change_best"] == check["change"] == check["change_worst"]
    assert main(_gate_stored(labeled, "fusion")) == PASS
    text = capsys.readouterr().out
    assert "Judged@10 of fusion 100% of 392 filled slots (0 unjudged; 68 of 460 slots empty)" \
        in text
    assert main(_gate_stored(labeled, "broken")) == WORSE


def _junit(files, tmp_path, run: str, *extra: str) -> tuple[int, Path]:
    out = tmp_path / f"{run}.xml"
    status = main(_gate_files(files, run, "--format", "junit", "--out", str(out), *extra))
    return status, out


def _check_structure(root: ElementTree.Element) -> None:
    """The common schema's structure, checked by hand as well: counts agree with the cases."""
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    for element in (root, suite):
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == len(failures)
        assert int(element.get("errors")) == len(errors)
    for case in cases:
        assert case.get("name") and case.get("classname")
    for case in failures + errors:
        problem = case.find("failure") if case in failures else case.find("error")
        assert problem.get("message") and problem.get("type")
    names = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert {"outcome", "exit_code", "max_drop", "alpha", "min_judged", "tests"} <= set(names)


@pytest.mark.parametrize(("run", "status", "tag", "kind"), [
    ("broken.run", WORSE, "failure", "worse"),
    ("unjudged.run", NOT_ENOUGH, "error", "not enough labels"),
    ("same.run", PASS, None, None),
])
def test_junit_validates_against_the_common_schema(files, tmp_path, capsys, run, status, tag,
                                                  kind):
    code, out = _junit(files, tmp_path, run, "--segment", "topic", "--queries",
                       str(files["queries.jsonl"]), "-m", "RR")
    assert code == status
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    document = etree.parse(str(out))
    assert schema.validate(document), schema.error_log
    root = ElementTree.parse(out).getroot()
    _check_structure(root)
    cases = root.find("testsuite").findall("testcase")
    assert len(cases) == 6  # 2 measures x (all queries, hr, it)
    if tag:
        assert any(c.find(tag) is not None and c.find(tag).get("type") == kind for c in cases)
    assert capsys.readouterr().out.startswith(("PASS", "WORSE", "NOT ENOUGH")[[0, 1, 3].index(
        status)])


def test_json_report(files, capsys):
    assert main(_gate_files(files, "broken.run", "--format", "json", "-m", "RR")) == WORSE
    payload = json.loads(capsys.readouterr().out)
    assert payload["outcome"] == "worse" and payload["exit_code"] == WORSE
    assert payload["settings"]["tests"] == 2 and payload["settings"]["correction"] == "Holm"
    check = payload["checks"][0]
    assert check["n"] == 80 and check["low"] <= check["change"] <= check["high"]
    assert check["high"] < -0.01 and check["status"] == "worse"
    assert check["p_holm"] >= check["p"]


def test_hostile_names_stay_valid_xml_and_plain_text(files, tmp_path, capsys):
    """A run file whose name holds markup and a control character, segment values with
    control characters and markup: the XML still validates, the text has no control bytes."""
    named = tmp_path / f"{hostile.SHORT[:20].replace('/', '_')}\x01\x1b[31m.run"
    named.write_text(files["broken.run"].read_text())
    queries = tmp_path / "queries.jsonl"
    lines = files["queries.jsonl"].read_text().splitlines()
    queries.write_text("".join(
        line.replace('"hr"', json.dumps(f"hr\u0001{hostile.LINK}")) + "\n" for line in lines))
    out = tmp_path / "report.xml"
    args = ["gate", "--qrels", str(files["labels.qrels"]), "--run", str(named), "--baseline",
            str(files["old.run"]), "-m", "nDCG@10", "--max-drop", "0.01", "--segment",
            "topic", "--queries", str(queries)]
    assert main([*args, "--format", "junit", "--out", str(out)]) == WORSE
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(etree.parse(str(out))), schema.error_log
    text = out.read_text()
    assert "\x01" not in text and "\x1b" not in text and "\ufffd" in text
    capsys.readouterr()
    assert main(args) == WORSE
    shown = capsys.readouterr().out
    assert "\x01" not in shown and "\x1b" not in shown


def _values(run: pd.DataFrame, baseline: pd.DataFrame, judged: int = 10, filled: int = 10,
            worst: float = 0.0, best: float = 0.0) -> GateValues:
    """Values whose worst and best case move the change by ``worst`` and ``best``."""
    slots = Slots(10, pd.Series(filled, index=run.index), pd.Series(judged, index=run.index))
    change = run - baseline
    return GateValues(run, baseline, change + best, change + worst, {10: slots})


def test_verdicts_say_what_decides():
    settings = regression_gate.GateSettings(("nDCG@10",), 0.01, min_judged=0.5)
    index = pd.Index([f"q{i}" for i in range(30)], dtype="string")
    base = pd.DataFrame({"nDCG@10": np.linspace(0.2, 0.9, 30)}, index=index)
    worse = base - 0.2
    result = regression_gate.decide("new", "old", _values(worse, base), settings)
    assert result.outcome == "worse" and result.exit_code == 1
    assert "lost 0.2000 nDCG@10" in result.verdict and "30 queries" in result.verdict
    assert "100% of 300 filled slots (0 unjudged; 0 of 300 slots empty)" in result.verdict
    thin = regression_gate.decide("new", "old", _values(worse, base, judged=4), settings)
    assert thin.outcome == "worse"  # worse whatever the coverage
    result = regression_gate.decide("new", "old", _values(base, base, judged=4, filled=8),
                                    settings)
    assert result.outcome == "pass"  # at the floor, empty slots not counted against it
    assert "Judged@10 of new 50% of 240 filled slots (120 unjudged; 60 of 300 slots empty)" \
        in result.verdict
    result = regression_gate.decide("new", "old", _values(base, base, judged=3, filled=8),
                                    settings)
    assert result.outcome == "not enough labels" and result.exit_code == 3
    assert "38% of 240 filled slots" in result.verdict and "floor of 50%" in result.verdict
    result = regression_gate.decide("new", "old", _values(base, base), settings)
    assert result.outcome == "pass" and result.exit_code == 0
    assert "30 queries" in result.verdict and "interval" in result.verdict
    noisy = base.add(np.tile([0.05, -0.05], 15), axis=0)
    depends = _values(noisy, base, judged=8, worst=-0.3, best=0.1)
    result = regression_gate.decide("new", "old", depends, settings)
    assert result.outcome == "not enough labels"
    assert "depends on the unjudged results" in result.verdict
    one = regression_gate.decide("new", "old", _values(worse.iloc[:1], base.iloc[:1]),
                                 settings)
    assert one.outcome == "not enough labels" and "1 evaluated query" in one.verdict
