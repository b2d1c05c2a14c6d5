"""Source documents: a folder of text or markdown files, or a records file (JSON lines, CSV).

Conventions
- A folder: every ``.txt``, ``.md`` and ``.markdown`` file under it (sorted by path) is one
  document; its id is the path relative to the folder without the suffix (``hr/leave``), its
  title the first ``# `` heading of a markdown file (none for plain text). Files are UTF-8; a
  BOM is dropped; the text is kept byte for byte otherwise (line ends included), since chunk
  offsets count its characters.
- A records file: ``id`` (or ``_id``, ``doc_id``) and ``text``; optional ``title`` and
  ``version``; other fields are kept as metadata.
- The version is the file's, else the first 12 hex digits of the SHA-256 of the text. The same
  (id, version) imported again with the same text changes nothing; with other text it is an
  error. A new version of a known document is stored beside the old one, which the chunk sets
  made before keep pointing at.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.formats.text import check_block, read_start
from labeling.files.formats.values import is_missing, plain_value
from labeling.files.importers.ids import pick_column
from labeling.files.importers.lines import batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import chunk_sets, ids
from labeling.workspace.store import utc_now

if TYPE_CHECKING:
    import sqlite_utils

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown")
DOCUMENT_ID = ("id", "_id", "doc_id")
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


def text_version(text: str) -> str:
    """The version of a document that names none: 12 hex digits of its text's SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def import_documents(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    """Documents from a folder of text/markdown files or a records file; all or nothing."""
    path = Path(path)
    source = str(path)
    result = ImportResult("documents")
    with import_transaction(db, source) as conn:
        if path.is_dir():
            for document in _folder_documents(path):
                _store(conn, document, result)
        else:
            for batch, lines in batches(formats.iter_record_batches(path), path, None):
                id_col = pick_column(batch.columns, DOCUMENT_ID)
                if id_col is None or "text" not in batch.columns:
                    raise InputError("a documents file needs an id column (id, _id or doc_id) "
                                     "and a text column", source=source, line=lines.first())
                for i, record in enumerate(batch.to_dict("records")):
                    _store(conn, _record_document(record, id_col, source, int(lines[i])), result)
        if result.rows == 0:
            raise InputError("no documents found (a folder needs .txt, .md or .markdown files)",
                             source=source)
    if result.updated:
        result.warnings.append(
            f"{result.updated} documents have a new version; chunk sets imported before keep "
            "their spans on the old one (transfer their labels to a chunk set of the new text)"
        )
    return result


def _folder_documents(folder: Path) -> list[dict[str, Any]]:
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES)
    documents = []
    for file in files:
        doc_id = file.relative_to(folder).with_suffix("").as_posix()
        data = read_start(file)
        check_block(data, str(file))
        text = data.decode("utf-8")
        heading = _HEADING.search(text) if file.suffix.lower() != ".txt" else None
        documents.append({
            "id": doc_id, "text": text, "title": heading.group(1) if heading else None,
            "version": None, "metadata": {"file": file.name}, "source": str(file), "line": None,
        })
    return documents


def _record_document(record: dict[str, Any], id_col: str, source: str, line: int) -> dict:
    text = plain_value(record.get("text"))
    if not isinstance(text, str) or not text.strip():
        raise InputError("a document needs its text", source=source, line=line)
    known = {id_col, "text", "title", "version", "metadata", "line"}
    meta = {k: plain_value(v) for k, v in record.items() if k not in known and not is_missing(v)}
    nested = plain_value(record.get("metadata"))
    if isinstance(nested, dict):
        meta.update(nested)
    title, version = plain_value(record.get("title")), plain_value(record.get("version"))
    return {
        "id": plain_value(record[id_col]), "text": text,
        "title": None if is_missing(title) else str(title),
        "version": None if is_missing(version) else str(version),
        "metadata": meta, "source": source, "line": line,
    }


def _store(conn: sqlite3.Connection, document: dict[str, Any], result: ImportResult) -> None:
    source, line = document["source"], document["line"]
    doc_id = document["id"]
    if is_missing(doc_id) or str(doc_id) == "":
        raise InputError("a document without an id", source=source, line=line)
    doc_id = str(doc_id)
    reason = ids.problem("document id", doc_id)
    if reason is not None:
        raise InputError(reason, source=source, line=line)
    text = document["text"]
    if not text.strip():
        raise InputError(f"document {doc_id!r} has no text", source=source, line=line)
    version = document["version"] or text_version(text)
    stored = chunk_sets.stored_document_text(conn, doc_id, version)
    if stored is not None:
        if stored != text:
            raise InputError(
                f"document {doc_id!r} version {version!r} is already stored with other text; "
                "give the new text another version (or none, to version it by its content)",
                source=source, line=line,
            )
        result.rows += 1
        return
    if chunk_sets.has_document(conn, doc_id):
        result.updated += 1
    chunk_sets.insert_document(
        conn, doc_id, version, document["title"], text,
        json.dumps(document["metadata"], ensure_ascii=False, default=str), utc_now(),
    )
    result.rows += 1
