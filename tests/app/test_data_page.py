"""Data page: uploads go through the importers; bad files show one line and change nothing."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from labeling.workspace import query_store, store
from tests.markup import shown

RUN = b"q01 Q0 leave-01 1 12.5 mine\nq01 Q0 leave-02 2 9.0 mine\nq02 Q0 leave-02 1 7.25 mine\n"
QRELS = b"q01 0 leave-02 2\nq02 0 leave-03 1\n"
BAD_RUN = b"q01 Q0 leave-01 1 12.5 mine\nq01 Q0 leave-02 2 9.0 mine\nq02 Q0 leave-02 1 high mine\n"


def table_counts(at: AppTest) -> dict[str, int]:
    frame = at.dataframe[0].value
    return dict(zip(frame["table"], frame["rows"], strict=True))


def test_run_upload_is_imported_and_counted(workspace: Path, open_app) -> None:
    at = open_app("data")
    before = table_counts(at)

    at.file_uploader(key="upload_run_0").set_value(("mine.trec", RUN, "text/plain"))
    at.text_input(key="run_name").input("mine")
    at.text_input(key="run_notes").input("three rows")
    at.button(key="import_run").click().run()

    assert not at.exception
    assert not at.error
    assert "mine.trec" in shown(at.success[0].value) and "3" in at.success[0].value
    after = table_counts(at)
    assert after["runs"] == before["runs"] + 1
    assert after["run_results"] == before["run_results"] + 3
    assert at.file_uploader(key="upload_run_1").value is None  # emptied after the import
    assert "mine" in [b.label for b in at.get("download_button")]


def test_qrels_upload_adds_judgments_by_the_annotator(workspace: Path, open_app) -> None:
    at = open_app("data")
    before = table_counts(at)

    at.file_uploader(key="upload_qrels_0").set_value(("extra.qrels", QRELS, "text/plain"))
    at.text_input(key="qrels_annotator").input("dana")
    at.button(key="import_qrels").click().run()

    assert not at.exception and not at.error
    assert "+2 judgments" in at.success[0].value
    assert table_counts(at)["judgments"] == before["judgments"] + 2
    assert "dana" in query_store.annotators(store.open_workspace(workspace))


def test_qrels_jsonl_with_evidence_is_imported_and_a_bad_span_names_its_line(
        workspace: Path, open_app) -> None:
    """remote-work-01 covers characters 63-443 of its document."""
    good = (b'{"query_id": "q01", "doc_id": "remote-work-01", "relevance": 2, '
            b'"evidence": [{"start": 100, "end": 180}]}\n')
    bad = good + (b'{"query_id": "q02", "doc_id": "remote-work-01", "relevance": 1, '
                  b'"evidence": [{"start": 400, "end": 460}]}\n')
    at = open_app("data")
    before = table_counts(at)
    at.file_uploader(key="upload_qrels_0").set_value(("spans.jsonl", bad, "application/json"))
    at.button(key="import_qrels").click().run()
    assert not at.exception and not at.success
    message = shown(at.error[0].value)
    assert "spans.jsonl, line 2" in message and "outside chunk 'remote-work-01'" in message
    assert table_counts(at) == before

    at.file_uploader(key="upload_qrels_0").set_value(("spans.jsonl", good, "application/json"))
    at.button(key="import_qrels").click().run()
    assert not at.exception and not at.error
    db = store.open_workspace(workspace)
    assert db.conn.execute(
        "SELECT j.query_id, j.chunk_id, e.start, e.\"end\" FROM judgment_evidence e"
        " JOIN judgments j ON j.id = e.judgment_id").fetchall() == [
        ("q01", "remote-work-01", 100, 180)]
    db.close()


def test_bad_run_shows_the_line_and_changes_nothing(workspace: Path, open_app) -> None:
    at = open_app("data")
    before = table_counts(at)

    at.file_uploader(key="upload_run_0").set_value(("bad.trec", BAD_RUN, "text/plain"))
    at.text_input(key="run_name").input("bad")
    at.button(key="import_run").click().run()

    assert not at.exception
    message = shown(at.error[0].value)
    assert "bad.trec" in message and "line 3" in message
    assert "Traceback" not in message and "/tmp" not in message
    assert table_counts(at) == before
    assert not at.success
    kept = at.file_uploader(key="upload_run_0").value  # the file stays for a retry
    assert kept is not None and kept.name == "bad.trec" and kept.getvalue() == BAD_RUN


def test_import_without_a_file_says_so(workspace: Path, open_app) -> None:
    at = open_app("data")
    at.button(key="import_chunks").click().run()
    assert "Choose a file" in at.error[0].value
