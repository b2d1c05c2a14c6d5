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
        "the Review page, scored and ordered by their quality score, in the team's mix of "
        "question forms. The offline generator needs no network; --generator llm calls a "
        "stored model server (--connection NAME, see scorecard connection) or the "
        "OpenAI-compatible server named by SCORECARD_LLM_BASE_URL and SCORECARD_LLM_MODEL "
        "(key: SCORECARD_LLM_API_KEY) with the team's domain and persona, two calls a "
        "passage (the questions and a critic), and prints the calls and an estimate of "
        "tokens before it starts. --resume BATCH sends the passages of an interrupted LLM "
        "batch that are not done. --import-llamaindex FILE or --import-ragas FILE queues an "
        "existing test set instead.",
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
    parser.add_argument("--connection", metavar="NAME",
                        help="a stored model server for --generator llm (scorecard connection)")
    parser.add_argument("--max-calls", type=int, metavar="N",
                        help="call cap of this LLM batch (default: the team's setting)")
    parser.add_argument("--estimate", action="store_true",
                        help="print the calls and tokens of the LLM batch and stop")
    parser.add_argument("--resume", metavar="BATCH", help="resume an interrupted LLM batch")
    parser.add_argument("--import-llamaindex", metavar="FILE",
                        help="queue a LlamaIndex question/corpus/relevant_docs JSON file")
    parser.add_argument("--import-ragas", metavar="FILE", help="queue a RAGAS test set")


def _progress(done: int, total: int) -> None:
    print(f"scorecard: passage {done} of {total} done", file=sys.stderr)


def run_generate(args: argparse.Namespace) -> int:
    # Imported here: generating pulls in bm25s and scipy, which other commands do not need.
    from labeling.model_calls import chat
    from labeling.synthetic import batches, importers, llm
    from labeling.synthetic.settings import get_settings
    from labeling.workspace import connections
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.import_llamaindex or args.import_ragas:
        if args.import_llamaindex:
            print(importers.import_llamaindex(db, args.import_llamaindex).summary())
        if args.import_ragas:
            print(importers.import_ragas(db, args.import_ragas).summary())
        return 0
    client = None
    if args.generator == "llm" or args.resume:
        cap = args.max_calls or int(get_settings(db)["llm_max_calls"])
        if args.connection:
            connection = connections.get_connection(db, connections.MODEL_SERVER,
                                                    args.connection)
            cap = args.max_calls or min(cap, connection.call_ceiling)
            client = batches.client_for(db, chat.client_for(connection, cls=llm.LlmClient,
                                                            max_calls=cap))
        else:
            client = batches.client_for(db, llm.LlmClient.from_env(max_calls=cap))
    if args.resume:
        result = batches.resume(db, args.resume, client=client, progress=_progress)
        return _report(db, result, f"resumed batch {args.resume}", args.k)
    if args.generator == "llm":
        estimate = batches.estimate(db, args.sample, per_chunk=args.per_chunk, seed=args.seed,
                                    strategy=args.strategy, segment=args.segment,
                                    client=client)
        print(f"the LLM batch sends {estimate.sentence()}")
        if args.estimate:
            return 0
    result = batches.run(
        db, args.sample, generator=args.generator, seed=args.seed, strategy=args.strategy,
        segment=args.segment, per_chunk=args.per_chunk, k=args.k, client=client,
        progress=_progress if args.generator == "llm" else None,
    )
    what = f"{args.sample} sampled passages ({args.generator}, seed {args.seed})"
    return _report(db, result, what, args.k)


def _report(db, result, what: str, k: int) -> int:
    """Print the errors, one summary line, then what the review queue will show of the batch:
    how many the quality floor hides and the share expected to be accepted as written; exit
    status 1 when nothing was queued and something failed."""
    from labeling.synthetic import review

    for message in result.errors:
        print(f"scorecard: {message}", file=sys.stderr)
    frame = review.candidates_frame(db)
    mine = frame[frame["id"].isin(result.ids)]
    share = float(mine["roundtrip"].mean()) if len(mine) else 0.0
    line = (f"queued {len(result.ids)} candidates from {what} as batch {result.batch}; "
            f"round trip at k={k}: {share:.0%}")
    if result.calls:
        line += f"; {result.calls} calls"
    if result.unmatched:
        line += (f"; {result.unmatched} replies whose answer is not in the passage were not "
                 "queued (shown on the Review page)")
    print(line)
    if result.coverage_sentence():
        print(result.coverage_sentence())
    from labeling.synthetic import settings

    shown, hidden = review.review_queue(db, mine)
    for note in (review.floor_sentence(hidden, settings.get_settings(db)["quality_floor"]),
                 review.expected_sentence(shown, db)):
        if note:
            print(note.replace(" (Settings, below, changes the floor)", ""))
    return 1 if result.errors and not result.ids else 0
