"""``scorecard generate``: synthetic question candidates from sampled passages, for review."""

from __future__ import annotations

import argparse
import sys

from labeling.commands import add_command
from labeling.synthetic import STRATEGIES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the generate command."""
    parser = add_command(
        subparsers, "generate",
        "generate synthetic questions from sampled passages into the review queue",
        "Sample passages (seeded), write questions they answer and queue them for review on "
        "the Review page with their quality signals (word overlap, near-duplicates, length, "
        "BM25 round trip). The offline generator needs no network; --generator llm calls "
        "the OpenAI-compatible server named by SCORECARD_LLM_BASE_URL and "
        "SCORECARD_LLM_MODEL (key: SCORECARD_LLM_API_KEY). --import-llamaindex FILE or "
        "--import-ragas FILE queues an existing test set instead.",
        run_generate,
    )
    parser.add_argument("--sample", type=int, default=20, metavar="N",
                        help="passages to sample (default 20)")
    parser.add_argument("--generator", choices=("offline", "llm"), default="offline")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--strategy", choices=STRATEGIES, default="random",
                        help="random, stratified by document, or by segment (--segment)")
    parser.add_argument("--segment", metavar="ATTRIBUTE", help="attribute for --strategy segment")
    parser.add_argument("--per-chunk", type=int, default=2, metavar="N",
                        help="questions per passage at most (default 2)")
    parser.add_argument("--k", type=int, default=10, help="round-trip cutoff (default 10)")
    parser.add_argument("--import-llamaindex", metavar="FILE",
                        help="queue a LlamaIndex question/corpus/relevant_docs JSON file")
    parser.add_argument("--import-ragas", metavar="FILE", help="queue a RAGAS test set")


def run_generate(args: argparse.Namespace) -> int:
    # Imported here: generating pulls in bm25s and scipy, which other commands do not need.
    from labeling.synthetic import importers, review
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.import_llamaindex or args.import_ragas:
        if args.import_llamaindex:
            print(importers.import_llamaindex(db, args.import_llamaindex).summary())
        if args.import_ragas:
            print(importers.import_ragas(db, args.import_ragas).summary())
        return 0
    ids, errors = review.generate(
        db, args.sample, generator=args.generator, seed=args.seed, strategy=args.strategy,
        segment=args.segment, per_chunk=args.per_chunk, k=args.k,
    )
    for message in errors:
        print(f"scorecard: {message}", file=sys.stderr)
    frame = review.candidates_frame(db)
    mine = frame[frame["id"].isin(ids)]
    share = float(mine["roundtrip"].mean()) if len(mine) else 0.0
    print(f"queued {len(ids)} candidates from {args.sample} sampled passages "
          f"({args.generator}, seed {args.seed}); round trip at k={args.k}: {share:.0%}")
    return 1 if errors and not ids else 0
