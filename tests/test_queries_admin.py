"""Queries administration and upload imports behind the Data and Queries pages."""

from __future__ import annotations

import io
import zipfile

import pytest

from labeling.errors import InputError
from labeling.files import uploads
from labeling.workspace import contents, query_store


@pytest.fixture
def db(make_workspace):
    return make_workspace(
        chunks=[{"id": "c1", "text": "alpha"}, {"id": "c2", "text": "beta"}],
        queries=[
            {"id": "q1", "text": "Alpha?", "topic": "a"},
            {"id": "q2", "text": "beta", "topic": "b"},
            {"id": "q3", "text": "gamma", "topic": "a"},
        ],
    )


def test_add_query_generates_ids_and_checks_input(db) -> None:
    assert query_store.add_query(db, " new one ", attributes={"topic": "c", "team": ""}) == "u001"
    assert query_store.add_query(db, "second", source="synthetic", split="dev") == "u002"
    row = query_store.queries_table(db, "NEW").to_dict("records")
    assert row == [{"id": "u001", "text": "new one", "narrative": None, "source": "real",
                    "split": None, "placeholder": False, "topic": "c"}]
    with pytest.raises(InputError, match="empty"):
        query_store.add_query(db, "  ")
    with pytest.raises(InputError, match="already taken"):
        query_store.add_query(db, "x", query_id="q1")
    with pytest.raises(InputError, match="split must be"):
        query_store.add_query(db, "x", split="train")
    with pytest.raises(InputError, match="attribute name"):
        query_store.add_query(db, "x", attributes={"split": "dev"})


def test_search_is_a_case_insensitive_substring(db) -> None:
    assert query_store.queries_table(db, "ALPHA")["id"].tolist() == ["q1"]
    assert query_store.queries_table(db, "q")["id"].tolist() == ["q1", "q2", "q3"]
    assert query_store.queries_table(db, "%")["id"].tolist() == []


def test_update_queries_sets_and_removes_attributes(db) -> None:
    table = query_store.queries_table(db)
    table.loc[table["id"] == "q1", "topic"] = "z"
    table.loc[table["id"] == "q2", "topic"] = ""
    table.loc[table["id"] == "q3", "split"] = "test"
    table["lang"] = ["en", None, None]
    assert query_store.update_queries(db, table) == 3
    after = query_store.queries_table(db).set_index("id")
    assert after.loc["q1", "topic"] == "z" and after.loc["q1", "lang"] == "en"
    assert after.loc["q2", "topic"] is None
    assert after.loc["q3", "split"] == "test"
    assert query_store.update_queries(db, query_store.queries_table(db)) == 0

    bad = query_store.queries_table(db)
    bad.loc[0, "source"] = "made-up"
    with pytest.raises(InputError, match="source must be"):
        query_store.update_queries(db, bad)
    assert query_store.queries_table(db).equals(after.reset_index())  # nothing written


def test_split_is_seeded_and_stratified() -> None:
    ids = [f"q{i}" for i in range(20)]
    first = query_store.split_assignment(ids, 0.3, seed=5)
    assert first == query_store.split_assignment(list(reversed(ids)), 0.3, seed=5)
    assert sum(v == "dev" for v in first.values()) == 6
    strata = {q: ("a" if i < 10 else "b") for i, q in enumerate(ids)}
    split = query_store.split_assignment(ids, 0.5, seed=1, strata=strata)
    assert sum(split[q] == "dev" for q in ids[:10]) == 5
    with pytest.raises(InputError):
        query_store.split_assignment(ids, 1.5, seed=1)


def test_assign_split_only_unassigned(db) -> None:
    query_store.add_query(db, "kept", split="test")
    result = query_store.assign_split(db, 1.0, seed=3, only_unassigned=True)
    assert (result.dev, result.test) == (3, 0)
    assert query_store.split_counts(db) == {"dev": 3, "test": 1, "none": 0}


def test_import_bytes_errors_name_the_upload(db) -> None:
    with pytest.raises(InputError) as caught:
        uploads.import_bytes(db, "run", "my run.trec", b"q1 Q0 c1 1 1.0 t\nq1 Q0 c2 2 x t\n",
                        run_name="r")
    assert str(caught.value).startswith("my run.trec, line 2")
    assert contents.run_names(db) == []
    with pytest.raises(InputError, match="name for the run"):
        uploads.import_bytes(db, "run", "r.trec", b"q1 Q0 c1 1 1.0 t\n", run_name=" ")
    result = uploads.import_bytes(db, "run", "r.trec", b"q1 Q0 c1 1 1.0 t\n", run_name="r",
                             meta={"notes": "n", "chunk_size": ""})
    assert result.rows == 1 and contents.get_run(db, "r")["notes"] == "n"


def test_exports_as_bytes(db) -> None:
    uploads.import_bytes(db, "qrels", "l.qrels", b"q1 0 c1 2\n", annotator="ann")
    uploads.import_bytes(db, "run", "r.trec", b"q1 Q0 c1 1 1.0 t\n", run_name="r")
    assert uploads.qrels_bytes(db).split() == [b"q1", b"0", b"c1", b"2"]
    assert b"c1" in uploads.run_bytes(db, "r")
    assert uploads.judgments_csv_bytes(db).startswith(b"id,query_id")
    names = zipfile.ZipFile(io.BytesIO(uploads.beir_zip_bytes(db))).namelist()
    assert "beir/corpus.jsonl" in names and "beir/queries.jsonl" in names
    assert query_store.annotators(db) == ["ann"]
    overview = query_store.runs_overview(db)[["name", "queries", "results"]]
    assert overview.values.tolist() == [["r", 1, 1]]
