"""Bad input and broken workspaces on the command line: exit status 2, one sentence on stderr
naming the file (and the line where one applies), no traceback, and the workspace unchanged.

Each case runs ``labeling.commands.cli.main`` in this process (a traceback would escape it as an
exception and fail the test); ``test_the_installed_command_prints_one_line`` runs a few through
a real ``python -m labeling.commands.cli`` process as well. The read-only and full-disk cases mount
a
small tmpfs, which needs root and a kernel that allows it: elsewhere they skip, and the
full-disk case also runs portably with SQLite's ``max_page_count``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from labeling.commands import cli
from labeling.errors import ScorecardError
from labeling.workspace import store
from labeling.workspace.contents import counts
from labeling.workspace.store import MIGRATIONS, open_workspace

CHUNKS = [{"id": f"c{i}", "text": f"chunk number {i} about topic {i % 7}"} for i in range(1, 6)]
QUERIES = [{"id": "q1", "text": "topic three"}, {"id": "q2", "text": "topic five"}]
SEED_RUN = [("q1", "c1", 2.0, 1), ("q1", "c2", 1.0, 2), ("q2", "c3", 0.5, 1)]
RUN = "".join(f"{q} Q0 {c} {rank} {score} s\n" for q, c, score, rank in SEED_RUN)
SEED_LABELS = [("q1", "c1", 2, "import"), ("q2", "c3", 1, "import")]  # as `import qrels` stores


def call(argv: list) -> int:
    return cli.main([str(a) for a in argv])


def fails(argv: list, capsys, *names: object) -> str:
    """Run ``argv``; assert exit 2 and one ``scorecard: ...`` line naming each of ``names``."""
    code = call(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("scorecard: "), err
    for name in names:
        assert str(name) in lines[0], lines[0]
    return lines[0]


def fingerprint(path: Path) -> tuple[dict, str]:
    """Row counts and a digest of every row of the workspace (read on a connection of its own)."""
    db = open_workspace(path, create=False)
    try:
        digest = hashlib.sha256("\n".join(db.conn.iterdump()).encode()).hexdigest()
        return counts(db), digest
    finally:
        db.close()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def jsonl(path: Path, records: list) -> Path:
    return write(path, "".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def ws(make_workspace, tmp_path: Path) -> Path:
    """A workspace holding chunks, queries, a run and labels, so "unchanged" is not "empty"."""
    return make_workspace.path(at=tmp_path / "w.db", chunks=CHUNKS, queries=QUERIES,
                               runs={"seed": SEED_RUN}, judgments=SEED_LABELS)


def refused(argv: list, ws: Path, capsys, *names: object) -> str:
    """``fails`` and the workspace holds exactly what it held before."""
    before = fingerprint(ws)
    line = fails(argv, capsys, *names)
    assert fingerprint(ws) == before
    return line


# --- a quote left open ------------------------------------------------------------------------


def chunks_csv(rows: int, broken_line: int | None) -> str:
    lines = ["id,text"] + [f'c{i},"chunk {i}, with a comma"' for i in range(2, rows + 2)]
    if broken_line is not None:
        lines[broken_line - 1] = f'c{broken_line},"this quote is never closed'
    return "\n".join(lines) + "\n"


def test_an_unclosed_quote_in_a_1000_row_chunks_file_names_its_line(ws, tmp_path, capsys):
    bad = write(tmp_path / "chunks.csv", chunks_csv(1000, broken_line=637))
    line = refused(["import", ws, "chunks", bad], ws, capsys, f"{bad}, line 637:")
    assert "a quote opened on this line is not closed before line 638" in line
    # The same file with the quote closed imports every row: the quote alone was the problem.
    good = write(tmp_path / "chunks_ok.csv", chunks_csv(1000, broken_line=None))
    assert call(["import", ws, "chunks", good]) == 0
    assert counts(open_workspace(ws))["chunks"] == len(CHUNKS) + 1000 - 4  # c2..c5 updated


@pytest.mark.parametrize(
    ("kind", "name", "content", "line"),
    [
        ("queries", "q.tsv", 'id\ttext\nq7\tfine\nq8\t"open\nq9\tswallowed\n', 3),
        ("qrels", "l.csv", 'query_id,doc_id,relevance\nq1,c1,1\nq1,"c2,1\nq2,c3,0\n', 3),
        ("run", "r.csv", 'query_id,doc_id,score\n"q1,c1,1.0\nq1,c2,0.5\n', 2),
        # Two quotes left open: the second closes the first, with text after it.
        ("chunks", "c.csv", 'id,text\nc8,"open\nc9,x\nc10,"again\nc11,y\n', 2),
    ],
)
def test_an_unclosed_quote_in_any_tabular_import(ws, tmp_path, capsys, kind, name, content, line):
    path = write(tmp_path / name, content)
    extra = ["--run-name", "new"] if kind == "run" else []
    refused(["import", ws, kind, path, *extra], ws, capsys, f"{path}, line {line}:", "quote")


def test_an_unclosed_quote_in_evaluate_files(tmp_path, capsys):
    qrels = write(tmp_path / "l.csv", 'query_id,doc_id,relevance\nq1,c1,1\nq1,"c2,1\nq2,c3,0\n')
    run = write(tmp_path / "r.run", RUN)
    fails(["evaluate", qrels, run, "-m", "P@1"], capsys, f"{qrels}, line 3:", "never closed")


# --- booleans are not grades --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("records", "line", "shown"),
    [
        ([{"query_id": "q1", "doc_id": "c1", "relevance": True}], 1, "true"),
        (
            [
                {"query_id": "q1", "doc_id": "c1", "relevance": 1},
                {"query_id": "q1", "doc_id": "c2", "relevance": False},
            ],
            2,
            "false",
        ),
    ],
)
def test_boolean_grades_are_refused(ws, tmp_path, capsys, records, line, shown):
    path = jsonl(tmp_path / "labels.jsonl", records)
    message = refused(["import", ws, "qrels", path], ws, capsys, f"{path}, line {line}:")
    assert f"boolean {shown}" in message
    fails(["evaluate", path, tmp_path / "seed.run", "-m", "P@1"], capsys, f"line {line}:")


def test_a_boolean_score_is_refused(ws, tmp_path, capsys):
    path = jsonl(tmp_path / "r.jsonl", [{"query_id": "q1", "doc_id": "c1", "score": True}])
    argv = ["import", ws, "run", path, "--run-name", "b"]
    refused(argv, ws, capsys, f"{path}, line 1:", "boolean")


# --- ids and run names that a TREC file could not hold ---------------------------------------


@pytest.mark.parametrize(
    ("kind", "name", "content", "line", "what"),
    [
        ("qrels", "l.csv", "query_id,doc_id,relevance\nq1,c1,1\nq 1,c2,1\n", 3, "a space"),
        ("qrels", "l.txt", "q1 0 c1 1\nq1 0 c\u00a02 1\n", 2, "a non-breaking space"),
        ("run", "r.txt", "q1 Q0 c1 1 2.0 s\nq1 Q0 c\x0b2 2 1.0 s\n", 2, "U+000B"),
        ("run", "r.jsonl", '{"query_id": "q\\t1", "doc_id": "c1", "score": 1}\n', 1, "a tab"),
        ("chunks", "c.jsonl", '{"id": "c1", "text": "x"}\n{"id": "c 2", "text": "y"}\n', 2, "a"),
        ("chunks", "c.csv", 'id,text\n"c\n9",x\n', 2, "a line break"),
        ("chunks", "d.jsonl", '{"id": "c9", "text": "x", "doc_id": "doc 9"}\n', 1, "doc_id"),
        (
            "chunks",
            "m.jsonl",
            '{"_id": "c9", "text": "x", "metadata": {"doc_id": "doc\\t9"}}\n',
            1,
            "doc_id",
        ),
        ("queries", "q.jsonl", '{"id": "q\\u20039", "text": "x"}\n', 1, "U+2003"),
        # look-alike ids: a bidi override, a zero-width space, a zero-width joiner
        ("run", "r.txt", "q1 Q0 c1 1 2.0 s\nq1 Q0 c\u202e2 2 1.0 s\n", 2,
         "the invisible formatting character U+202E"),
        ("qrels", "l.txt", "q1 0 c1 1\nq1 0 c1\u200b 1\n", 2, "U+200B"),
        ("chunks", "z.jsonl", '{"id": "c\\u200d9", "text": "x"}\n', 1, "U+200D"),
    ],
)
def test_ids_with_whitespace_are_refused(ws, tmp_path, capsys, kind, name, content, line, what):
    path = write(tmp_path / name, content)
    extra = ["--run-name", "new"] if kind == "run" else []
    message = refused(["import", ws, kind, path, *extra], ws, capsys, f"{path}, line {line}:")
    assert what in message and "whitespace, control or invisible formatting" in message


@pytest.mark.parametrize("name", ["my run", "tab\there", ""])
def test_run_names_must_be_exportable(ws, tmp_path, capsys, name):
    path = write(tmp_path / "r.run", RUN)
    message = refused(["import", ws, "run", path, "--run-name", name], ws, capsys, path)
    assert "run name" in message


def test_a_baseline_run_name_must_be_exportable(ws, capsys):
    message = refused(["baseline", ws, "--run-name", "bm25 v2"], ws, capsys)
    assert "run name 'bm25 v2' contains a space" in message


# --- deep JSON, metadata of the wrong type -------------------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


def test_json_nested_fifty_thousand_levels_deep(ws, tmp_path, capsys):
    content = f'{{"id": "c1", "text": "x"}}\n{{"id": "c2", "text": {DEEP}}}\n'
    path = write(tmp_path / "c.jsonl", content)
    refused(["import", ws, "chunks", path], ws, capsys, f"{path}, line 2:", "nested too deeply")
    path = write(tmp_path / "l.jsonl", f'{{"query_id": "q1", "doc_id": "c1", "relevance": {DEEP}}}')
    refused(["import", ws, "qrels", path], ws, capsys, f"{path}, line 1:", "nested too deeply")
    path = write(tmp_path / "llama.json", '{"queries": ' + DEEP + "}")
    refused(["generate", ws, "--import-llamaindex", path], ws, capsys, path, "nested too deeply")


@pytest.mark.parametrize(
    ("kind", "metadata", "found"),
    [
        ("queries", "team a", "a string"),
        ("queries", ["a", "b"], "a list"),
        ("chunks", 7, "a number"),
        ("chunks", [{"a": 1}], "a list"),
    ],
)
def test_metadata_must_be_an_object(ws, tmp_path, capsys, kind, metadata, found):
    records = [{"id": "x1", "text": "fine"}, {"id": "x2", "text": "y", "metadata": metadata}]
    path = jsonl(tmp_path / f"{kind}.jsonl", records)
    message = refused(["import", ws, kind, path], ws, capsys, f"{path}, line 2:")
    assert f"metadata must be a JSON object, found {found}" in message


def test_text_must_be_text(ws, tmp_path, capsys):
    path = jsonl(tmp_path / "c.jsonl", [{"id": "x1", "text": ["a", "list"]}])
    refused(["import", ws, "chunks", path], ws, capsys, f"{path}, line 1:", "text must be text")


# --- LlamaIndex and RAGAS files of the wrong shape -------------------------------------------

LLAMA_SHAPES = {
    "a list": ([{"queries": {}}], "found a list"),
    "no relevant_docs": ({"queries": {"a": "Why?"}, "corpus": {}}, "no relevant_docs"),
    "queries as a list": (
        {"queries": ["Why?"], "corpus": {}, "relevant_docs": {}},
        "queries must be an object",
    ),
    "node ids as a string": (
        {"queries": {"a": "Why?"}, "corpus": {"n": "t"}, "relevant_docs": {"a": "n"}},
        "relevant_docs of query 'a' must be a list of node ids, found a string",
    ),
    "a question that is not text": (
        {"queries": {"a": {"q": 1}}, "corpus": {}, "relevant_docs": {}},
        "queries entry 'a' must be text",
    ),
}


@pytest.mark.parametrize("case", LLAMA_SHAPES)
def test_llamaindex_files_of_the_wrong_shape(ws, tmp_path, capsys, case):
    data, expected = LLAMA_SHAPES[case]
    path = write(tmp_path / "qa.json", json.dumps(data))
    message = refused(["generate", ws, "--import-llamaindex", path], ws, capsys, path)
    assert expected in message


RAGAS_SHAPES = {
    "a LlamaIndex file": (
        "t.json",
        json.dumps({"queries": {"a": "Why?"}, "corpus": {}, "relevant_docs": {}}),
        "no entry has a user_input or question field",
    ),
    "pretty-printed object": (
        "t.json",
        json.dumps({"user_input": "Why?", "reference_contexts": ["x"]}, indent=2),
        "found one JSON object over several lines",
    ),
    "a list of strings": ("t.json", json.dumps(["Why?", "How?"]), "must be an object"),
    "contexts as an object": (
        "t.jsonl",
        json.dumps({"user_input": "Why?", "reference_contexts": {"a": "x"}}),
        "reference_contexts must be a list",
    ),
    "a question that is a list": (
        "t.jsonl",
        json.dumps({"user_input": ["Why?"], "reference_contexts": ["x"]}),
        "user_input must be text",
    ),
    "CSV with a quote left open": (
        "t.csv",
        'user_input,reference_contexts\nWhy?,"[\'x\']\nHow?,y\n',
        "line 2: a quote opened",
    ),
}


@pytest.mark.parametrize("case", RAGAS_SHAPES)
def test_ragas_files_of_the_wrong_shape(ws, tmp_path, capsys, case):
    name, content, expected = RAGAS_SHAPES[case]
    path = write(tmp_path / name, content)
    message = refused(["generate", ws, "--import-ragas", path], ws, capsys, path)
    assert expected in message


# --- missing files and folders given as files -----------------------------------------------


@pytest.mark.parametrize("given", ["missing", "folder"])
def test_a_missing_file_or_a_folder(ws, tmp_path, capsys, given):
    target = tmp_path / "nothing.jsonl"
    if given == "folder":
        target.mkdir()
    expected = "no such file" if given == "missing" else "is a folder, not a file"
    for argv in (
        ["import", ws, "chunks", target],
        ["import", ws, "qrels", target],
        ["import", ws, "run", target, "--run-name", "x"],
        ["generate", ws, "--import-ragas", target],
        ["generate", ws, "--import-llamaindex", target],
    ):
        assert expected in refused(argv, ws, capsys, f"{target}: ")
    fails(["evaluate", target, tmp_path / "seed.run", "-m", "P@1"], capsys, target, expected)


def test_an_output_in_a_missing_folder(ws, tmp_path, capsys):
    out = tmp_path / "no-such-folder" / "labels.csv"
    refused(["export", ws, "judgments", out], ws, capsys, out, "No such file or directory")


# --- workspaces that cannot be opened -------------------------------------------------------------


def broken_workspaces(ws: Path, folder: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, what the sentence must say), built from the real workspace ``ws``."""
    filler = sqlite3.connect(ws)  # grow the file so that cutting it loses whole pages
    filler.execute("CREATE TABLE IF NOT EXISTS filler (x)")
    filler.executemany("INSERT INTO filler VALUES (?)", [("x" * 2000,)] * 100)
    filler.commit()
    filler.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    filler.close()
    data = ws.read_bytes()
    cases = {
        "a folder": (folder / "dir.db", "is a folder, not a workspace file"),
        "not SQLite": (write(folder / "text.db", "id,text\nc1,hello\n" * 50), "not an SQLite"),
        "truncated": (write(folder / "cut.db", data[: len(data) // 2]), "truncated"),
        "cut inside its header": (write(folder / "cut50.db", data[:50]), "truncated"),
        "zero bytes": (write(folder / "empty.db", b""), "is empty (0 bytes)"),
        "newer": (folder / "newer.db", f"schema version {len(MIGRATIONS) + 1} is newer"),
        "another program's": (folder / "other.db", "not a scorecard workspace"),
    }
    (folder / "dir.db").mkdir()
    shutil.copyfile(ws, folder / "newer.db")
    for name, sql in (
        ("newer.db", f"PRAGMA user_version = {len(MIGRATIONS) + 1}"),
        ("other.db", "CREATE TABLE notes (body TEXT)"),
    ):
        conn = sqlite3.connect(folder / name)
        conn.execute(sql)
        conn.commit()
        conn.close()  # the last close folds the -wal into the file: the bytes are final
    return cases


@pytest.mark.parametrize(
    "case",
    ["a folder", "not SQLite", "truncated", "cut inside its header", "zero bytes", "newer",
     "another program's"],
)
def test_a_workspace_that_cannot_be_opened(ws, tmp_path, capsys, case):
    folder = tmp_path / "broken"
    folder.mkdir()
    path, expected = broken_workspaces(ws, folder)[case]
    before = None if path.is_dir() else file_digest(path)
    chunks = tmp_path / "chunks.jsonl"
    for argv in (
        ["import", path, "chunks", chunks],
        ["export", path, "qrels", tmp_path / "out.qrels"],
        ["evaluate", "--db", path, "--run", "seed", "-m", "P@1"],
        ["user", "list", path],
        ["report", path, "--run", "seed", "--out", tmp_path / "card.md"],
        ["generate", path, "--sample", "1"],
    ):
        message = fails(argv, capsys, f"{path}: ")
        assert expected in message, message
    if before is not None:
        assert file_digest(path) == before, "a failed open changed the file"
    assert not (tmp_path / "out.qrels").exists()


@pytest.mark.parametrize("case", ["a folder", "not SQLite", "truncated", "newer", "zero bytes"])
def test_open_workspace_raises_a_scorecard_error(ws, tmp_path, case):
    """The app shows a ScorecardError's sentence (and only a ScorecardError's): the library
    itself, not the command line's last-resort handler, must raise one."""
    folder = tmp_path / "broken"
    folder.mkdir()
    path, expected = broken_workspaces(ws, folder)[case]
    with pytest.raises(ScorecardError) as refusal:
        open_workspace(path, create=False)
    assert str(refusal.value).startswith(f"{path}: ") and expected in str(refusal.value)
    if case != "zero bytes":  # creating may turn only an empty file into a workspace
        with pytest.raises(ScorecardError):
            open_workspace(path, create=True)


def test_init_turns_a_zero_byte_file_into_a_workspace(tmp_path, capsys):
    path = write(tmp_path / "empty.db", b"")
    fails(["export", path, "qrels", tmp_path / "o.qrels"], capsys, path, "is empty")
    assert path.stat().st_size == 0
    assert call(["init", path]) == 0
    assert counts(open_workspace(path, create=False))["chunks"] == 0


def test_init_in_a_missing_folder(tmp_path, capsys):
    path = tmp_path / "no-such-folder" / "w.db"
    fails(["init", path], capsys, path, "does not exist")


# --- read-only file system and a full disk ----------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A fresh 2 MB tmpfs (an empty workspace is half a megabyte: 1 MB left too little room for
    its -wal at times); skips unless this process may mount one (root, a permissive kernel)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root on Linux")
    point = tmp_path / "mnt"
    point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(point)], capture_output=True,
        timeout=60,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False, timeout=60)


def test_a_workspace_on_a_read_only_file_system(tmpfs, make_workspace, tmp_path, capsys):
    path = make_workspace.path(at=tmpfs / "w.db")  # closed: an open file keeps the remount busy
    remounted = subprocess.run(
        ["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True, timeout=60
    )
    if remounted.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remounted.stderr.decode().strip()}")
    before = file_digest(path)
    capsys.readouterr()
    for argv in (
        ["import", path, "chunks", jsonl(tmp_path / "c.jsonl", CHUNKS)],
        ["export", path, "qrels", tmp_path / "o.qrels"],
        ["init", path],
    ):
        fails(argv, capsys, f"{path}: ", "read-only file system")
    fails(["init", tmpfs / "new.db"], capsys, tmpfs / "new.db", "read-only file system")
    assert file_digest(path) == before


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores file permissions; the read-only file system test covers root",
)
def test_a_read_only_workspace_file(ws, capsys):
    ws.chmod(0o444)
    try:
        fails(["export", ws, "qrels", ws.parent / "o.qrels"], capsys, ws, "permissions")
    finally:
        ws.chmod(0o644)


def big_chunks(path: Path) -> Path:
    """About 2.5 MB of chunks: more than the 2 MB tmpfs and the page limit below allow."""
    return jsonl(path, [{"id": f"big{i}", "text": "word " * 100} for i in range(5_000)])


def test_a_full_disk_during_import(tmpfs, tmp_path, capsys):
    path = tmpfs / "w.db"
    assert call(["init", path]) == 0
    assert call(["import", path, "queries", jsonl(tmp_path / "q.jsonl", QUERIES)]) == 0
    capsys.readouterr()
    before = fingerprint(path)
    source = big_chunks(tmp_path / "big.jsonl")
    argv = ["import", path, "chunks", source]
    fails(argv, capsys, source, "disk is full", "nothing was imported")
    assert fingerprint(path) == before


def test_a_full_disk_at_commit(tmpfs, make_workspace, tmp_path, capsys):
    """A small import fits in SQLite's page cache and first touches the disk at COMMIT, where
    SQLite leaves the transaction open: it must be rolled back, and the next import work."""
    path = make_workspace.path(at=tmpfs / "w.db")
    keeper = open_workspace(path)  # holds the -wal and -shm files open while the disk fills
    before = fingerprint(path)
    filler = tmpfs / "filler"
    room = os.statvfs(tmpfs)
    with open(filler, "wb") as handle, pytest.raises(OSError):
        handle.write(b"\0" * (room.f_bavail * room.f_frsize + (1 << 20)))
    source = jsonl(tmp_path / "small.jsonl", CHUNKS)
    fails(["import", path, "chunks", source], capsys, source, "disk is full")
    assert fingerprint(path) == before
    filler.unlink()
    assert call(["import", path, "chunks", source]) == 0
    assert counts(keeper)["chunks"] == len(CHUNKS)
    keeper.close()


def test_a_full_workspace_during_import_anywhere(ws, tmp_path, capsys, monkeypatch):
    """The same without root: SQLite's page limit makes the workspace "full" at its size now."""
    real_open = store.open_workspace

    def open_with_no_room(path, **options):
        db = real_open(path, **options)
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        return db

    before = fingerprint(ws)
    monkeypatch.setattr(store, "open_workspace", open_with_no_room)
    source = big_chunks(tmp_path / "big.jsonl")
    fails(["import", ws, "chunks", source], capsys, source, "disk is full", "nothing was imported")
    monkeypatch.undo()
    assert fingerprint(ws) == before


# --- a malformed first TREC line --------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "content", "expected"),
    [
        ("qrels", "q1 0 c1\nq1 0 c2 1\n", "expected 4 fields (query iter doc relevance), found 3"),
        ("qrels", "q1\t0\tc1\nq1\t0\tc2\t1\n", "missing: relevance"),
        ("qrels", "q1 0 c1 high\n", "relevance is not a number: 'high'"),
        ("qrels", "q1 0 c1 1.5\n", "relevance must be an integer, found '1.5'"),
        ("run", "q1 Q0 c1 1 high s\nq1 Q0 c2 2 1.0 s\n", "score is not a number: 'high'"),
        ("run", "q1 Q0 c1 1 2.0\n", "found 5; missing: tag"),
    ],
)
def test_a_malformed_first_trec_line_names_line_and_field(ws, tmp_path, capsys, kind, content,
                                                          expected):
    path = write(tmp_path / f"bad.{kind}", content)
    extra = ["--run-name", "new"] if kind == "run" else []
    message = refused(["import", ws, kind, path, *extra], ws, capsys, f"{path}, line 1:")
    assert expected in message and "missing required column" not in message


# --- the real command ------------------------------------------------------------------------


@pytest.mark.slow  # scorecard processes
def test_the_installed_command_prints_one_line(ws, tmp_path):
    """Through a real process: deep JSON, a non-SQLite workspace and an unclosed quote."""
    deep = write(tmp_path / "deep.jsonl", '{"id": "c1", "text": ' + DEEP + "}\n")
    text = write(tmp_path / "text.db", "not a database\n" * 20)
    quote = write(tmp_path / "q.csv", chunks_csv(50, broken_line=20))
    for argv, expected in (
        (["import", ws, "chunks", deep], f"{deep}, line 1: JSON nested too deeply"),
        (["export", text, "qrels", tmp_path / "o.qrels"], f"{text}: is not a scorecard"),
        (["import", ws, "chunks", quote], f"{quote}, line 20: a quote opened"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "labeling.commands.cli", *map(str, argv)],
            capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert done.stderr.startswith(f"scorecard: {expected}"), done.stderr
