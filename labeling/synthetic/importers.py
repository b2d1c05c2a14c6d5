"""Import existing synthetic test sets into the review queue.

- LlamaIndex (``EmbeddingQAFinetuneDataset`` JSON): ``{"queries": {qid: question}, "corpus":
  {node_id: text}, "relevant_docs": {qid: [node_id, ...]}}``. A node id that is a workspace
  chunk id is used as is; otherwise its text is matched to a chunk by normalised text.
- RAGAS test sets (JSON list, JSONL or CSV with ``user_input``/``question`` and
  ``reference_contexts``/``contexts``): each context is matched to a chunk by normalised text
  (equal, or one containing the other); the first matching context is the source.

Questions whose passage matches no chunk are counted as unmatched, not stored.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labeling.errors import InputError
from labeling.files.formats import csv_rows
from labeling.files.formats.tabular import TOO_DEEP
from labeling.files.formats.text import read_checked
from labeling.files.formats.values import json_kind
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.review import add_candidates
from labeling.synthetic.rubric import rubric
from labeling.synthetic.text import normalise
from labeling.workspace import chunk_store

if TYPE_CHECKING:
    import sqlite_utils


@dataclass
class ImportSummary:
    """Candidates stored and questions whose passage matched no chunk."""

    stored: int
    unmatched: int

    def summary(self) -> str:
        return f"{self.stored} candidates queued for review, {self.unmatched} not matched"


class _Matcher:
    def __init__(self, db: sqlite_utils.Database) -> None:
        rows = chunk_store.imported_chunk_texts(db)
        self.ids = {r[0] for r in rows}
        self.exact = {normalise(t): cid for cid, t in rows if t.strip()}
        self.rows = [(cid, normalise(t)) for cid, t in rows if t.strip()]

    def match(self, text: str) -> str | None:
        key = normalise(text)
        if not key:
            return None
        if key in self.exact:
            return self.exact[key]
        for cid, chunk in self.rows:  # a context cut from a chunk, or a chunk inside a context
            if len(key) >= 30 and (key in chunk or chunk in key):
                return cid
        return None


def _read_text(path: Path) -> str:
    """The file as UTF-8 text (``read_checked``: a missing file, a folder, bad bytes or a NUL
    is an InputError naming the line); a file of only blanks is empty."""
    text = read_checked(path).decode("utf-8")
    if not text.strip():
        raise InputError("file is empty", source=str(path))
    return text


def _parse_json(text: str, source: str, first_line: int = 1) -> Any:
    """``json.loads`` whose failures (deep nesting included) are InputErrors naming the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg} (column {error.colno})",
            source=source,
            line=first_line + error.lineno - 1,
        ) from None
    except RecursionError:
        raise InputError(TOO_DEEP, source=source, line=first_line) from None


def _llamaindex_parts(data: Any, source: str) -> tuple[dict, dict, dict]:
    """``queries``, ``corpus`` and ``relevant_docs`` of a LlamaIndex file, shape-checked."""
    if not isinstance(data, dict):
        raise InputError(
            "expected a JSON object with queries, corpus and relevant_docs (a LlamaIndex "
            f"EmbeddingQAFinetuneDataset), found {json_kind(data)}",
            source=source,
        )
    missing = [key for key in ("queries", "relevant_docs") if key not in data]
    if missing:
        raise InputError(
            f"no {' or '.join(missing)} in the file (expected a LlamaIndex "
            "EmbeddingQAFinetuneDataset with queries, corpus and relevant_docs)",
            source=source,
        )
    parts = {key: data.get(key, {}) for key in ("queries", "corpus", "relevant_docs")}
    for key, value in parts.items():
        if not isinstance(value, dict):
            raise InputError(
                f"{key} must be an object mapping ids to "
                f"{'node ids' if key == 'relevant_docs' else 'text'}, found {json_kind(value)}",
                source=source,
            )
    for key in ("queries", "corpus"):
        for item_id, text in parts[key].items():
            if not isinstance(text, str):
                raise InputError(
                    f"{key} entry {item_id!r} must be text, found {json_kind(text)}", source=source
                )
    for qid, nodes in parts["relevant_docs"].items():
        if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
            found = "a list holding other values" if isinstance(nodes, list) else json_kind(nodes)
            raise InputError(
                f"relevant_docs of query {qid!r} must be a list of node ids, found {found}",
                source=source,
            )
    return parts["queries"], parts["corpus"], parts["relevant_docs"]


def import_llamaindex(db: sqlite_utils.Database, path: str | Path) -> ImportSummary:
    """Queue the questions of a LlamaIndex question/corpus/relevant_docs JSON file."""
    source = str(path)
    data = _parse_json(_read_text(Path(path)), source)
    queries, corpus, relevant = _llamaindex_parts(data, source)
    matcher = _Matcher(db)
    candidates, unmatched = [], 0
    for qid, question in queries.items():
        chunk_id = None
        for node in relevant.get(qid, []):
            chunk_id = node if node in matcher.ids else matcher.match(str(corpus.get(node, "")))
            if chunk_id:
                break
        if chunk_id is None or not str(question).strip():
            unmatched += 1
            continue
        candidates.append(Candidate(chunk_id, str(question).strip(), "import:llamaindex",
                                    problems=rubric(str(question).strip())))
    return ImportSummary(len(add_candidates(db, candidates)), unmatched)


def _records(path: Path) -> list[tuple[int | None, Any]]:
    """(line, entry) of a RAGAS test set: CSV, a JSON array, or JSON lines."""
    source = str(path)
    text = _read_text(path)
    if path.suffix.lower() == ".csv":
        return _csv_records(text, source)
    if text.lstrip().startswith("["):  # a JSON array (what parses from '[' is a list)
        return [(None, entry) for entry in _parse_json(text, source)]
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            out.append((number, _parse_json(line, source, number)))
        except InputError:
            if isinstance(_whole_json(text), dict):
                raise InputError(
                    "expected JSON lines (one entry per line) or a JSON array of entries, "
                    "found one JSON object over several lines",
                    source=source,
                ) from None
            raise
    return out


def _csv_records(text: str, source: str) -> list[tuple[int | None, Any]]:
    """(start line, row as a dict) of a CSV with a header; pandas' unnamed index column is
    allowed (its name is empty). Quoting is read strictly: a quote left open is an error."""
    reader = csv.reader(io.StringIO(text), strict=True)
    header: list[str] | None = None
    out: list[tuple[int | None, Any]] = []
    previous_end = 0
    try:
        for row in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip() for cell in row]
            elif len(row) != len(header):
                raise InputError(
                    f"expected {len(header)} fields (from the header), found {len(row)}",
                    source=source,
                    line=start,
                )
            else:
                out.append((start, dict(zip(header, row, strict=True))))
    except csv.Error as error:
        raise csv_rows.csv_error(text, ",", error, previous_end + 1, source) from None
    return out


def _whole_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _text_field(record: dict, names: tuple[str, ...], source: str, line: int | None) -> str:
    value = next((record[n] for n in names if record.get(n) not in (None, "")), "")
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InputError(f"{names[0]} must be text, found {json_kind(value)}", source=source,
                         line=line)
    return str(value).strip()


def _contexts(value, source: str, line: int | None) -> list[str]:
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise InputError("reference_contexts must be a list of text passages",
                             source=source, line=line)
        return value
    if isinstance(value, str) and value.strip().startswith("["):
        try:  # CSV exports of pandas write the list's repr
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            return [value]
        return [str(v) for v in parsed] if isinstance(parsed, (list, tuple)) else [value]
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [value]
    raise InputError(
        f"reference_contexts must be a list of text passages, found {json_kind(value)}",
        source=source, line=line,
    )


QUESTION_FIELDS = ("user_input", "question")
CONTEXT_FIELDS = ("reference_contexts", "contexts")


def import_ragas(db: sqlite_utils.Database, path: str | Path) -> ImportSummary:
    """Queue the questions of a RAGAS test set (JSON, JSONL or CSV)."""
    path = Path(path)
    source = str(path)
    records = _records(path)
    for line, record in records:
        if not isinstance(record, dict):
            raise InputError(f"each test-set entry must be an object, found {json_kind(record)}",
                             source=source, line=line)
    for fields in (QUESTION_FIELDS, CONTEXT_FIELDS):
        if records and not any(f in record for _, record in records for f in fields):
            raise InputError(
                f"no entry has a {' or '.join(fields)} field (expected a RAGAS test set)",
                source=source,
            )
    matcher = _Matcher(db)
    candidates, unmatched = [], 0
    for line, record in records:
        question = _text_field(record, QUESTION_FIELDS, source, line)
        contexts = _contexts(
            next((record[f] for f in CONTEXT_FIELDS if record.get(f) not in (None, "")), None),
            source, line,
        )
        chunk_id = next((c for c in map(matcher.match, contexts) if c), None)
        if not question or chunk_id is None:
            unmatched += 1
            continue
        answer = _text_field(record, ("reference", "ground_truth"), source, line)
        candidates.append(Candidate(chunk_id, question, "import:ragas", answer=answer,
                                    problems=rubric(question)))
    return ImportSummary(len(add_candidates(db, candidates)), unmatched)
