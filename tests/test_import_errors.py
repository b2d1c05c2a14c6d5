"""Every malformed file names its line, and the import leaves the workspace untouched."""

from __future__ import annotations

import pytest

from labeling.errors import InputError
from labeling.files.importers import import_chunks, import_qrels, import_queries, import_run
from labeling.workspace.contents import counts

GOOD_RUN = "q1 Q0 c1 1 2.0 s\nq1 Q0 c2 2 1.0 s\n"
GOOD_QRELS = "q1 0 c1 1\nq1 0 c2 0\n"


@pytest.fixture
def db(make_workspace, tmp_path):
    db = make_workspace()
    # something already there, so "unchanged" is not just "empty"
    import_run(db, write(tmp_path / "seed.run", GOOD_RUN), "seed")
    import_qrels(db, write(tmp_path / "seed.qrels", GOOD_QRELS))
    return db


def write(path, data: str | bytes):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def check(db, call, line, match):
    before = counts(db)
    with pytest.raises(InputError) as error:
        call()
    assert error.value.line == line, str(error.value)
    assert error.value.source, str(error.value)
    assert match.lower() in str(error.value).lower() or match == "", str(error.value)
    assert counts(db) == before
    return error.value


RUN_CASES = {
    "wrong column count": (GOOD_RUN + "q2 Q0 c3 1\n", 3, ""),
    "non-numeric score": (GOOD_RUN + "q2 Q0 c3 1 high s\n", 3, ""),
    "duplicate pair": (GOOD_RUN + "q2 Q0 c1 1 3.0 s\nq1 Q0 c1 3 0.5 s\n", 4, "twice"),
    "invalid utf-8": (GOOD_RUN.encode() + b"q2 Q0 c\xff 1 1.0 s\n", 3, ""),
    "nul byte": (GOOD_RUN.encode() + b"q2 Q0 c\x00 1 1.0 s\n", 3, ""),
}

QRELS_CASES = {
    "wrong column count": (GOOD_QRELS + "q2 0 c3\n", 3, ""),
    "non-numeric grade": (GOOD_QRELS + "q2 0 c3 yes\n", 3, ""),
    "grade outside scale": (GOOD_QRELS + "q2 0 c3 7\n", 3, "scale"),
    "invalid utf-8": (GOOD_QRELS.encode() + b"q\xe92 0 c3 1\n", 3, ""),
    "nul byte": (GOOD_QRELS.encode() + b"q2 0 c3\x00 1\n", 3, ""),
}


@pytest.mark.parametrize("case", RUN_CASES)
def test_malformed_run(db, tmp_path, case):
    data, line, match = RUN_CASES[case]
    path = write(tmp_path / "bad.run", data)
    check(db, lambda: import_run(db, path, "new"), line, match)


@pytest.mark.parametrize("case", QRELS_CASES)
def test_malformed_qrels(db, tmp_path, case):
    data, line, match = QRELS_CASES[case]
    path = write(tmp_path / "bad.qrels", data)
    check(db, lambda: import_qrels(db, path), line, match)


@pytest.mark.parametrize("data", ["", "\n\n"])
def test_empty_files(db, tmp_path, data):
    for name, call in [
        ("e.run", lambda p: import_run(db, p, "new")),
        ("e.qrels", lambda p: import_qrels(db, p)),
        ("e.jsonl", lambda p: import_chunks(db, p)),
    ]:
        path = write(tmp_path / name, data)
        before = counts(db)
        with pytest.raises(InputError, match="(?i)empty|no "):
            call(path)
        assert counts(db) == before


def test_duplicate_pair_across_batches_names_the_line(db, tmp_path):
    rows = [f"q1 Q0 c{i} {i} {50 - i} s\n" for i in range(1, 11)] + ["q1 Q0 c2 11 0.1 s\n"]
    path = write(tmp_path / "dup.run", "".join(rows))
    error = check(db, lambda: import_run(db, path, "new", batch_rows=3), 11, "twice")
    assert "'c2'" in error.problem


def test_error_in_a_late_batch_rolls_back_earlier_batches(db, tmp_path):
    rows = [f"q{i} Q0 c{i} 1 1.0 s\n" for i in range(1, 21)] + ["q1 Q0 c1 1 x s\n"]
    path = write(tmp_path / "late.run", "".join(rows))
    check(db, lambda: import_run(db, path, "new", batch_rows=4), 21, "")
    assert "new" not in [r["name"] for r in db.query("SELECT name FROM runs")]


def test_strict_unknown_chunk_names_line_in_run(db, tmp_path):
    path = write(tmp_path / "s.run", GOOD_RUN + "q1 Q0 zzz 3 0.5 s\n")
    error = check(db, lambda: import_run(db, path, "new", strict=True), 3, "zzz")
    assert "unknown chunk id" in error.problem


def test_duplicate_record_ids_name_the_line(db, tmp_path):
    path = write(
        tmp_path / "c.jsonl",
        '{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "a", "text": "z"}\n',
    )
    check(db, lambda: import_chunks(db, path), 3, "twice")
    path = write(
        tmp_path / "q.jsonl",
        '{"id": "a", "text": "x"}\n{"id": "b", "text": "y", "split": "train"}\n',
    )
    check(db, lambda: import_queries(db, path), 2, "split")


def test_missing_file_is_an_input_error(db, tmp_path):
    before = counts(db)
    with pytest.raises(InputError):
        import_qrels(db, tmp_path / "missing.qrels")
    assert counts(db) == before


def test_lines_count_blank_lines_and_csv_headers(db, tmp_path):
    path = write(tmp_path / "r.csv", "query_id,doc_id,score\nq1,c1,1.0\n\nq1,c2,0.5\nq1,c1,2.0\n")
    check(db, lambda: import_run(db, path, "new"), 5, "twice")
    path = write(tmp_path / "r.trec", "\n" + GOOD_RUN + "\n\nq1 Q0 c9 3 0.1 s\n")
    check(db, lambda: import_run(db, path, "new", strict=True), 6, "c9")
    path = write(tmp_path / "q.tsv", "query_id\tdoc_id\trelevance\n\nq1\tc1\t1\nq1\tc2\t5\n")
    check(db, lambda: import_qrels(db, path), 4, "scale")


# --- the Data page's path: uploaded bytes --------------------------------------------------------

UPLOADS = {
    "a quote left open": (
        "chunks", "chunks.csv", "id,text\n" + "".join(f"c{i},t{i}\n" for i in range(9)) +
        'c9,"open\nc10,swallowed\n', 11, "never closed",
    ),
    "a boolean grade": (
        "qrels", "labels.jsonl", '{"query_id": "q1", "doc_id": "c1", "relevance": false}\n', 1,
        "the boolean false",
    ),
    "an id with a space": ("qrels", "labels.csv", "qid,docid,grade\nq1,c 1,1\n", 2, "a space"),
    "metadata as a string": (
        "queries", "queries.jsonl", '{"id": "q9", "text": "x", "metadata": "a"}\n', 1,
        "metadata must be a JSON object",
    ),
    "deep JSON": ("chunks", "c.jsonl", '{"id": "c9", "text": ' + "[" * 40_000 + "}\n", 1, "deep"),
    "a damaged first TREC line": ("run", "r.txt", "q1 Q0 c1 1 high s\n", 1, "score is not"),
}


@pytest.mark.parametrize("case", UPLOADS)
def test_uploads_fail_with_an_input_error_naming_the_upload(db, case):
    """The Data page shows an InputError's sentence; anything else is an unexpected error."""
    from labeling.files.uploads import import_bytes

    kind, name, content, line, match = UPLOADS[case]
    before = counts(db)
    with pytest.raises(InputError) as error:
        import_bytes(db, kind, name, content.encode(), annotator="eva", run_name="r2")
    assert error.value.source == name and error.value.line == line, str(error.value)
    assert match in error.value.problem
    assert counts(db) == before


def test_an_unexportable_run_name_is_refused(db, tmp_path):
    path = write(tmp_path / "r.run", GOOD_RUN)
    for name in ("two words", "tab\tname", "line\nbreak", ""):
        before = counts(db)
        with pytest.raises(InputError, match="run name"):
            import_run(db, path, name)
        assert counts(db) == before
