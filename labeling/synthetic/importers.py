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
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import sqlite_utils

from labeling.errors import InputError
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.offline import rubric
from labeling.synthetic.review import add_candidates
from labeling.synthetic.text import normalise


@dataclass
class ImportSummary:
    """Candidates stored and questions whose passage matched no chunk."""

    stored: int
    unmatched: int

    def summary(self) -> str:
        return f"{self.stored} candidates queued for review, {self.unmatched} not matched"


class _Matcher:
    def __init__(self, db: sqlite_utils.Database) -> None:
        rows = db.conn.execute(
            "SELECT id, coalesce(text, '') FROM chunks WHERE placeholder = 0"
        ).fetchall()
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


def import_llamaindex(db: sqlite_utils.Database, path: str | Path) -> ImportSummary:
    """Queue the questions of a LlamaIndex question/corpus/relevant_docs JSON file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
        queries, corpus = data["queries"], data.get("corpus", {})
        relevant = data["relevant_docs"]
    except (ValueError, KeyError, TypeError) as error:
        raise InputError(
            "expected JSON with queries, corpus and relevant_docs", source=str(path)
        ) from error
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


def _records(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return json.loads(stripped)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _contexts(value) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.strip().startswith("["):
        try:  # CSV exports of pandas write the list's repr
            return [str(v) for v in ast.literal_eval(value)]
        except (ValueError, SyntaxError):
            return [value]
    return [str(value)] if value else []


def import_ragas(db: sqlite_utils.Database, path: str | Path) -> ImportSummary:
    """Queue the questions of a RAGAS test set (JSON, JSONL or CSV)."""
    path = Path(path)
    try:
        records = _records(path)
    except (ValueError, OSError) as error:
        raise InputError(f"cannot read the test set: {error}", source=str(path)) from error
    matcher = _Matcher(db)
    candidates, unmatched = [], 0
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise InputError("each test-set entry must be an object", source=str(path),
                             line=number)
        question = str(record.get("user_input") or record.get("question") or "").strip()
        contexts = _contexts(record.get("reference_contexts") or record.get("contexts"))
        chunk_id = next((c for c in map(matcher.match, contexts) if c), None)
        if not question or chunk_id is None:
            unmatched += 1
            continue
        answer = str(record.get("reference") or record.get("ground_truth") or "")
        candidates.append(Candidate(chunk_id, question, "import:ragas", answer=answer,
                                    problems=rubric(question)))
    return ImportSummary(len(add_candidates(db, candidates)), unmatched)
