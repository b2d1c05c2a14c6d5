"""Documents and chunk sets: importing them, locating chunks without offsets in their documents
(tolerant of whitespace), and refusing what cannot be placed with nothing written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from labeling.errors import InputError
from labeling.files import importers
from labeling.files.text_spans import DocumentText, normalise
from labeling.rechunking import splitter
from labeling.workspace import chunk_sets

DOCUMENTS = Path(__file__).resolve().parent / "data" / "documents"  # Python 3.11 docstrings
TABLES = ("documents", "chunks", "chunk_sets", "chunk_spans", "chunk_set_members")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def counts(db) -> dict[str, int]:
    return {t: db.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs, each normalised as many splitters do (runs of whitespace become
    one space): the chunks a team's pipeline might export without offsets."""
    return [normalise(p) for p in re.split(r"\n\s*\n", text) if p.strip()]


def document_rows(db) -> dict[str, str]:
    return dict(db.conn.execute("SELECT id, text FROM documents").fetchall())


# ---------------------------------------------------------------------------------------------
# Documents


def test_a_folder_of_text_and_markdown_becomes_documents(make_workspace, tmp_path):
    folder = tmp_path / "docs"
    shutil.copytree(DOCUMENTS, folder / "python")
    (folder / "notes.md").write_text("# Release notes\r\n\r\nFixed *everything*.\r\n",
                                     encoding="utf-8", newline="")
    (folder / "skip.pdf").write_bytes(b"%PDF")
    db = make_workspace()
    result = importers.import_documents(db, folder)
    assert result.rows == 4
    stored = document_rows(db)
    assert sorted(stored) == ["notes", "python/argparse", "python/heapq", "python/json"]
    assert stored["python/heapq"] == (DOCUMENTS / "heapq.txt").read_text(encoding="utf-8")
    assert stored["notes"] == "# Release notes\r\n\r\nFixed *everything*.\r\n"  # CRLF kept
    titles = dict(db.conn.execute("SELECT id, title FROM documents").fetchall())
    assert titles["notes"] == "Release notes" and titles["python/json"] is None


def test_documents_are_versioned_by_content(make_workspace, tmp_path):
    db = make_workspace()
    first = write_jsonl(tmp_path / "v1.jsonl", [{"id": "d1", "text": "one two"}])
    importers.import_documents(db, first)
    importers.import_documents(db, first)  # the same text again changes nothing
    assert counts(db)["documents"] == 1
    second = write_jsonl(tmp_path / "v2.jsonl", [{"id": "d1", "text": "one two three"}])
    result = importers.import_documents(db, second)
    assert result.updated == 1 and "new version" in result.warnings[0]
    assert counts(db)["documents"] == 2
    assert chunk_sets.current_versions(db)["d1"] == importers.documents.text_version(
        "one two three")


def test_a_named_version_with_other_text_is_refused(make_workspace, tmp_path):
    db = make_workspace()
    importers.import_documents(db, write_jsonl(tmp_path / "a.jsonl",
                                               [{"id": "d1", "text": "a", "version": "v1"}]))
    bad = write_jsonl(tmp_path / "b.jsonl", [{"id": "d2", "text": "fine"},
                                             {"id": "d1", "text": "b", "version": "v1"}])
    with pytest.raises(InputError, match=r"b.jsonl, line 2: document 'd1' version 'v1'"):
        importers.import_documents(db, bad)
    assert counts(db)["documents"] == 1  # d2 was not kept either


# ---------------------------------------------------------------------------------------------
# Chunk sets


def test_chunks_without_offsets_are_found_despite_normalised_whitespace(make_workspace,
                                                                         tmp_path):
    db = make_workspace()
    importers.import_documents(db, DOCUMENTS)
    rows = [{"id": f"{doc}-{n}", "doc_id": doc, "text": text}
            for doc, body in sorted(document_rows(db).items())
            for n, text in enumerate(paragraphs(body), 1)]
    result = importers.import_chunk_set(db, write_jsonl(tmp_path / "p.jsonl", rows), "paras",
                                        splitter="paragraphs, whitespace collapsed")
    assert result.rows == len(rows) > 30
    texts = document_rows(db)
    spans = chunk_sets.chunk_spans(db, "paras")
    for row, span in zip(rows, spans.itertuples(), strict=True):
        piece = texts[span.doc_id][span.start:span.end]
        assert normalise(piece) == row["text"]
        assert piece == piece.strip()  # the span starts and ends on the chunk's own text
    # A paragraph whose spaces the splitter collapsed still maps to the original run of them.
    heapq = spans.loc[spans["chunk_id"] == "heapq-2"].iloc[0]
    assert "0.  For the sake" in texts["heapq"][heapq.start:heapq.end]


def test_given_offsets_are_checked_and_kept(make_workspace, tmp_path):
    db = make_workspace()
    importers.import_documents(db, DOCUMENTS)
    text = document_rows(db)["json"]
    start = text.index("Encoding basic")
    end = text.index("interchange format.") + len("interchange format.")
    good = [{"id": "j1", "doc_id": "json", "text": text[:end], "start": 0, "end": end},
            {"id": "j2", "doc_id": "json", "text": text[start:start + 50],
             "char_start": start, "char_end": start + 50}]
    importers.import_chunk_set(db, write_jsonl(tmp_path / "good.jsonl", good[:1]), "a")
    assert chunk_sets.chunk_spans(db, "a")[["start", "end"]].values.tolist() == [[0, end]]
    before = counts(db)
    wrong = [dict(good[0], id="j3", start=1, end=end + 1)]
    with pytest.raises(InputError, match=r"'j3' \(line 1\): its text is not at 1-\d+"):
        importers.import_chunk_set(db, write_jsonl(tmp_path / "wrong.jsonl", wrong), "b")
    assert counts(db) == before


def test_a_chunk_not_in_its_document_is_reported_by_id_and_nothing_is_written(make_workspace,
                                                                             tmp_path):
    db = make_workspace()
    importers.import_documents(db, DOCUMENTS)
    rows = [{"id": f"h{n}", "doc_id": "heapq", "text": text}
            for n, text in enumerate(paragraphs(document_rows(db)["heapq"]), 1)]
    rows[5] = dict(rows[5], text=rows[5]["text"].replace("0-based", "1-based"))  # edited text
    rows.append({"id": "elsewhere", "doc_id": "heapq", "text": "Heaps are binary trees"})
    before = counts(db)
    with pytest.raises(InputError) as caught:
        importers.import_chunk_set(db, write_jsonl(tmp_path / "c.jsonl", rows), "broken")
    message = str(caught.value)
    assert "2 chunks could not be placed" in message and "nothing was imported" in message
    assert "'h6' (line 6): its text is not in its document" in message
    assert f"'elsewhere' (line {len(rows)})" in message
    assert message.startswith(f"{tmp_path / 'c.jsonl'}, line 6:")
    assert counts(db) == before  # not the chunk set, not the chunks that were found


def test_unknown_document_and_reused_ids_are_refused(make_workspace, tmp_path):
    db = make_workspace()
    importers.import_documents(db, DOCUMENTS)
    first = paragraphs(document_rows(db)["heapq"])[0]
    with pytest.raises(InputError, match="line 1: chunk 'x' names document 'nope', which"):
        importers.import_chunk_set(db, write_jsonl(tmp_path / "u.jsonl", [
            {"id": "x", "doc_id": "nope", "text": first}]), "u")
    importers.import_chunk_set(db, write_jsonl(tmp_path / "a.jsonl", [
        {"id": "h1", "doc_id": "heapq", "text": first}]), "a")
    # The same chunk (id, document, span) may belong to a second chunk set...
    importers.import_chunk_set(db, write_jsonl(tmp_path / "b.jsonl", [
        {"id": "h1", "doc_id": "heapq", "text": first}]), "b")
    assert list(chunk_sets.member_ids(db, "b")) == ["h1"]
    # ...but an id cannot name another text.
    other = paragraphs(document_rows(db)["heapq"])[1]
    with pytest.raises(InputError, match="'h1' .*another span"):
        importers.import_chunk_set(db, write_jsonl(tmp_path / "c.jsonl", [
            {"id": "h1", "doc_id": "heapq", "text": other}]), "c")
    with pytest.raises(InputError, match="a chunk set named 'a' already exists"):
        importers.import_chunk_set(db, write_jsonl(tmp_path / "a2.jsonl", [
            {"id": "h9", "doc_id": "heapq", "text": other}]), "a")


def test_stored_chunks_get_their_spans_from_ids_alone(make_workspace, tmp_path):
    """A workspace made before chunk sets: its chunks are attached by id and document."""
    heapq = (DOCUMENTS / "heapq.txt").read_text(encoding="utf-8")
    parts = paragraphs(heapq)
    db = make_workspace(chunks=[{"id": f"old-{n}", "text": t} for n, t in enumerate(parts)])
    importers.import_documents(db, DOCUMENTS)
    rows = [{"id": f"old-{n}", "doc_id": "heapq"} for n in range(len(parts))]
    result = importers.import_chunk_set(db, write_jsonl(tmp_path / "ids.jsonl", rows), "legacy")
    assert result.rows == len(parts) and result.updated == len(parts)
    assert counts(db)["chunks"] == len(parts)


def test_document_text_locates_repeated_text_in_order():
    document = DocumentText("Note: see below.\n\nNote:   see below.\n")
    first = document.locate("Note: see below.")
    second = document.locate("Note: see below.", after=first[0] + 1)
    assert first == (0, 16) and second == (18, 36)
    assert document.locate("not here") is None and document.locate("  \n") is None


# ---------------------------------------------------------------------------------------------
# The built-in splitter


@pytest.mark.parametrize(("size", "overlap"), [(120, 0), (300, 40), (1000, 100)])
def test_the_splitter_cuts_at_boundaries_and_keeps_exact_offsets(size, overlap):
    for path in sorted(DOCUMENTS.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        spans = splitter.split_spans(text, size, overlap)
        assert spans and all(end - start <= size for start, end in spans)
        assert all(text[start:end] == text[start:end].strip() for start, end in spans)
        assert [s for s, _ in spans] == sorted(s for s, _ in spans)
        covered = set().union(*(range(s, e) for s, e in spans))
        assert all(text[i].isspace() for i in range(len(text)) if i not in covered)
        if overlap == 0:  # without overlap the chunks do not share a character
            assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_rechunking_names_the_chunk_set_in_its_errors(make_workspace):
    db = make_workspace()
    importers.import_documents(db, DOCUMENTS)
    splitter.rechunk_documents(db, "paras", 400)
    assert len(chunk_sets.chunk_spans(db, "paras")) > 10
    with pytest.raises(InputError, match="^chunk set 'paras': a chunk set named 'paras' already"):
        splitter.rechunk_documents(db, "paras", 300)
