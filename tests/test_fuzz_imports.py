"""Importers fed damaged files: each ends in ``InputError`` with a message or in a correct
import, never another exception and never a partial write.

Files are random bytes, or plausible lines of the importer's formats damaged the ways real
files are: truncated lines, huge fields, NUL bytes, a BOM, CRLF line ends, Latin-1 bytes among
UTF-8, quotes left open. A correct import is checked by counting what it added.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeling.errors import InputError
from labeling.files import importers as imports
from labeling.files import uploads
from labeling.workspace import contents, store

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

# kind -> format -> (suffix, header line or None, plausible data lines)
GOOD: dict[str, dict[str, tuple[str, str | None, list[str]]]] = {
    "qrels": {
        "trec": (".txt", None, ["q1 0 c1 1", "q1\t0\tc2\t2", "q2 0 c1 0", "q3 0 new-c 3"]),
        "csv": (".csv", "query_id,doc_id,relevance", ["q1,c3,1", "q2,c2,0", "q9,c1,2"]),
        "jsonl": (".jsonl", None, ['{"query_id": "q1", "doc_id": "c1", "relevance": 1}',
                                   '{"qid": "q2", "docid": "c9", "grade": 2}']),
    },
    "run": {
        "trec": (".trec", None, ["q1 Q0 c1 1 2.5 bm25", "q1 Q0 c2 2 1.5 bm25",
                                 "q2\tQ0\tc1\t1\t0.3\tx", "q7 Q0 c7 1 9 x"]),
        "csv": (".csv", "query_id,doc_id,score", ["q1,c3,0.5", "q2,c2,1", "q3,c1,-2"]),
        "jsonl": (".jsonl", None, ['{"query_id": "q2", "doc_id": "c2", "score": 1}',
                                   '{"query_id": "q3", "doc_id": "c3", "score": 0.1}']),
    },
    "chunks": {
        "jsonl": (".jsonl", None, ['{"id": "c9", "text": "a chunk", "title": "T"}',
                                   '{"_id": "c8", "text": "x"}',
                                   '{"id": "c1", "text": "updated", "doc_id": "d"}']),
        "csv": (".csv", "id,text,title", ['c7,"some, text",t', "c6,plain,", "c1,again,T"]),
    },
    "queries": {
        "jsonl": (".jsonl", None, ['{"id": "q9", "text": "a query", "team": "x"}',
                                   '{"_id": "q8", "text": "y"}',
                                   '{"id": "q1", "text": "again", "split": "dev"}']),
        "csv": (".csv", "id,text,source", ["q7,why,real", "q6,how,synthetic", "q1,what,"]),
    },
}
SUFFIXES = ["", ".txt", ".tsv", ".csv", ".jsonl", ".json", ".trec", ".qrels", ".parquet"]
DAMAGE = ["truncate", "nul", "huge", "quote", "unicode", "tabs", "latin1"]


def _damage(line: str, how: str, at: int) -> str:
    at = at % (len(line) + 1)
    return {
        "truncate": line[:at],
        "nul": line[:at] + "\x00" + line[at:],
        "huge": line[:at] + "x" * 100_000 + line[at:],
        "quote": line[:at] + '"' + line[at:],
        "unicode": line[:at] + "\u00e9\u2028\U0001f600" + line[at:],
        "tabs": line.replace(" ", "\t"),
        "latin1": line[:at] + "\udce9" + line[at:],  # a lone 0xE9 byte once encoded
    }[how]


@st.composite
def damaged_file(draw, kind: str) -> tuple[str, bytes]:
    """(file suffix, file bytes): random bytes (1 in 6) or lines of one format, some damaged."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(SUFFIXES)), draw(st.binary(max_size=3_000))
    fmt = draw(st.sampled_from(sorted(GOOD[kind])))
    suffix, header, good = GOOD[kind][fmt]
    if draw(st.integers(0, 5)) == 0:
        suffix = draw(st.sampled_from(SUFFIXES))  # a misleading file name
    lines = draw(st.lists(st.sampled_from(good), min_size=1, max_size=10, unique=True))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2]))):  # most files: no damage
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = _damage(lines[i], draw(st.sampled_from(DAMAGE)), draw(st.integers(0, 80)))
    if header is not None:
        lines.insert(0, header)
    if draw(st.integers(0, 5)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), "")  # a blank line
    text = draw(st.sampled_from(["\n", "\n", "\r\n"])).join(lines)
    if draw(st.booleans()):
        text += "\n"
    data = text.encode("utf-8", "surrogateescape")
    if draw(st.integers(0, 3)) == 0:
        data = b"\xef\xbb\xbf" + data  # BOM
    if draw(st.integers(0, 8)) == 0 and data:
        data = data[: draw(st.integers(0, len(data)))]  # the file itself cut short
    return suffix, data


@pytest.fixture(scope="module")
def base(build_workspace) -> Path:
    """A small workspace: chunks c1..c3, queries q1..q3, one run; each example imports into a
    copy of it."""
    return build_workspace.path(
        chunks=[{"id": f"c{i}", "text": f"chunk {i}"} for i in range(1, 4)],
        queries=[{"id": f"q{i}", "text": f"query {i}"} for i in range(1, 4)],
        runs={"existing": [("q1", "c1", 3, 1), ("q1", "c2", 2, 2)]},
    )


def fingerprint(db) -> str:
    digest = hashlib.sha256()
    for line in db.conn.iterdump():
        digest.update(line.encode())
    return digest.hexdigest()


def _import(kind: str, db, path: Path, via_bytes: bool):
    if via_bytes:  # the Data page's path: uploaded bytes with the upload's name
        return uploads.import_bytes(
            db, kind, path.name, path.read_bytes(), annotator="fuzz", run_name="fuzz-run"
        )
    if kind == "qrels":
        return imports.import_qrels(db, path, annotator="fuzz")
    if kind == "run":
        return imports.import_run(db, path, "fuzz-run")
    return {"chunks": imports.import_chunks, "queries": imports.import_queries}[kind](db, path)


def _check(kind: str, base: Path, suffix: str, data: bytes, via_bytes: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "w.db"
        shutil.copyfile(base, db_path)
        db = store.open_workspace(db_path)
        before_counts, before = contents.counts(db), fingerprint(db)
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            result = _import(kind, db, path, via_bytes)
        except InputError as error:
            assert str(error).strip() and error.problem.strip()
            assert fingerprint(db) == before, "a failed import changed the workspace"
        else:
            after = contents.counts(db)
            added = {t: after[t] - before_counts[t] for t in after}
            if kind == "qrels":
                assert added["judgments"] == result.rows > 0
            elif kind == "run":
                assert added["run_results"] == result.rows > 0 and added["runs"] == 1
            else:
                assert added[kind] == result.rows - result.updated
                assert result.rows > 0
            placeholders = added["queries"] + added["chunks"] if kind in ("qrels", "run") else 0
            assert placeholders == result.placeholders
        assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()


@SETTINGS
@given(file=damaged_file("qrels"))
def test_fuzz_qrels(base, file):
    _check("qrels", base, *file)


@SETTINGS
@given(file=damaged_file("run"))
def test_fuzz_run(base, file):
    _check("run", base, *file)


@SETTINGS
@given(file=damaged_file("chunks"))
def test_fuzz_chunks(base, file):
    _check("chunks", base, *file)


@SETTINGS
@given(file=damaged_file("queries"))
def test_fuzz_queries(base, file):
    _check("queries", base, *file)


@SETTINGS
@given(kind=st.sampled_from(["qrels", "run", "chunks", "queries"]), data=st.data())
def test_fuzz_uploads(base, kind, data):
    _check(kind, base, *data.draw(damaged_file(kind)), via_bytes=True)


def test_an_upload_over_the_limit_is_refused_with_a_clear_message(base, monkeypatch, tmp_path):
    monkeypatch.setattr(uploads, "MAX_UPLOAD_MB", 1)
    db_path = tmp_path / "w.db"
    shutil.copyfile(base, db_path)
    db = store.open_workspace(db_path)
    before = fingerprint(db)
    data = b"q1 0 c1 1\n" * 110_000  # 1.05 MiB
    with pytest.raises(InputError, match=r"big\.txt: the file is 1\.0 MB, over the 1 MB upload"):
        uploads.import_bytes(db, "qrels", "big.txt", data, annotator="x")
    assert fingerprint(db) == before


BEIR_QRELS = ["query-id\tcorpus-id\tscore", "q1\tc1\t1", "q9\tc9\t2", "q8\tc8\t0"]


@SETTINGS
@given(corpus=damaged_file("chunks"), queries=damaged_file("queries"),
       qrels=st.lists(st.sampled_from(BEIR_QRELS[1:]), max_size=3, unique=True),
       cut=st.integers(0, 60))
def test_fuzz_beir(base, corpus, queries, qrels, cut):
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "w.db"
        shutil.copyfile(base, db_path)
        db = store.open_workspace(db_path)
        before_counts, before = contents.counts(db), fingerprint(db)
        folder = Path(tmp) / "beir"
        (folder / "qrels").mkdir(parents=True)
        (folder / "corpus.jsonl").write_bytes(corpus[1])
        (folder / "queries.jsonl").write_bytes(queries[1])
        text = "\n".join([BEIR_QRELS[0], *qrels]) + "\n"
        (folder / "qrels" / "test.tsv").write_text(text[: len(text) - cut % 4])
        try:
            imports.import_beir(db, folder)
        except InputError as error:
            assert error.problem.strip()
            assert fingerprint(db) == before
        else:
            after = contents.counts(db)
            assert after["judgments"] - before_counts["judgments"] == len(qrels)
        assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()
