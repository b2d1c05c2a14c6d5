"""Evidence spans: stored with a judgment and its history, checked against the chunk and its
document, imported from and exported to JSON lines exactly."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from labeling.errors import InputError
from labeling.files import importers
from labeling.workspace import judgments

INTRO = "Backups run nightly at 02:00 and keep fourteen copies."
RESTORE = ("To restore a file, run restore --from DATE PATH. The restore asks before it "
           "overwrites anything. Restores of whole disks need an administrator.")
DOC = f"{INTRO}\n\n{RESTORE}\n"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def span_of(piece: str) -> tuple[int, int]:
    return DOC.index(piece), DOC.index(piece) + len(piece)


@pytest.fixture
def placed(make_workspace, tmp_path):
    """Document ``d`` in two chunks ``intro`` and ``restore`` (chunk set ``paragraphs``)."""
    db = make_workspace(queries=[{"id": "q1", "text": "how do I restore a file", "split": "dev"}])
    importers.import_documents(db, write_jsonl(tmp_path / "d.jsonl", [{"id": "d", "text": DOC}]))
    importers.import_chunk_set(db, write_jsonl(tmp_path / "c.jsonl", [
        {"id": "intro", "doc_id": "d", "text": INTRO},
        {"id": "restore", "doc_id": "d", "text": RESTORE}]), "paragraphs")
    return db


def test_a_judgment_keeps_its_evidence_in_its_history(placed):
    answer = span_of("run restore --from DATE PATH.")
    first = judgments.add_judgment(placed, "q1", "restore", 2, "ana", evidence=[answer])
    second = judgments.add_judgment(placed, "q1", "restore", 1, "ana")
    history = judgments.judgment_history(placed, "q1", "restore")
    assert [(r["id"], r["evidence"]) for r in history] == [(first, [answer]), (second, [])]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        placed.conn.execute("DELETE FROM judgment_evidence")


@pytest.mark.parametrize(("chunk", "grade", "span", "problem"), [
    ("intro", 2, span_of("run restore"), r"outside chunk .intro. \(characters 0-54"),
    ("restore", 2, (len(DOC) - 5, len(DOC) + 3), "outside document 'd'"),
    ("restore", 0, span_of("run restore"), "only a relevant grade"),
    ("restore", 2, (9, 9), "0 <= N < M"),
])
def test_evidence_that_does_not_fit_is_refused_and_nothing_is_saved(
        placed, chunk, grade, span, problem):
    with pytest.raises(InputError, match=problem):
        judgments.add_judgment(placed, "q1", chunk, grade, "ana", evidence=[span])
    assert placed.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0


# ---------------------------------------------------------------------------------------------
# Files: JSON lines in, JSON lines and CSV out


def qrels_rows() -> list[dict]:
    return [
        {"query_id": "q1", "doc_id": "intro", "relevance": 0},
        {"query_id": "q1", "doc_id": "restore", "relevance": 2,
         "evidence": [{"start": s, "end": e} for s, e in (
             span_of("run restore --from DATE PATH."),
             span_of("The restore asks before it overwrites anything."))]},
    ]


@pytest.fixture
def placed_file(placed, tmp_path):
    path = Path(placed.conn.execute("PRAGMA database_list").fetchone()[2])
    placed.close()
    return path


def scorecard(*argv) -> int:
    from labeling.commands import cli
    return cli.main([str(a) for a in argv])


def test_jsonl_qrels_with_evidence_round_trip_exactly_through_the_command_line(
        placed_file, tmp_path, capsys):
    source = write_jsonl(tmp_path / "labels.jsonl", qrels_rows())
    assert scorecard("import", placed_file, "qrels", source) == 0
    out = tmp_path / "out.jsonl"
    assert scorecard("export", placed_file, "qrels", out) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == qrels_rows()
    table = tmp_path / "judgments.csv"
    assert scorecard("export", placed_file, "judgments", table) == 0
    import csv
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    assert [json.loads(r["evidence"]) if r["evidence"] else None for r in rows] == [
        None, qrels_rows()[1]["evidence"]]


@pytest.mark.parametrize(("line", "bad", "problem"), [
    (2, {"start": 3, "end": 9}, "outside chunk 'restore'"),
    (2, {"start": len(DOC) - 2, "end": len(DOC) + 40}, "outside document 'd'"),
    (2, {"start": 9, "end": 3}, "0 <= N < M"),
    (1, {"start": 3, "end": 9}, "only a relevant grade"),
])
def test_a_span_that_does_not_fit_is_a_line_error_and_nothing_is_written(
        placed_file, tmp_path, capsys, line, bad, problem):
    rows = qrels_rows()
    rows[line - 1]["evidence"] = [bad]
    source = write_jsonl(tmp_path / "labels.jsonl", rows)
    assert scorecard("import", placed_file, "qrels", source) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"labels.jsonl, line {line}:" in err[0] and problem in err[0], err
    conn = sqlite3.connect(placed_file)
    assert conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM judgment_evidence").fetchone()[0] == 0
    conn.close()
