"""Exporters: consensus qrels, the judgment history CSV (formula-safe), BEIR parts."""

from __future__ import annotations

import csv

import pytest

from labeling.files.exporters import (
    corpus_frame,
    defuse,
    export_judgments,
    export_qrels,
    queries_frame,
)
from labeling.workspace.judgments import add_judgment


@pytest.fixture
def db(make_workspace):
    return make_workspace(
        queries=[{"id": "q1", "text": "a?", "split": "test", "intent": "lookup"}],
        chunks=[{"id": "c1", "doc_id": "d1", "text": "x"}, {"id": "c2", "text": "y"}],
        runs={"r": [("q9", "c9", 1.0)]},  # q9 and c9 become placeholders: only a run names them
    )


def test_defuse():
    assert [defuse(v) for v in ["=1+1", "+x", "-2", "@SUM(A1)", "\tx", "ok", 5, -1, None]] == [
        "'=1+1",
        "'+x",
        "'-2",
        "'@SUM(A1)",
        "'\tx",
        "ok",
        5,
        -1,
        None,
    ]


def test_judgment_history_csv_keeps_every_row_and_defuses_formulas(db, tmp_path):
    add_judgment(db, "q1", "c1", 1, '=HYPERLINK("http://evil")', note='say "hi", then\nleave')
    add_judgment(db, "q1", "c1", 3, "ann", note="@cmd", flags={"adjudicated": True})
    n = export_judgments(db, tmp_path / "j.csv")
    with open(tmp_path / "j.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert n == 2 and len(rows) == 2
    assert rows[0]["annotator"] == '\'=HYPERLINK("http://evil")'
    assert rows[0]["note"] == 'say "hi", then\nleave'
    assert rows[1]["note"] == "'@cmd" and rows[1]["flags"] == '{"adjudicated": true}'
    assert [r["grade"] for r in rows] == ["1", "3"]


def test_export_qrels_uses_consensus(db, tmp_path):
    # c1: the majority grade 1 (the first judgment, the latest, the highest and the mean differ).
    add_judgment(db, "q1", "c1", 3, "b")
    add_judgment(db, "q1", "c1", 1, "a")
    add_judgment(db, "q1", "c1", 1, "c")
    # c2: a's current grade is 0 (a changed 3 to 0), b's 3: no majority, mean 1.5 rounds to 2.
    add_judgment(db, "q1", "c2", 3, "a")
    add_judgment(db, "q1", "c2", 3, "b")
    add_judgment(db, "q1", "c2", 0, "a")
    assert export_qrels(db, tmp_path / "q.txt") == 2
    lines = (tmp_path / "q.txt").read_text().splitlines()
    expected = [["q1", "0", "c1", "1"], ["q1", "0", "c2", "2"]]
    assert sorted(line.split() for line in lines) == expected


def test_beir_frames_skip_placeholders_and_carry_attributes(db):
    corpus = corpus_frame(db)
    assert corpus["_id"].tolist() == ["c1", "c2"]
    assert corpus["metadata"].tolist() == [{"doc_id": "d1"}, {}]
    queries = queries_frame(db)
    assert queries["_id"].tolist() == ["q1"]
    assert queries["metadata"].tolist() == [{"intent": "lookup", "split": "test"}]
