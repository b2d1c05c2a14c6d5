"""Exporters: the workspace out to files other tools read.

- ``export_qrels``: TREC qrels, one grade per pair from ``labeling.judging.consensus``; to a
  ``.jsonl`` path, JSON lines ``{"query_id", "doc_id", "relevance"[, "evidence"]}`` where a
  relevant pair's evidence is the spans of its current relevant people's judgments (the format
  ``scorecard import DB qrels`` reads back).
- ``export_run``: a stored run in TREC run format (tag = run name).
- ``export_judgments``: the full judgment history as CSV (``evidence``: the judgment's spans as a
  JSON list, empty for none).
- ``export_beir``: corpus (non-placeholder chunks), queries (with segment attributes in
  ``metadata``) and consensus qrels as a BEIR folder.
- ``csv_bytes``: any table as CSV for a download button.

Every CSV written here (and every CSV download of the app, through ``csv_bytes``) defuses its
cells with ``defuse``: user text is untrusted, so a text cell starting with ``= + - @`` (or tab /
carriage return) gets a leading ``'`` and spreadsheets do not run it as a formula; numbers are
written as numbers (a negative number is data, not a formula).

Grades follow the blind rule (``labeling.judging.visibility``): given a ``sight``, the qrels, the
BEIR
qrels and the judgments hold only what that person may see; ``None`` means everything (the file
owner: the command line, scripts).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from pandas.api.types import is_bool_dtype, is_datetime64_any_dtype, is_numeric_dtype

from labeling.errors import ScorecardError
from labeling.files import formats
from labeling.judging.consensus import run_frame
from labeling.judging.label_sources import source_consensus
from labeling.judging.visibility import Sight
from labeling.workspace import chunk_sets, chunk_store, judgments, query_store
from labeling.workspace.evidence import all_evidence, spans_json

if TYPE_CHECKING:
    import sqlite_utils

JUDGMENT_COLUMNS = (
    "id",
    "query_id",
    "chunk_id",
    "grade",
    "annotator",
    "created_at",
    "note",
    "flags",
    "origin",
    "origin_source",
)
EXPORTED_JUDGMENT_COLUMNS = (*JUDGMENT_COLUMNS, "evidence")
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def defuse(cell: object) -> object:
    """Prefix ``'`` to a text cell a spreadsheet would read as a formula; other cells unchanged."""
    if isinstance(cell, str) and cell.startswith(FORMULA_PREFIXES):
        return "'" + cell
    return cell


def _keeps_numbers(dtype: object) -> bool:
    return is_numeric_dtype(dtype) or is_bool_dtype(dtype) or is_datetime64_any_dtype(dtype)


def _defuse_labels(labels: pd.Index) -> pd.Index:
    if isinstance(labels, pd.MultiIndex):
        levels = [_defuse_labels(level) for level in labels.levels]
        return labels.set_levels(levels).set_names([defuse(n) for n in labels.names])
    defused = labels if _keeps_numbers(labels.dtype) else labels.map(defuse)
    return defused.rename(defuse(labels.name))


def defuse_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with ``defuse`` applied to every text cell, column name and index
    label; numeric, boolean and date columns are left as they are."""
    out = frame.copy()
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if not _keeps_numbers(column.dtype):
            out.isetitem(position, column.astype(object).map(defuse))
    out.columns = _defuse_labels(out.columns)
    out.index = _defuse_labels(out.index)
    return out


def csv_bytes(frame: pd.DataFrame, *, index: bool = False) -> bytes:
    """``frame`` as UTF-8 CSV with every cell defused (for download buttons)."""
    return defuse_frame(frame).to_csv(index=index).encode("utf-8")


def visible_qrels(qrels: pd.DataFrame, sight: Sight | None) -> pd.DataFrame:
    """The qrels rows (query_id, doc_id = chunk id) whose grade ``sight`` may see."""
    if sight is None or sight.sees_all:
        return qrels
    return qrels.loc[sight.pair_mask(qrels, chunk="doc_id")].reset_index(drop=True)


def export_qrels(
    db: sqlite_utils.Database, path: str | Path, *, rule: str = "default",
    sight: Sight | None = None, chunk_set: str | None = None, all_chunk_sets: bool = False,
) -> int:
    """Write consensus qrels (rule: ``labeling.judging.consensus.RULES``) in TREC format;
    return the pairs.

    ``chunk_set``: only the labels a run of that chunk set is scored on (its chunks' and those
    of chunks in no chunk set). In a workspace of several chunk sets one must be named, or
    ``all_chunk_sets`` asked for: a file mixing chunkings scores every run against relevant
    chunks it could never return. A ``.jsonl`` path writes JSON lines with evidence spans."""
    qrels = chunk_set_qrels(db, _people_qrels(db, rule), chunk_set, all_chunk_sets)
    qrels = visible_qrels(qrels, sight)
    if Path(path).suffix.lower() == ".jsonl":
        _write_qrels_jsonl(db, qrels, path)
    else:
        formats.write_trec_qrels(qrels, path)
    return len(qrels)


def chunk_set_qrels(
    db: sqlite_utils.Database, qrels: pd.DataFrame, chunk_set: str | None, all_chunk_sets: bool
) -> pd.DataFrame:
    """``qrels`` for ``export_qrels``'s ``chunk_set`` / ``all_chunk_sets`` choice;
    ``ScorecardError`` for a choice that would mix chunk sets unasked."""
    if chunk_set is not None:
        if all_chunk_sets:
            raise ScorecardError("name one chunk set or ask for all of them, not both")
        chunk_sets.get_chunk_set(db, chunk_set)  # an unknown name is refused, naming the known
        return chunk_sets.keep_chunk_set_labels(db, chunk_set, qrels)
    names = chunk_sets.chunk_set_names(db)
    if len(names) > 1 and not all_chunk_sets:
        raise ScorecardError(
            f"the workspace holds {len(names)} chunk sets ({', '.join(names)}) and their labels "
            "would be mixed: name one with --chunk-set, or write them all with --all-chunk-sets")
    return qrels


def _write_qrels_jsonl(db: sqlite_utils.Database, qrels: pd.DataFrame, path: str | Path) -> None:
    """Qrels as JSON lines; a relevant pair's evidence is the union of its people's spans."""
    spans: dict[tuple[str, str], set[tuple[int, int]]] = {}
    for query_id, chunk_id, start, end in judgments.current_relevant_spans(db.conn):
        spans.setdefault((query_id, chunk_id), set()).add((int(start), int(end)))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for query_id, doc_id, grade in qrels[["query_id", "doc_id", "relevance"]].itertuples(
                index=False):
            row: dict = {"query_id": query_id, "doc_id": doc_id, "relevance": int(grade)}
            if grade >= 1 and (query_id, doc_id) in spans:
                row["evidence"] = spans_json(sorted(spans[(query_id, doc_id)]))
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _people_qrels(db: sqlite_utils.Database, rule: str) -> pd.DataFrame:
    """People's consensus qrels (query_id, doc_id, relevance): exports never carry a machine
    judge's labels as if they were people's."""
    return source_consensus(db, rule, "people").rename(
        columns={"chunk_id": "doc_id", "grade": "relevance"})


def export_run(db: sqlite_utils.Database, run_name: str, path: str | Path) -> int:
    """Write the run ``run_name`` in TREC run format; return the number of rows."""
    run = run_frame(db, run_name)
    formats.write_trec_run(run, path, tag=run_name)
    return len(run)


def export_judgments(
    db: sqlite_utils.Database, path: str | Path, *, sight: Sight | None = None
) -> int:
    """Write every judgment ``sight`` may see (default: all), oldest first, as CSV with a
    header; return the number of rows."""
    count = 0
    query, chunk, annotator = (JUDGMENT_COLUMNS.index(c)
                               for c in ("query_id", "chunk_id", "annotator"))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(EXPORTED_JUDGMENT_COLUMNS)
        evidence = all_evidence(db.conn)
        for rows in judgments.judgment_batches(db.conn, tuple(JUDGMENT_COLUMNS)):
            if sight is not None and not sight.sees_all:
                rows = [r for r in rows if sight.sees(r[query], r[chunk], r[annotator])]
            writer.writerows([*(defuse(cell) for cell in row), _evidence_cell(evidence, row[0])]
                             for row in rows)
            count += len(rows)
    return count


def _evidence_cell(evidence: dict[int, list], judgment_id: int) -> str:
    spans = evidence.get(int(judgment_id))
    return json.dumps(spans_json(spans)) if spans else ""


def corpus_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Non-placeholder chunks as a BEIR corpus: _id, title, text, metadata (dict; a chunk's
    doc_id goes there, as BEIR has no column for it)."""
    frame = chunk_store.stored_chunks_frame(db.conn)
    metadata = [json.loads(m) for m in frame.pop("metadata")]
    frame["metadata"] = [
        ({"doc_id": doc_id} if isinstance(doc_id, str) else {}) | meta
        for doc_id, meta in zip(frame.pop("doc_id"), metadata, strict=True)
    ]
    return frame


def queries_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Non-placeholder queries as BEIR queries: _id, text, metadata (attributes, source, split)."""
    frame = query_store.stored_queries_frame(db.conn)
    metadata = [json.loads(m) for m in frame.pop("metadata")]
    attributes = query_store.all_attributes(db.conn)
    columns = zip(frame["_id"], frame.pop("source"), frame.pop("split"), metadata, strict=True)
    frame["metadata"] = [
        meta | attributes.get(qid, {})
        | {k: v for k, v in (("source", source), ("split", split)) if isinstance(v, str)}
        for qid, source, split, meta in columns
    ]
    return frame


def export_beir(
    db: sqlite_utils.Database, folder: str | Path, *, sight: Sight | None = None
) -> dict[str, int]:
    """Write the workspace as a BEIR folder (qrels: those ``sight`` may see, default all);
    return row counts per part."""
    corpus, queries = corpus_frame(db), queries_frame(db)
    qrels = visible_qrels(_people_qrels(db, "default"), sight)
    formats.write_beir(folder, corpus, queries, qrels)
    return {"corpus": len(corpus), "queries": len(queries), "qrels": len(qrels)}
