"""Print 20 random outputs of the offline question generator on the demo corpus, as Markdown,
with the share of sampled chunks that get a well-formed question, the round-trip share at k=10
and the median word overlap with the source passage (for the README; not tuning targets).

    python scripts/synthetic_examples.py [--seed 0] [--n 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

from labeling.files.demo import build_demo
from labeling.synthetic import offline, quality, sampling
from labeling.workspace.store import open_workspace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "demo.db"
        build_demo(path)
        db = open_workspace(path)
        chunks = sampling.sample_chunks(db, 10_000, seed=args.seed, min_words=1)
        all_chunks = db.conn.execute("SELECT count(*) FROM chunks WHERE placeholder = 0")
        total = all_chunks.fetchone()[0]
        good = []
        for chunk in chunks:
            found = [c for c in offline.generate(chunk.id, chunk.text, title=chunk.title)
                     if c.well_formed]
            good.extend((chunk, c) for c in found)
        covered = len({chunk.id for chunk, _ in good})
        index = quality.Bm25Index(db)
        trips = index.round_trip([c.question for _, c in good], [c.chunk_id for _, c in good])
        overlaps = [quality.overlap(c.question, chunk.text) for chunk, c in good]
        rng = random.Random(args.seed)
        print("| question | form | answer span | chunk |")
        print("|---|---|---|---|")
        for chunk, cand in rng.sample(good, min(args.n, len(good))):
            cells = [cand.question, cand.form, " ".join(cand.answer.split()), chunk.id]
            print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        print()
        print(f"- chunks with at least one well-formed question: {covered} of {total} "
              f"({covered / total:.0%})")
        print(f"- well-formed questions: {len(good)}")
        print(f"- round trip (source chunk in BM25's top 10): "
              f"{sum(t.rank is not None for t in trips) / len(trips):.0%}")
        print(f"- median word overlap with the source passage: {statistics.median(overlaps):.2f}")
        db.conn.close()


if __name__ == "__main__":
    main()
