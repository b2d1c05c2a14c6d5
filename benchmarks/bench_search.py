"""Corpus search over a large workspace: the top 20 chunks for a query, and what indexing costs
the chunk import.

    python benchmarks/bench_search.py [--chunks 1000000] [--repeat 3] [--keep DIR]

The corpus is generated (seeded): words drawn from a Zipf law (exponent 1.0) over a vocabulary
whose first ranks are the real words of the demo knowledge base (``data/``) in the order of
their frequency there (so "the", "to", "and" lead, then its content words), extended with
generated words to 60,000; chunks of 40-160 words (90 on average) with 3-8 word titles, eight
chunks per document. Queries: the demo's 46 query texts (their words are real words of that
vocabulary) and 200 generated ones of 3-8 words drawn from the same law without its 100 most
frequent words (typed queries name content words).

Import: the same JSON lines file imported with ``labeling.files.importers.import_chunks`` into
a new workspace with the search index (its triggers index each chunk in the import's
transaction), and into one whose index triggers are dropped first; the difference is what
indexing costs. The product then merges the index (``labeling.workspace.search_index``: an
import of a tenth of the chunks or more ends with an FTS5 ``optimize``); here that step is held
back and timed on its own, so that searches can be timed on the index as the triggers leave it
and after the merge. Search: ``labeling.judging.corpus_search.search(db, text, 20)`` on a fresh
connection, one warm-up pass over all queries, then ``--repeat`` passes; every timing counts in
the median; "a word left out" is the share of searches that left a word out as held by too many
chunks (``Results.left_out``). Prints markdown.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labeling.files import importers  # noqa: E402
from labeling.judging import corpus_search  # noqa: E402
from labeling.workspace import grading, search_index, store  # noqa: E402

VOCABULARY = 60_000
LEFT_OUT: dict[str, float] = {}  # query set -> share of searches that left a word out
WORDS = re.compile(r"[a-z]+")
BATCH = 20_000


def vocabulary() -> list[str]:
    """The demo's words by frequency in its chunks, then generated words."""
    counts: collections.Counter[str] = collections.Counter()
    for line in (ROOT / "data" / "chunks.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        counts.update(WORDS.findall(f"{record.get('title', '')} {record['text']}".lower()))
    real = [w for w, _ in counts.most_common()]
    made = (f"{a}{b}{c}x" for a in "bcdfghklmnprstvz" for b in "aeiou" for c in range(1000))
    return (real + [w for w in made if w not in counts])[:VOCABULARY]


def zipf(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1)
    return weights / weights.sum()


def write_corpus(path: Path, chunks: int, words: list[str], seed: int = 11) -> None:
    rng = np.random.default_rng(seed)
    vocab = np.array(words, dtype=object)
    p = zipf(len(words))
    with open(path, "w", encoding="utf-8") as handle:
        for start in range(0, chunks, BATCH):
            size = min(BATCH, chunks - start)
            lengths = rng.integers(40, 161, size=size)
            drawn = vocab[rng.choice(len(words), size=int(lengths.sum()), p=p)]
            titles = vocab[rng.choice(len(words), size=(size, 8), p=p)]
            cut = np.concatenate([[0], np.cumsum(lengths)])
            for i in range(size):
                n = start + i
                handle.write(json.dumps({
                    "id": f"c{n:07d}", "doc_id": f"d{n // 8:06d}",
                    "title": " ".join(titles[i, : 3 + n % 6]),
                    "text": " ".join(drawn[cut[i]:cut[i + 1]]),
                }) + "\n")


def queries(words: list[str], seed: int = 5) -> dict[str, list[str]]:
    demo = [json.loads(line)["text"] for line in
            (ROOT / "data" / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    rng = np.random.default_rng(seed)
    p = zipf(len(words))
    p[:100] = 0
    p /= p.sum()
    made = [" ".join(words[i] for i in rng.choice(len(words), size=rng.integers(3, 9), p=p))
            for _ in range(200)]
    return {"demo queries (46)": demo, "generated queries (200)": made}


def timed_import(path: Path, corpus: Path, *, index: bool) -> tuple[float, int]:
    search_index.OPTIMIZE_SHARE = float("inf")  # the merge is timed on its own (docstring)
    db = grading.init_workspace(path)
    if not index:
        for trigger in ("insert", "delete", "update"):
            db.conn.execute(f"DROP TRIGGER chunk_search_{trigger}")
    started = time.perf_counter()
    result = importers.import_chunks(db, corpus)
    seconds = time.perf_counter() - started
    db.close()
    return seconds, result.rows


def index_bytes(path: Path) -> int:
    db = store.open_workspace(path, create=False)
    size = db.conn.execute("SELECT coalesce(sum(length(block)), 0) FROM chunk_search_data"
                           ).fetchone()[0]
    db.close()
    return int(size)


def time_searches(path: Path, sets: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    db = store.open_workspace(path, create=False)
    out = {}
    for name, texts in sets.items():
        left_out = sum(bool(corpus_search.search(db, text, 20).left_out)
                       for text in texts)  # warm-up
        LEFT_OUT[name] = left_out / len(texts)
        timings = []
        for _ in range(repeat):
            for text in texts:
                started = time.perf_counter()
                hits = corpus_search.search(db, text, 20).hits
                timings.append(time.perf_counter() - started)
                assert len(hits) <= 20
        out[name] = timings
    db.close()
    return out


def row(name: str, timings: list[float], left_out: float) -> str:
    ms = np.array(timings) * 1000
    return (f"| {name} | {statistics.median(ms):.1f} | {np.percentile(ms, 90):.1f} | "
            f"{ms.max():.1f} | {len(ms)} | {left_out:.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the corpus and workspaces here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        words = vocabulary()
        corpus = folder / "chunks.jsonl"
        started = time.perf_counter()
        write_corpus(corpus, args.chunks, words)
        print(f"corpus: {args.chunks:,} chunks, {corpus.stat().st_size / 1e6:.0f} MB, written in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        plain, _ = timed_import(folder / "plain.db", corpus, index=False)
        print(f"import without the index: {plain:.0f} s", flush=True)
        indexed, rows = timed_import(folder / "indexed.db", corpus, index=True)
        print(f"import with the index: {indexed:.0f} s", flush=True)
        size = index_bytes(folder / "indexed.db")
        sets = queries(words)
        before = time_searches(folder / "indexed.db", sets, args.repeat)
        left_before = dict(LEFT_OUT)
        db = store.open_workspace(folder / "indexed.db", create=False)
        started = time.perf_counter()
        db.conn.execute("INSERT INTO chunk_search (chunk_search) VALUES ('optimize')")
        optimize = time.perf_counter() - started
        db.close()
        after = time_searches(folder / "indexed.db", sets, args.repeat)

        print(f"\n### Import of {rows:,} chunks\n")
        print("| import | seconds | chunks/s |\n|---|---:|---:|")
        print(f"| without the search index | {plain:.1f} | {rows / plain:,.0f} |")
        print(f"| with the search index | {indexed:.1f} | {rows / indexed:,.0f} |")
        print(f"\nIndexing costs {indexed - plain:.1f} s ({indexed / plain:.2f}× the import "
              f"without it), and merging the index at the end of the import {optimize:.1f} s "
              f"more; the index holds {size / 1e6:.0f} MB.")
        print(f"\n### Top 20 over {rows:,} chunks (ms, {args.repeat} passes)\n")
        print("| queries | median | p90 | max | searches | a word left out |\n"
              "|---|---:|---:|---:|---:|---:|")
        for name in sets:
            print(row(f"{name}, index as the triggers leave it", before[name],
                      left_before[name]))
        for name in sets:
            print(row(f"{name}, index merged (as imported)", after[name], LEFT_OUT[name]))


if __name__ == "__main__":
    main()
