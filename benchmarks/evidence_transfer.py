"""Label transfer measured against answer spans marked by hand, on real text the project did
not write: the manual pages installed here.

Data: ``benchmarks/evidence_scenario/answers.jsonl``, one query per line: the page it is about
(``doc_id``), the query, and its answers, each a quote of the rendered page (found with runs of
whitespace normalised; it must occur once, inside one paragraph) and a grade (2 answers it, 1
helps). The pages are rendered as ``benchmarks/manpage_corpus.py`` does (``man -l -P cat``, 80
columns); the page texts are not committed (man pages have their own licences), their SHA-256
are printed so two runs can be compared.

The old chunking is one chunk per paragraph (blocks between blank lines). Judged pool per query:
the paragraphs holding its answers plus BM25's top 10 paragraphs of all the pages (bm25s); a
paragraph's grade is the highest grade of the answers inside it (0 when none), its evidence the
answers' spans. The labels are imported as a qrels JSON-lines file with evidence (*with
evidence*) or without the ``evidence`` field (*without*), then transferred by
``scorecard``'s own ``transfer_labels`` to three re-chunkings:

- ``words``: windows of 120 words, 12 words overlap, cutting through paragraphs;
- ``sentences``: windows of three sentences (``labeling.synthetic.text.split_sentences``);
- ``sections``: one chunk per section of the page (NAME, DESCRIPTION, OPTIONS...).

Truth for a new chunk and a query: the highest grade of the answer spans it holds whole; a chunk
sharing no character with any answer span is not relevant; one holding part of a span and no
whole span is *partial* (no label on it counts as wrong). Figures per re-chunking and mode:

- ``holders_right``: of the new chunks holding a whole answer span, how many got a label with
  the right grade automatically (exact or inferred);
- ``labels_wrong``: labels written with a grade other than the truth (partial chunks excluded);
- ``relevant_lost``: old relevant judgments whose outcome is ``lost``;
- ``uncovered``: new pairs holding part of a judged relevant paragraph that got neither a label
  nor a place in the review queue;
- the report's new pairs: exact, inferred, review (and hours), not relevant.

Deleted answers: a second version of each page with the answers of every fourth query removed,
chunked by paragraphs again; relevant labels written on chunks holding none of the query's
surviving answers must be 0, and the report must count the invalidated judgments.

    python benchmarks/evidence_transfer.py [--out benchmarks/evidence_scenario/figures.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bm25s
import numpy as np
from manpage_corpus import render

from labeling.files import importers
from labeling.files.text_spans import DocumentText, normalise
from labeling.rechunking import report, transfer
from labeling.rechunking.locate import words
from labeling.synthetic.text import split_sentences
from labeling.workspace.grading import init_workspace

DATA = Path(__file__).resolve().parent / "evidence_scenario"
TABLE = ROOT / "benchmarks" / "results" / "evidence_transfer.md"
# Pages with answers, then pages that only compete for the BM25 pool.
DISTRACTORS = ("tee.1 mkdir.1 touch.1 uniq.1 wc.1 seq.1 sleep.1 env.1 stat.1 cp.1 mv.1 cut.1 "
               "tr.1 hosts.5 nice.1 df.1").split()
POOL = 10
WINDOW_WORDS, WINDOW_OVERLAP, WINDOW_SENTENCES = 120, 12, 3
DELETE_EVERY = 4
HEADING = re.compile(r"^[A-Z][A-Z0-9 ,/&()'-]*$", re.MULTILINE)

Span = tuple[int, int]


@dataclass(frozen=True)
class Answer:
    query_id: str
    doc_id: str
    start: int
    end: int
    grade: int


def load_queries() -> list[dict]:
    return [json.loads(line) for line in (DATA / "answers.jsonl").read_text().splitlines()]


def page_texts(doc_ids: list[str]) -> dict[str, str]:
    texts = {}
    for doc_id in doc_ids:
        section = doc_id.rsplit(".", 1)[1]
        texts[doc_id] = render(Path(f"/usr/share/man/man{section}/{doc_id}.gz"))
        if not texts[doc_id]:
            raise SystemExit(f"{doc_id}: the manual page does not render here")
    return texts


def strip(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def paragraphs(text: str) -> list[Span]:
    """Blocks between blank lines, trimmed."""
    cuts = [0] + [m.end() for m in re.finditer(r"\n[ \t]*\n", text)] + [len(text)]
    spans = [strip(text, a, b) for a, b in zip(cuts, cuts[1:], strict=False)]
    return [(a, b) for a, b in spans if b > a]


def word_windows(text: str) -> list[Span]:
    found = [m.span() for m in re.finditer(r"\S+", text)]
    step = WINDOW_WORDS - WINDOW_OVERLAP
    return [(found[i][0], found[min(i + WINDOW_WORDS, len(found)) - 1][1])
            for i in range(0, max(len(found) - WINDOW_OVERLAP, 1), step)]


def sentence_windows(text: str) -> list[Span]:
    found = split_sentences(text)
    return [(found[i][0], found[min(i + WINDOW_SENTENCES, len(found)) - 1][1])
            for i in range(0, len(found), WINDOW_SENTENCES)]


def sections(text: str) -> list[Span]:
    starts = [m.start() for m in HEADING.finditer(text)] or [0]
    starts = [0] + [s for s in starts if s > 0]
    spans = [strip(text, a, b) for a, b in zip(starts, starts[1:] + [len(text)], strict=True)]
    return [(a, b) for a, b in spans if b > a]


CHUNKINGS = {"words": word_windows, "sentences": sentence_windows, "sections": sections}


def find_answers(queries: list[dict], texts: dict[str, str]) -> list[Answer]:
    """Each quote's one place in its page (whitespace normalised), or exit naming it."""
    located = {doc_id: DocumentText(text) for doc_id, text in texts.items()}
    answers = []
    for query in queries:
        for answer in query["answers"]:
            text = texts[query["doc_id"]]
            if normalise(text).count(normalise(answer["quote"])) != 1:
                raise SystemExit(f"{query['query_id']}: quote not found once: {answer['quote']!r}")
            start, end = located[query["doc_id"]].locate(answer["quote"])
            answers.append(Answer(query["query_id"], query["doc_id"], start, end,
                                  int(answer["grade"])))
    return answers


def old_judgments(queries, texts, chunks, answers) -> list[dict]:
    """The judged pool: answer paragraphs and BM25's top ``POOL`` paragraphs, per query."""
    ids = list(chunks)
    index = bm25s.BM25()
    index.index([words(texts[d][a:b]) or ["\x00"] for d, a, b in chunks.values()],
                show_progress=False)
    rows, crossing = [], []
    for query in queries:
        mine = [x for x in answers if x.query_id == query["query_id"]]
        holding = {}
        for chunk_id, (doc_id, a, b) in chunks.items():
            inside = [x for x in mine if x.doc_id == doc_id and a <= x.start and x.end <= b]
            if inside:
                holding[chunk_id] = inside
        if sum(len(v) for v in holding.values()) != len(mine):
            crossing.append(query["query_id"])
            continue
        known = [w for w in words(query["query"]) if w in index.vocab_dict]
        scores = index.get_scores(known)
        pool = set(holding) | {ids[i] for i in np.argsort(-scores, kind="stable")[:POOL]}
        for chunk_id in sorted(pool):
            inside = holding.get(chunk_id, [])
            row = {"query_id": query["query_id"], "doc_id": chunk_id,
                   "relevance": max((x.grade for x in inside), default=0)}
            if inside:
                row["evidence"] = [{"start": x.start, "end": x.end}
                                   for x in sorted(inside, key=lambda x: x.start)]
            rows.append(row)
    if crossing:
        raise SystemExit(f"answers crossing a paragraph boundary: {', '.join(crossing)}")
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def chunk_rows(name: str, texts: dict[str, str], spans: dict[str, list[Span]]) -> list[dict]:
    return [{"id": f"{name}:{doc_id}:{n}", "doc_id": doc_id, "start": a, "end": b,
             "text": texts[doc_id][a:b]}
            for doc_id in sorted(spans) for n, (a, b) in enumerate(spans[doc_id], 1)]


def workspace(folder: Path, texts, queries, qrels, with_evidence: bool, sets: dict):
    """A new workspace with the pages, the queries, the old chunk set and its labels, and the
    chunk sets ``sets`` (name -> rows)."""
    db = init_workspace(folder / "scenario.db", scale="graded")
    importers.import_documents(db, write_jsonl(folder / "docs.jsonl", [
        {"id": d, "text": t} for d, t in texts.items()]))
    importers.import_queries(db, write_jsonl(folder / "queries.jsonl", [
        {"id": q["query_id"], "text": q["query"]} for q in queries]))
    for name, rows in sets.items():
        importers.import_chunk_set(db, write_jsonl(folder / f"{name}.jsonl", rows), name)
    labels = qrels if with_evidence else [{k: v for k, v in r.items() if k != "evidence"}
                                          for r in qrels]
    importers.import_qrels(db, write_jsonl(folder / "labels.jsonl", labels), annotator="expert")
    return db


def truth(answers: list[Answer], query_id: str, doc_id: str, a: int, b: int) -> int | str:
    """The grade a chunk ``[a, b)`` of ``doc_id`` deserves for the query, or ``'partial'``."""
    mine = [x for x in answers if x.query_id == query_id and x.doc_id == doc_id]
    whole = [x.grade for x in mine if a <= x.start and x.end <= b]
    if whole:
        return max(whole)
    return "partial" if any(x.start < b and a < x.end for x in mine) else 0


def measure(db, name: str, answers: list[Answer], relevant_old: dict) -> dict:
    """The figures of one transfer (see the module docstring)."""
    spans = {cid: (d, a, b) for cid, d, a, b in db.conn.execute(
        "SELECT p.chunk_id, p.doc_id, p.start, p.\"end\" FROM chunk_spans p"
        " JOIN chunk_set_members m ON m.chunk_id = p.chunk_id WHERE m.chunk_set = ?", [name])}
    labels = {(q, c): g for q, c, g in db.conn.execute(
        "SELECT query_id, chunk_id, max(grade) FROM judgments WHERE origin = 'transferred'"
        " AND origin_source = 'paragraphs' GROUP BY query_id, chunk_id")}
    labels = {k: g for k, g in labels.items() if k[1] in spans}
    queued = {(q, c) for q, c in db.conn.execute(
        "SELECT s.query_id, s.chunk_id FROM transfer_suggestions s JOIN label_transfers t"
        " ON t.id = s.transfer_id WHERE t.to_set = ?", [name])}
    holders = right = 0
    for query_id in sorted({x.query_id for x in answers}):
        for chunk_id, (doc_id, a, b) in spans.items():
            grade = truth(answers, query_id, doc_id, a, b)
            if isinstance(grade, int) and grade > 0:
                holders += 1
                right += labels.get((query_id, chunk_id)) == grade
    wrong = [k for k, g in labels.items() if truth(answers, k[0], *spans[k[1]]) not in (g,
                                                                                      "partial")]
    uncovered = 0
    for (query_id, doc_id), old_spans in relevant_old.items():
        for chunk_id, (d, a, b) in spans.items():
            if d == doc_id and any(s < b and a < e for s, e in old_spans) and (
                    query_id, chunk_id) not in labels and (query_id, chunk_id) not in queued:
                uncovered += 1
    card = report.transfer_report(db, "paragraphs", name)
    lost = db.conn.execute(
        "SELECT count(*) FROM transfer_sources s JOIN judgments j ON j.id = s.judgment_id"
        " JOIN label_transfers t ON t.id = s.transfer_id WHERE t.to_set = ? AND j.grade >= 1"
        " AND s.outcome = 'lost'", [name]).fetchone()[0]
    return {
        "chunks": len(spans), "holders": holders, "holders_right": right,
        "holders_right_share": round(right / holders, 4) if holders else None,
        "labels_written": len(labels), "labels_wrong": len(wrong),
        "wrong": [{"query_id": q, "chunk_id": c, "grade": labels[(q, c)],
                   "truth": truth(answers, q, *spans[c])} for q, c in sorted(wrong)],
        "labels_wrong_share": round(len(wrong) / len(labels), 4) if labels else None,
        "relevant_lost": int(lost), "uncovered": uncovered,
        "new_pairs": card.to_dict()["new_pairs"], "review_hours": round(card.review_hours, 2),
        "invalidated": card.invalidated, "headline": card.headline(),
    }


def relevant_paragraphs(qrels: list[dict], chunks: dict) -> dict:
    out: dict = {}
    for row in qrels:
        if row["relevance"] >= 1:
            doc_id, a, b = chunks[row["doc_id"]]
            out.setdefault((row["query_id"], doc_id), []).append((a, b))
    return out


def deleted_version(texts, answers, queries) -> tuple[dict[str, str], set[str], list[Answer]]:
    """Pages with the answers of every ``DELETE_EVERY``-th query removed; the queries hit; the
    surviving answers at their new offsets."""
    hit = {q["query_id"] for i, q in enumerate(queries) if i % DELETE_EVERY == 0}
    new_texts, surviving = {}, []
    for doc_id, text in texts.items():
        gone = sorted((x for x in answers if x.doc_id == doc_id and x.query_id in hit),
                      key=lambda x: x.start)
        pieces, at = [], 0
        for x in gone:
            pieces.append(text[at:max(at, x.start)])
            at = max(at, x.end)
        new_texts[doc_id] = "".join(pieces) + text[at:]
        for x in answers:
            if x.doc_id == doc_id and x.query_id not in hit:
                quote = text[x.start:x.end]
                start = new_texts[doc_id].find(quote)
                surviving.append(Answer(x.query_id, doc_id, start, start + len(quote), x.grade))
    return new_texts, hit, surviving


def run_deletion(folder, texts, queries, qrels, answers, with_evidence: bool) -> dict:
    new_texts, hit, surviving = deleted_version(texts, answers, queries)
    db = workspace(folder, texts, queries, qrels, with_evidence,
                   {"paragraphs": chunk_rows("paragraphs", texts, {
                       d: paragraphs(t) for d, t in texts.items()})})
    importers.import_documents(db, write_jsonl(folder / "docs2.jsonl", [
        {"id": d, "text": t} for d, t in new_texts.items()]))
    importers.import_chunk_set(db, write_jsonl(folder / "v2.jsonl", chunk_rows(
        "v2", new_texts, {d: paragraphs(t) for d, t in new_texts.items()})), "v2")
    transfer.transfer_labels(db, "paragraphs", "v2")
    spans = {cid: (d, a, b) for cid, d, a, b in db.conn.execute(
        "SELECT p.chunk_id, p.doc_id, p.start, p.\"end\" FROM chunk_spans p"
        " JOIN chunk_set_members m ON m.chunk_id = p.chunk_id WHERE m.chunk_set = 'v2'")}
    relevant = [(q, c, g) for q, c, g in db.conn.execute(
        "SELECT query_id, chunk_id, grade FROM judgments WHERE origin = 'transferred'"
        " AND grade >= 1") if c in spans]
    without_answer = [r for r in relevant if truth(surviving, r[0], *spans[r[1]]) in (0,)]
    card = report.transfer_report(db, "paragraphs", "v2")
    deleted_judgments = sum(1 for r in qrels if r["relevance"] >= 1 and r["query_id"] in hit)
    db.close()
    return {"queries_hit": len(hit), "relevant_judgments_of_deleted_answers": deleted_judgments,
            "relevant_labels_without_a_surviving_answer": len(without_answer),
            "invalidated": card.invalidated, "invalidated_queries": len(card.invalidated_queries),
            "outcomes": card.outcomes, "headline": card.headline()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA / "figures.json")
    args = parser.parse_args()
    queries = load_queries()
    pages = sorted({q["doc_id"] for q in queries}) + DISTRACTORS
    texts = page_texts(pages)
    answers = find_answers(queries, texts)
    old = {d: paragraphs(t) for d, t in texts.items()}
    old_rows = chunk_rows("paragraphs", texts, old)
    chunks = {r["id"]: (r["doc_id"], r["start"], r["end"]) for r in old_rows}
    qrels = old_judgments(queries, texts, chunks, answers)
    relevant_old = relevant_paragraphs(qrels, chunks)
    figures: dict = {
        "pages": len(texts), "queries": len(queries), "answer_spans": len(answers),
        "old_chunks": len(old_rows), "judgments": len(qrels),
        "relevant_judgments": sum(r["relevance"] >= 1 for r in qrels),
        "page_sha256": {d: hashlib.sha256(t.encode()).hexdigest()[:12]
                        for d, t in sorted(texts.items())},
        "transfers": {}, "deleted_answers": {},
    }
    for mode in ("with evidence", "without evidence"):
        for name, chunker in CHUNKINGS.items():
            with tempfile.TemporaryDirectory() as tmp:
                rows = chunk_rows(name, texts, {d: chunker(t) for d, t in texts.items()})
                db = workspace(Path(tmp), texts, queries, qrels, mode == "with evidence",
                               {"paragraphs": old_rows, name: rows})
                transfer.transfer_labels(db, "paragraphs", name)
                figures["transfers"].setdefault(mode, {})[name] = measure(
                    db, name, answers, relevant_old)
                db.close()
        with tempfile.TemporaryDirectory() as tmp:
            figures["deleted_answers"][mode] = run_deletion(
                Path(tmp), texts, queries, qrels, answers, mode == "with evidence")
    args.out.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n")
    table = "\n".join(table_lines(figures)) + "\n"
    TABLE.write_text(table, encoding="utf-8")  # included by docs/chunking.md as written
    print(table, end="")


def table_lines(figures: dict) -> list[str]:
    """The scenario's figures as Markdown: a summary line, the table, the deleted answers."""
    lines = []
    print = lines.append  # noqa: A001 - the table's lines, written as the script prints them
    print(f"{figures['pages']} pages, {figures['queries']} queries, {figures['answer_spans']} "
          f"answer spans, {figures['old_chunks']} paragraphs, {figures['judgments']} judgments "
          f"({figures['relevant_judgments']} relevant)")
    print("")
    print("| labels | new chunk set | chunks | holders of a whole answer: right grade "
          "| labels written | wrong | relevant lost | uncovered | exact | inferred | review "
          "(hours) | not relevant |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode, sets in figures["transfers"].items():
        for name, f in sets.items():
            p = f["new_pairs"]
            print(f"| {mode} | {name} | {f['chunks']} | {f['holders_right']} of {f['holders']} "
                  f"({f['holders_right_share']:.1%}) | {f['labels_written']} | "
                  f"{f['labels_wrong']} ({f['labels_wrong_share']:.1%}) | {f['relevant_lost']} | "
                  f"{f['uncovered']} | {p['exact']} | {p['inferred']} | {p['review']} "
                  f"({f['review_hours']}) | {p['not_relevant']} |")
    print("")
    for mode, f in figures["deleted_answers"].items():
        print(f"- deleted answers, {mode}: {f['queries_hit']} queries hit, "
              f"{f['relevant_judgments_of_deleted_answers']} relevant judgments of them; relevant "
              f"labels on chunks without a surviving answer: "
              f"{f['relevant_labels_without_a_surviving_answer']}; invalidated "
              f"{f['invalidated']} on {f['invalidated_queries']} queries")
    return lines


if __name__ == "__main__":
    main()
