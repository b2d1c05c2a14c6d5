"""Origins in use: imported labels are attributed to their file, never to a person; consensus is
people's (machine labels out unless asked for); agreement is between people, and any annotator
can be the reference each person is compared with."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from labeling.errors import InputError
from labeling.files import importers, uploads
from labeling.judging import agreement, consensus
from labeling.workspace import accounts, judgments, roles

CHUNKS = [{"id": f"c{i}", "text": f"chunk {i}"} for i in range(1, 7)]
QUERIES = [{"id": "q1", "text": "one"}, {"id": "q2", "text": "two"}]
PAIRS = [("q1", "c1"), ("q1", "c2"), ("q1", "c3"), ("q2", "c4"), ("q2", "c5"), ("q2", "c6")]


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=CHUNKS, queries=QUERIES)


def _judge(db, annotator, grades, origin="person", source=None):
    for (query_id, chunk_id), grade in zip(PAIRS, grades, strict=False):
        judgments.add_judgment(db, query_id, chunk_id, grade, annotator, origin=origin,
                               origin_source=source)


def _origin_rows(db):
    return db.conn.execute(
        "SELECT DISTINCT annotator, origin, origin_source FROM judgments ORDER BY 1").fetchall()


def test_an_uploaded_qrels_file_is_recorded_under_its_name(db):
    _judge(db, "ana", [1])
    data = b"q1 0 c1 3\nq2 0 c4 2\n"
    uploads.import_bytes(db, "qrels", "team labels.qrels", data)
    uploads.import_bytes(db, "qrels", "vendor.tsv", b"query_id\tdoc_id\trelevance\nq1\tc2\t1\n",
                         annotator="Vendor A")
    assert _origin_rows(db) == [("Vendor A", "import", "vendor.tsv"),
                                ("ana", "person", None),
                                ("team labels.qrels", "import", "team labels.qrels")]


def test_imports_never_go_under_a_person_name(db, tmp_path: Path, fast_hashes):
    _judge(db, "ana", [1])
    with roles.acting_as(None):
        accounts.add_user(db, "bob", "annotator", "bob-password-1")
    path = tmp_path / "labels.qrels"
    path.write_text("q1 0 c1 3\n")
    for name in ("ana", "bob"):
        with pytest.raises(InputError, match="person who judges"):
            importers.import_qrels(db, path, annotator=name)
    assert db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 1
    importers.import_qrels(db, path, annotator="ana", origin="person")  # ana's own file
    with pytest.raises(InputError, match="name of the person"):
        importers.import_qrels(db, path, origin="person")


def test_consensus_leaves_machine_labels_out_unless_asked(db):
    _judge(db, "ana", [1, 1])
    _judge(db, "gpt-judge", [3, 3, 3], origin="machine", source="model x, prompt 2")
    _judge(db, "labels.qrels", [0, 0, 0, 0], origin="import", source="labels.qrels")
    people = consensus.consensus_qrels(db).set_index(["query_id", "doc_id"])["relevance"]
    assert people.to_dict() == {("q1", "c1"): 1, ("q1", "c2"): 1, ("q1", "c3"): 0,
                                ("q2", "c4"): 0}  # ana and the import: mean 0.5 rounds up
    every = consensus.consensus_qrels(db, machine=True).set_index(["query_id", "doc_id"])
    assert every.loc[("q1", "c3"), "relevance"] == 2  # 3 and 0: the mean rounded half up


def test_agreement_is_between_people_and_an_import_can_be_the_reference(db):
    ana, bob, imported = [0, 1, 2, 3, 1, 0], [0, 1, 3, 3, 2, 0], [0, 2, 2, 3, 1, 1]
    _judge(db, "ana", ana)
    _judge(db, "bob", bob)
    _judge(db, "gold.qrels", imported, origin="import", source="gold.qrels")
    _judge(db, "gpt-judge", [3] * 6, origin="machine", source="m")
    assert set(agreement.votes(db)["annotator"]) == {"ana", "bob"}
    kappa = agreement.pairwise_kappa(agreement.votes(db), [0, 1, 2, 3])
    assert kappa[["annotator_a", "annotator_b"]].values.tolist() == [["ana", "bob"]]
    reference = agreement.reference_agreement(db, "gold.qrels", [0, 1, 2, 3], "quadratic")
    assert reference["annotator"].tolist() == ["ana", "bob"]
    for name, grades in (("ana", ana), ("bob", bob)):
        row = reference.set_index("annotator").loc[name]
        assert row["pairs"] == 6
        assert row["kappa"] == pytest.approx(cohen_kappa_score(
            grades, imported, labels=[0, 1, 2, 3], weights="quadratic"), abs=1e-12)
    assert agreement.summary(db).annotators == ["ana", "bob"]
    table = agreement.annotators(db).set_index("annotator")
    assert table.loc["gold.qrels", "origin"] == "import"
    assert table.loc["gold.qrels", "sources"] == "gold.qrels"
    assert table.index.tolist()[:2] == ["ana", "bob"]  # people first


def test_rows_of_unknown_origin_count_as_people_unless_left_out(db):
    _judge(db, "ana", [1, 2])
    _judge(db, "old", [1, 3], origin="unknown")
    assert set(agreement.votes(db)["annotator"]) == {"ana", "old"}
    assert set(agreement.votes(db, unknown=False)["annotator"]) == {"ana"}
    assert len(agreement.disagreements(db)) == 1
    assert agreement.disagreements(db, unknown=False).empty


def test_the_judgments_export_and_the_command_line_keep_origins(db, tmp_path: Path):
    from labeling.commands import cli
    from labeling.files import exporters

    db_path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    qrels = tmp_path / "gold.qrels"
    qrels.write_text("q1 0 c1 2\n")
    assert cli.main(["import", db_path, "qrels", str(qrels)]) == 0
    assert cli.main(["import", db_path, "qrels", str(qrels), "--origin", "person",
                     "--annotator", "ana"]) == 0
    assert _origin_rows(db) == [("ana", "person", "gold.qrels"),
                                ("gold.qrels", "import", "gold.qrels")]
    out = tmp_path / "judgments.csv"
    exporters.export_judgments(db, out)
    header, *rows = out.read_text().splitlines()
    assert header.endswith(",origin,origin_source,evidence")  # evidence: spans, JSON
    assert rows[0].endswith(",import,gold.qrels,")  # no evidence spans
