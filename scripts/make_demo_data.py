"""Regenerate the demo workspace's derived files from the hand-written sources in ``data/``.

Sources (written by us): ``data/docs/*.md`` (one document per file, one chunk per ``##``
section), ``data/queries.jsonl`` and ``data/source/intended.tsv`` (the chunks each query was
written to find, with a grade).

Outputs (deterministic: running the script twice gives identical files):

- ``data/chunks.jsonl``: id, doc_id, title ("Document: Section"), text.
- ``data/documents.jsonl``: id, title, text (each ``docs/*.md`` file as it is).
- ``data/chunk_offsets.jsonl``: id, doc_id, start, end: where each chunk's text lies in its
  document (character offsets, end exclusive), the demo's chunk set ``sections``.
- ``data/runs/bm25.trec``: BM25 over the chunk text, top 20.
- ``data/runs/bm25-title.trec``: BM25 over title + text, top 20.
- ``data/runs/fusion.trec``: reciprocal-rank fusion (k=60) of the two, top 20.
- ``data/labels/alice.qrels``, ``data/labels/bob.qrels``: two simulated annotators grading the
  pooled top 10 of the three runs (0-3). Alice grades about 90% of the pool and is usually right;
  Bob grades about half of it, is stricter about partial answers and disagrees more often. Some
  pooled pairs stay unjudged, so the coverage warnings have something true to show.

Usage: ``python scripts/make_demo_data.py`` from the checkout.
"""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labeling.files import baseline
from labeling.files import exporters as exports
from labeling.files import importers as imports
from labeling.workspace import grading

DATA = ROOT / "data"
RUN_DEPTH = 20
POOL_DEPTH = 10
RRF_K = 60
SEED = 20250611


def read_documents(docs_dir: Path) -> list[dict[str, str]]:
    """One document per ``docs/*.md`` file: id (the file name without its number), title (the
    ``#`` heading) and the text exactly as in the file."""
    documents = []
    for path in sorted(docs_dir.glob("*.md")):
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
        documents.append({
            "id": re.sub(r"^\d+-", "", path.stem),
            "title": re.search(r"^# (.+)$", text, re.M).group(1).strip(),
            "text": text,
        })
    return documents


def split_documents(docs_dir: Path) -> list[dict[str, str]]:
    """One chunk per ``##`` section, its text the section's body without the heading line; the
    chunk's ``start``/``end`` say where that body lies in the document's text."""
    chunks = []
    for document in read_documents(docs_dir):
        text = document["text"]
        headings = list(re.finditer(r"^## (.*)$", text, re.M))
        for number, heading in enumerate(headings, 1):
            end = headings[number].start() if number < len(headings) else len(text)
            body = text[heading.end():end]
            start = heading.end() + len(body) - len(body.lstrip())
            chunks.append({
                "id": f"{document['id']}-{number:02d}",
                "doc_id": document["id"],
                "title": f"{document['title']}: {heading.group(1).strip()}",
                "text": body.strip(),
                "start": start,
                "end": start + len(body.strip()),
            })
    return chunks


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_trec_run(path: Path) -> dict[str, list[str]]:
    """query id -> chunk ids in rank order."""
    ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, doc, rank, _score, _tag = line.split()
        ranked[qid].append((int(rank), doc))
    return {q: [d for _, d in sorted(rows)] for q, rows in ranked.items()}


def reciprocal_rank_fusion(
    runs: list[dict[str, list[str]]], k: int = RRF_K, depth: int = RUN_DEPTH
) -> dict[str, list[tuple[str, float]]]:
    """Cormack et al.'s RRF: score(d) = sum over runs of 1 / (k + rank); ties by chunk id."""
    fused: dict[str, list[tuple[str, float]]] = {}
    for qid in sorted(set().union(*runs)):
        scores: dict[str, float] = defaultdict(float)
        for run in runs:
            for rank, doc in enumerate(run.get(qid, []), 1):
                scores[doc] += 1.0 / (k + rank)
        ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:depth]
        fused[qid] = [(doc, round(score, 6)) for doc, score in ordered]
    return fused


def write_trec_run(path: Path, run: dict[str, list[tuple[str, float]]], tag: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for qid in sorted(run):
            for rank, (doc, score) in enumerate(run[qid], 1):
                handle.write(f"{qid} Q0 {doc} {rank} {score:.6f} {tag}\n")


def read_intended(path: Path) -> dict[tuple[str, str], int]:
    intended = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            qid, chunk, grade = line.split("\t")
            intended[(qid, chunk)] = int(grade)
    return intended


def simulate_labels(
    pool: dict[str, list[str]], intended: dict[tuple[str, str], int], seed: int = SEED
) -> dict[str, list[tuple[str, str, int]]]:
    """Two annotators' (query, chunk, grade) rows over the pool; deterministic for ``seed``."""
    rng = random.Random(seed)
    labels: dict[str, list[tuple[str, str, int]]] = {"alice": [], "bob": []}
    unfinished = {"q39", "q40", "q41", "q42"}  # Alice stopped half-way through these
    for qid in sorted(pool):
        for position, chunk in enumerate(pool[qid]):
            truth = intended.get((qid, chunk), 0)
            alice_covers = rng.random() < 0.92 and not (qid in unfinished and position >= 6)
            if alice_covers:
                grade = truth
                if rng.random() < 0.08:
                    grade = min(3, max(0, truth + rng.choice((-1, 1))))
                labels["alice"].append((qid, chunk, grade))
            if rng.random() < 0.5:
                grade = 0 if truth == 1 and rng.random() < 0.6 else truth
                if rng.random() < 0.15:
                    grade = min(3, max(0, grade + rng.choice((-1, 1))))
                labels["bob"].append((qid, chunk, grade))
    return labels


def main() -> None:
    chunks = split_documents(DATA / "docs")
    write_jsonl(DATA / "chunks.jsonl",
                [{k: c[k] for k in ("id", "doc_id", "title", "text")} for c in chunks])
    write_jsonl(DATA / "documents.jsonl", read_documents(DATA / "docs"))
    write_jsonl(DATA / "chunk_offsets.jsonl",
                [{k: c[k] for k in ("id", "doc_id", "start", "end")} for c in chunks])

    (DATA / "runs").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = grading.init_workspace(Path(tmp) / "make-demo.db", scale="graded")
        imports.import_chunks(db, DATA / "chunks.jsonl")
        imports.import_queries(db, DATA / "queries.jsonl")
        baseline.bm25_run(db, "bm25", k=RUN_DEPTH, fields=["text"])
        baseline.bm25_run(db, "bm25-title", k=RUN_DEPTH, fields=["title", "text"])
        for name in ("bm25", "bm25-title"):
            exports.export_run(db, name, DATA / "runs" / f"{name}.trec")
        db.conn.close()

    lexical = [read_trec_run(DATA / "runs" / f"{n}.trec") for n in ("bm25", "bm25-title")]
    write_trec_run(DATA / "runs" / "fusion.trec", reciprocal_rank_fusion(lexical), "fusion")

    runs = lexical + [read_trec_run(DATA / "runs" / "fusion.trec")]
    pool: dict[str, list[str]] = {}
    for qid in sorted(set().union(*runs)):
        seen: dict[str, None] = {}
        for run in runs:
            for doc in run.get(qid, [])[:POOL_DEPTH]:
                seen.setdefault(doc)
        pool[qid] = sorted(seen)

    labels = simulate_labels(pool, read_intended(DATA / "source" / "intended.tsv"))
    (DATA / "labels").mkdir(exist_ok=True)
    for annotator, rows in labels.items():
        with open(DATA / "labels" / f"{annotator}.qrels", "w", encoding="utf-8") as handle:
            for qid, chunk, grade in rows:
                handle.write(f"{qid} 0 {chunk} {grade}\n")
    pooled = sum(len(v) for v in pool.values())
    print(f"{len(chunks)} chunks, pool of {pooled} pairs, "
          + ", ".join(f"{a}: {len(r)} labels" for a, r in labels.items()))


if __name__ == "__main__":
    main()
