"""`scorecard init | import | export | baseline` end to end through cli.main."""

from __future__ import annotations

import json

import pytest

from labeling.commands import cli
from labeling.workspace.contents import counts
from labeling.workspace.grading import get_scale
from labeling.workspace.store import open_workspace

RUN = "q1 Q0 c1 1 2.0 s\nq1 Q0 c2 2 1.0 s\n"


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ws(make_workspace, tmp_path):
    """An empty workspace and, beside it, chunks and queries files to import into it."""
    db = make_workspace.path(at=tmp_path / "w.db")
    (tmp_path / "chunks.jsonl").write_text(
        "".join(
            json.dumps({"id": f"c{i}", "text": t}) + "\n"
            for i, t in enumerate(["cats on mats", "dogs", "mat cleaning"], 1)
        )
    )
    (tmp_path / "queries.jsonl").write_text(json.dumps({"id": "q1", "text": "cat mat"}) + "\n")
    return db


def test_init_scales(tmp_path, capsys):
    code, out, _ = run(["init", tmp_path / "b.db", "--scale", "binary"], capsys)
    assert code == 0 and "0 chunks" in out
    assert [g for g, *_ in get_scale(open_workspace(tmp_path / "b.db"))] == [0, 1]
    run(["init", tmp_path / "c.db", "--scale", "0:no,1:yes,2:very"], capsys)
    assert len(get_scale(open_workspace(tmp_path / "c.db"))) == 3
    code, _, err = run(["init", tmp_path / "d.db", "--scale", "nonsense"], capsys)
    assert code == 2 and err.startswith("scorecard: ") and len(err.strip().splitlines()) == 1


def test_import_export_baseline_flow(ws, tmp_path, capsys):
    assert run(["import", ws, "chunks", tmp_path / "chunks.jsonl"], capsys)[0] == 0
    assert run(["import", ws, "queries", tmp_path / "queries.jsonl"], capsys)[0] == 0
    (tmp_path / "l.qrels").write_text("q1 0 c1 2\nq1 0 c7 1\n")
    code, out, err = run(
        ["import", ws, "qrels", tmp_path / "l.qrels", "--annotator", "eva"], capsys
    )
    assert code == 0 and "2 qrels" in out and "placeholder" in err
    (tmp_path / "r.run").write_text(RUN)
    code, out, _ = run(
        [
            "import",
            ws,
            "run",
            tmp_path / "r.run",
            "--run-name",
            "dense",
            "--meta",
            "embedding_model=e5",
            "--meta",
            "team=a=b",
        ],
        capsys,
    )
    assert code == 0 and "2 run rows" in out
    assert (
        run(["baseline", ws, "--run-name", "bm25", "--k", "2", "--fields", "title,text"], capsys)[0]
        == 0
    )
    for argv in (
        ["qrels", tmp_path / "o.qrels"],
        ["run", "dense", tmp_path / "o.run"],
        ["judgments", tmp_path / "j.csv"],
        ["beir", tmp_path / "beir"],
    ):
        code, out, err = run(["export", ws, *argv], capsys)
        assert code == 0, err
    assert (tmp_path / "o.run").read_text().count("\n") == 2
    db = open_workspace(ws)
    assert counts(db)["runs"] == 2
    assert json.loads(db["runs"].get(1)["metadata"]) == {"team": "a=b"}


def test_errors_are_one_line_with_file_and_line(ws, tmp_path, capsys):
    (tmp_path / "bad.qrels").write_text("q1 0 c1 2\nq1 0 c2 9\n")
    code, out, err = run(["import", ws, "qrels", tmp_path / "bad.qrels"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "bad.qrels, line 2" in err
    (tmp_path / "r.run").write_text(RUN)
    code, _, err = run(
        ["import", ws, "run", tmp_path / "r.run", "--run-name", "x", "--strict"], capsys
    )
    assert code == 2 and "line 1" in err and "unknown" in err
    code, _, err = run(["export", tmp_path / "none.db", "qrels", tmp_path / "o"], capsys)
    assert code == 2 and "no such workspace" in err
    code, _, err = run(["export", ws, "run", "nope", tmp_path / "o"], capsys)
    assert code == 2 and "no run named" in err
    code, _, err = run(
        ["import", ws, "run", tmp_path / "r.run", "--run-name", "x", "--meta", "novalue"], capsys
    )
    assert code == 2 and "KEY=VALUE" in err


def test_demo_calls_build_demo(tmp_path, capsys, monkeypatch):
    from labeling.files import demo
    from labeling.workspace.grading import init_workspace

    calls = []
    monkeypatch.setattr(demo, "build_demo",
                        lambda path: calls.append(path) or init_workspace(path).close())
    code, out, err = run(["init", tmp_path / "demo.db", "--demo"], capsys)
    assert code == 0, err
    assert calls == [tmp_path / "demo.db"]
    code, _, err = run(["init", tmp_path / "demo.db", "--demo"], capsys)
    assert code == 2 and "already exists" in err

