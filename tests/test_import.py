"""Importers: happy paths, placeholders, strict mode, run names, round trips through exports."""

from __future__ import annotations

import json

import pytest

from labeling.errors import InputError
from labeling.files.exporters import export_beir, export_qrels, export_run
from labeling.files.importers import (
    import_beir,
    import_chunks,
    import_qrels,
    import_queries,
    import_run,
)
from labeling.judging.consensus import consensus_qrels, run_frame
from labeling.workspace.contents import counts, get_run, query_segments

RUN = "q1 Q0 c1 1 9.5 sys\nq1 Q0 c2 2 7.25 sys\nq2 Q0 c2 1 3.0 sys\nq2 Q0 c3 2 1.5 sys\n"
QRELS = "q1 0 c1 2\nq1 0 c2 0\nq2 0 c3 3\n"


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def db(make_workspace):
    return make_workspace()


@pytest.fixture
def filled(db, tmp_path):
    import_chunks(
        db,
        jsonl(
            tmp_path / "chunks.jsonl",
            [
                {"id": "c1", "doc_id": "d1", "title": "T1", "text": "alpha beta", "lang": "en"},
                {"id": "c2", "doc_id": "d1", "title": "T2", "text": "beta gamma"},
                {"id": "c3", "doc_id": "d2", "title": "T3", "text": "gamma delta"},
            ],
        ),
    )
    import_queries(
        db,
        jsonl(
            tmp_path / "queries.jsonl",
            [
                {
                    "id": "q1",
                    "text": "alpha?",
                    "source": "real",
                    "split": "dev",
                    "intent": "lookup",
                },
                {
                    "id": "q2",
                    "text": "delta?",
                    "source": "synthetic",
                    "metadata": {"intent": "how"},
                },
            ],
        ),
    )
    return db


def test_records_imports_store_fields_and_attributes(filled):
    chunk = filled["chunks"].get("c1")
    assert (chunk["doc_id"], chunk["title"], chunk["placeholder"]) == ("d1", "T1", 0)
    assert json.loads(chunk["metadata"]) == {"lang": "en"}
    assert filled["queries"].get("q1")["split"] == "dev"
    assert filled["queries"].get("q2")["source"] == "synthetic"
    assert query_segments(filled, "intent") == {"q1": "lookup", "q2": "how"}


def test_reimporting_records_is_an_upsert(filled, tmp_path):
    result = import_chunks(filled, jsonl(tmp_path / "again.jsonl", [{"id": "c1", "text": "new"}]))
    assert (result.rows, result.updated) == (1, 1)
    assert filled["chunks"].get("c1")["text"] == "new"
    assert counts(filled)["chunks"] == 3


def test_qrels_and_run_import(filled, tmp_path):
    result = import_qrels(filled, write(tmp_path / "q.txt", QRELS), annotator="expert")
    assert (result.rows, result.placeholders, result.warnings) == (3, 0, [])
    assert set(r["annotator"] for r in filled.query("SELECT annotator FROM judgments")) == {
        "expert"
    }
    meta = {"embedding_model": "e5", "chunk_size": "512", "team": "search"}
    result = import_run(filled, write(tmp_path / "run.txt", RUN), "dense", meta)
    assert result.rows == 4
    run = get_run(filled, "dense")
    assert (run["embedding_model"], run["chunk_size"], run["metadata"]) == (
        "e5",
        512,
        {"team": "search"},
    )
    frame = run_frame(filled, "dense")
    assert frame.values.tolist()[0] == ["q1", "c1", 9.5, 1]


def test_unknown_ids_become_placeholders_or_are_rejected_when_strict(filled, tmp_path):
    path = write(tmp_path / "q.txt", "q1 0 c1 1\nq9 0 c1 1\nq1 0 c8 2\nq1 0 c9 2\n")
    with pytest.raises(InputError) as error:
        import_qrels(filled, path, strict=True)
    assert error.value.line == 2 and "q9" in error.value.problem
    assert counts(filled)["judgments"] == 0
    result = import_qrels(filled, path)
    assert result.placeholders == 3
    assert "1 unknown query ids and 2 unknown chunk ids" in result.warnings[0]
    assert filled["chunks"].get("c9")["placeholder"] == 1
    import_chunks(filled, jsonl(tmp_path / "c9.jsonl", [{"id": "c9", "text": "found"}]))
    assert filled["chunks"].get("c9")["placeholder"] == 0


def test_run_name_must_be_new_unless_replace(filled, tmp_path):
    path = write(tmp_path / "run.txt", RUN)
    import_run(filled, path, "dense")
    with pytest.raises(InputError, match="already exists"):
        import_run(filled, path, "dense")
    import_run(filled, write(tmp_path / "r2.txt", "q1 Q0 c3 1 1.0 x\n"), "dense", replace=True)
    assert counts(filled)["run_results"] == 1 and counts(filled)["runs"] == 1


def test_run_streams_in_batches(filled, tmp_path):
    lines = "".join(f"q1 Q0 c{i} {i} {100 - i} s\n" for i in range(1, 51))
    result = import_run(filled, write(tmp_path / "run.txt", lines), "big", batch_rows=7)
    assert result.rows == 50 and result.placeholders == 47


def test_qrels_round_trip(filled, make_workspace, tmp_path):
    import_qrels(filled, write(tmp_path / "q.txt", QRELS))
    export_qrels(filled, tmp_path / "out.qrels")
    again = make_workspace()
    import_qrels(again, tmp_path / "out.qrels")
    assert consensus_qrels(again).equals(consensus_qrels(filled))
    assert len(consensus_qrels(again)) == 3


def test_run_round_trip(filled, make_workspace, tmp_path):
    import_run(filled, write(tmp_path / "run.txt", RUN), "dense")
    export_run(filled, "dense", tmp_path / "out.run")
    again = make_workspace()
    import_run(again, tmp_path / "out.run", "dense")
    assert run_frame(again, "dense").equals(run_frame(filled, "dense"))


def table(db, name, columns):
    return db.execute(f"SELECT {columns} FROM {name} ORDER BY 1, 2").fetchall()


def test_beir_round_trip(filled, make_workspace, tmp_path):
    import_qrels(filled, write(tmp_path / "q.txt", QRELS))
    export_beir(filled, tmp_path / "beir")
    again = make_workspace()
    result = import_beir(again, tmp_path / "beir")
    assert result.rows == 3 + 2 + 3
    for name, columns in [
        ("chunks", "id, doc_id, title, text, metadata, placeholder"),
        ("queries", "id, text, source, split, metadata"),
        ("query_attributes", "query_id, name, value"),
    ]:
        assert table(again, name, columns) == table(filled, name, columns), name
    assert consensus_qrels(again).equals(consensus_qrels(filled))
    export_beir(again, tmp_path / "beir2")
    third = make_workspace()
    import_beir(third, tmp_path / "beir2")
    assert table(third, "chunks", "*") == table(again, "chunks", "*")
