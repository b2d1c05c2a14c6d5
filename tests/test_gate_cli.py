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
from labeling.evaluation import regression_gate
from labeling.judging import consensus
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


@pytest.fixture
def stored(make_workspace) -> Path:
    """The demo with a run ``broken``: bm25's top ten of every query in reverse order (the
    same chunks, so the same Judged@10, ranked worst first)."""
    path = make_workspace.path("demo")
    db = store.open_workspace(path, create=False)
    frame = consensus.run_frame(db, "bm25")
    top = frame.loc[frame["rank"] <= 10]
    add_rows(db, runs={"broken": [(q, c, float(rank)) for q, c, rank in
                                  zip(top["query_id"], top["doc_id"], top["rank"], strict=True)]})
    db.close()
    return path


@pytest.mark.parametrize(("run", "extra", "status"), [
    ("fusion", ("--min-judged", "0.7"), PASS),
    ("broken", ("--min-judged", "0.7"), WORSE),
    ("fusion", ("--min-judged", "0.95"), NOT_ENOUGH),
    ("nope", (), BAD_INPUT),
])
def test_four_outcomes_on_a_stored_run(stored, capsys, run, extra, status):
    assert main(["gate", str(stored), "--run", run, "--baseline", "bm25", "-m", "nDCG@10",
                 "--max-drop", "0.01", *extra]) == status
    captured = capsys.readouterr()
    if status == BAD_INPUT:
        assert "no run named 'nope'" in captured.err
    else:
        assert captured.out.startswith(("PASS", "WORSE", "NOT ENOUGH LABELS")[[0, 1, 3].index(
            status)])
        assert "46 queries" in captured.out


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


def test_verdicts_say_what_decides():
    settings = regression_gate.GateSettings(("nDCG@10",), 0.01, min_judged=0.5)
    index = pd.Index([f"q{i}" for i in range(30)], dtype="string")
    base = pd.DataFrame({"nDCG@10": np.linspace(0.2, 0.9, 30)}, index=index)
    worse = pd.DataFrame({"nDCG@10": base["nDCG@10"] - 0.2, "Judged@10": 1.0}, index=index)
    result = regression_gate.decide("new", "old", worse, base, settings)
    assert result.outcome == "worse" and result.exit_code == 1
    assert "lost 0.2000 nDCG@10" in result.verdict and "30 queries" in result.verdict
    thin = worse.assign(**{"Judged@10": 0.4})
    result = regression_gate.decide("new", "old", thin, base, settings)
    assert result.outcome == "not enough labels" and result.exit_code == 3
    assert "Judged@10 of new is 40%" in result.verdict
    same = worse.assign(**{"nDCG@10": base["nDCG@10"]})
    result = regression_gate.decide("new", "old", same, base, settings)
    assert result.outcome == "pass" and result.exit_code == 0
    assert "30 queries" in result.verdict and "interval" in result.verdict
    one = regression_gate.decide("new", "old", worse.iloc[:1], base.iloc[:1], settings)
    assert one.outcome == "not enough labels" and "1 evaluated query" in one.verdict
