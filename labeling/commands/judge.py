"""``scorecard judge DB ...``: machine judges from the command line, as on the Machine judges page.

    scorecard judge DB run --model M (--runs A,B [--k 10] | --queue) [--prompt v1] [--plan]
    scorecard judge DB resume BATCH [--max-calls N] [--set-aside-after N]
    scorecard judge DB batches
    scorecard judge DB failures [--batch BATCH]
    scorecard judge DB audit --judge M@v1 --budget 200 --runs A,B [--segment topic]
    scorecard judge DB estimate --sample ID --run A [--baseline B] [-m nDCG@10] [--segment topic]
    scorecard judge DB agreement --judge M@v1 [--runs A,B] [--compare M@v2]
"""

from __future__ import annotations

import argparse
import os
import sys

from labeling.commands import add_command, add_consensus_option

ACTIONS_HELP = (
    "Grade (query, chunk) pairs with a language model over an OpenAI-compatible server "
    "(a stored connection, --connection NAME; or SCORECARD_LLM_BASE_URL, SCORECARD_LLM_MODEL, "
    "SCORECARD_LLM_API_KEY, or --base-url and --model), list the pairs that failed with their "
    "raw replies, draw an audit sample for people to verify, and see how far the machine's "
    "labels can be trusted: prediction-powered estimates, agreement with people."
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "judge", "machine judges: label, audit, estimate",
                         ACTIONS_HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    _register_run(actions)

    _register_batch_actions(actions)

    audit = actions.add_parser("audit", help="draw an audit sample for people to verify")
    audit.add_argument("--judge", required=True, metavar="MODEL@VERSION")
    audit.add_argument("--budget", type=int, required=True,
                       help="number of pairs to verify (exactly)")
    audit.add_argument("--runs", required=True,
                       help="comma-separated runs whose ranks weigh the pairs")
    audit.add_argument("--relevance", type=int, default=1,
                       help="relevance threshold the weights favour (default 1)")
    audit.add_argument("--segment", metavar="ATTRIBUTE", help="share the budget by segment")
    audit.add_argument("--seed", type=int, default=0)
    audit.set_defaults(handler=run_audit)

    estimate = actions.add_parser("estimate", help="people-only, machine-only and "
                                  "prediction-powered estimates from an audit sample")
    estimate.add_argument("--sample", type=int, required=True, help="audit sample id")
    estimate.add_argument("--run", required=True, metavar="NAME")
    estimate.add_argument("--baseline", metavar="NAME", help="estimate run minus baseline")
    estimate.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE")
    estimate.add_argument("--segment", metavar="ATTRIBUTE")
    estimate.add_argument("--relevance", type=int, default=1)
    estimate.add_argument("--format", choices=("table", "csv", "json"), default="table")
    add_consensus_option(estimate)
    estimate.set_defaults(handler=run_estimate)

    agreement = actions.add_parser("agreement", help="a judge's agreement with people")
    agreement.add_argument("--judge", required=True, metavar="MODEL@VERSION")
    agreement.add_argument("--segment", metavar="ATTRIBUTE")
    agreement.add_argument("--runs", help="comma-separated runs for the ranking agreement")
    agreement.add_argument("-m", "--measure", default="nDCG@10",
                           help="measure the runs are ranked by (default nDCG@10)")
    agreement.add_argument("--compare", metavar="MODEL@VERSION",
                           help="another judge, compared on the same pairs")
    add_consensus_option(agreement)
    agreement.set_defaults(handler=run_agreement)


def _register_run(actions: argparse._SubParsersAction) -> None:
    """``scorecard judge run``: judge a pair set as a new batch."""
    run = actions.add_parser("run", help="judge a pair set (a new batch)")
    _server_options(run)
    run.add_argument("--prompt", default="v2",
                     help="prompt version in prompts/ (relevance_judge_VERSION.md) or a file")
    run.add_argument("--temperature", type=float, default=0.0)
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--runs", help="comma-separated runs whose top k are judged (the pool)")
    which.add_argument("--queue", action="store_true", help="the pairs open in the label queue")
    run.add_argument("--unjudged", action="store_true",
                     help="with --runs: only the pairs people have not judged")
    run.add_argument("--k", type=int, default=10, help="pool depth (default 10)")
    run.add_argument("--split", choices=("dev", "test"), help="only this split's queries")
    run.add_argument("--segment", metavar="ATTRIBUTE=VALUE[,VALUE]",
                     help="only the queries whose attribute takes one of the values")
    run.add_argument("--plan", action="store_true", help="print the plan and cost, judge nothing")
    run.add_argument("--price-prompt", type=float, default=0.0, metavar="PER_MILLION",
                     help="price of a million prompt tokens, for the cost estimate")
    run.add_argument("--price-reply", type=float, default=0.0, metavar="PER_MILLION",
                     help="price of a million reply tokens, for the cost estimate")
    run.set_defaults(handler=run_judge)


def _register_batch_actions(actions: argparse._SubParsersAction) -> None:
    """resume, batches and failures."""
    resume = actions.add_parser("resume", help="continue a batch's pending pairs")
    resume.add_argument("batch", type=int)
    _server_options(resume, model=False)
    resume.set_defaults(handler=run_resume)

    listing = actions.add_parser("batches", help="list the batches and their progress")
    listing.set_defaults(handler=run_batches)

    failures = actions.add_parser("failures", help="the pairs that failed, with their raw "
                                  "replies (escaped), pending or set aside")
    failures.add_argument("--batch", type=int, help="only this batch")
    failures.set_defaults(handler=run_failures)


def _server_options(parser: argparse.ArgumentParser, model: bool = True) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--connection", metavar="NAME",
                       help="a stored model-server connection (scorecard connection)")
    where.add_argument("--base-url", help="OpenAI-compatible server, e.g. "
                       "http://127.0.0.1:8080/v1 (default: $SCORECARD_LLM_BASE_URL)")
    if model:
        parser.add_argument("--model", help="model name (default: $SCORECARD_LLM_MODEL)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a whole call may take (default 60)")
    parser.add_argument("--max-calls", type=int, help="stop after this many requests")
    parser.add_argument("--set-aside-after", type=int, default=3, metavar="N",
                        help="set a pair aside after N failures of its own (default 3)")


def _client(args: argparse.Namespace, model: str, connection=None):
    """A client for ``connection`` (a stored one) or for the server the options name."""
    from labeling.errors import ScorecardError
    from labeling.model_calls import chat

    if connection is not None:
        return chat.client_for(connection, timeout=args.timeout, show_error_bodies=True)
    base_url = args.base_url or os.environ.get(chat.ENV_BASE_URL, "").strip()
    if not base_url:
        raise ScorecardError(f"name the server with --connection, --base-url or "
                             f"{chat.ENV_BASE_URL}")
    return chat.ChatClient(base_url, model, os.environ.get(chat.ENV_KEY, ""),
                           timeout=args.timeout, show_error_bodies=True)


def _progress(done: int, total: int, message: str) -> None:
    if total and (done == total or done % 10 == 0):
        print(f"judged {done} of {total}", file=sys.stderr)


def _split_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def run_judge(args: argparse.Namespace) -> int:
    from labeling.errors import ScorecardError
    from labeling.machine_judging import judge_prompts, machine_judge, machine_pairs
    from labeling.model_calls import chat
    from labeling.workspace import connections
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    prompt = judge_prompts.load_prompt(args.prompt)
    connection = None
    if args.connection:
        connection = connections.get_connection(db, connections.MODEL_SERVER, args.connection)
        if args.model and args.model.strip() != connection.model:
            raise ScorecardError(f"the connection {connection.name!r} runs "
                                 f"{connection.model!r}, not {args.model!r}")
        judge = machine_judge.judge_on(connection, prompt, args.temperature)
    else:
        model = (args.model or os.environ.get(chat.ENV_MODEL, "")).strip()
        if not model:
            raise ScorecardError(f"name the model with --model or {chat.ENV_MODEL}")
        base_url = args.base_url or os.environ.get(chat.ENV_BASE_URL, "").strip()
        judge = machine_judge.Judge(model, prompt, args.temperature, base_url)
    segment = None
    if args.segment:
        attribute, _, values = args.segment.partition("=")
        if not attribute or not values:
            raise ScorecardError("--segment is ATTRIBUTE=VALUE[,VALUE...]")
        segment = (attribute.strip(), _split_list(values))
    kind = "queue" if args.queue else "unjudged" if args.unjudged else "pool"
    pairs, pair_set = machine_pairs.pair_set(db, kind, _split_list(args.runs or ""), args.k,
                                             split=args.split, segment=segment)
    plan = machine_judge.plan(db, judge, pairs, price_prompt=args.price_prompt,
                              price_reply=args.price_reply)
    print(f"{judge.name}: {plan.pairs} pairs ({pair_set}); {plan.cached} cached, "
          f"{plan.locked} in a locked split, {plan.calls} to call; about "
          f"{plan.prompt_tokens + plan.reply_tokens} tokens, cost {plan.cost:.4f}")
    if args.plan:
        return 0
    client = _client(args, judge.model, connection)
    machine_judge.check_client(db, client, args.max_calls)  # before a batch is recorded
    batch = machine_judge.start_batch(db, judge, pairs, pair_set,
                                      pool_depth=machine_pairs.pool_depth(kind, args.k))
    return _finish(machine_judge.run_batch(
        db, batch, client, max_calls=args.max_calls, progress=_progress,
        set_aside_after=args.set_aside_after))


def _finish(result) -> int:
    """Print a run's errors and summary; exit 0 when nothing is left pending."""
    for error in result.errors[:20]:
        print(f"scorecard: {error}", file=sys.stderr)
    print(result.summary())
    return 0 if result.pending == 0 else 1


def run_resume(args: argparse.Namespace) -> int:
    from labeling.machine_judging import machine_judge
    from labeling.workspace import connections
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    judge = machine_judge.batch_judge(db, args.batch)
    connection = None
    if args.connection:
        connection = connections.get_connection(db, connections.MODEL_SERVER, args.connection)
    elif judge.connection_id and not args.base_url:
        connection = machine_judge.batch_connection(db, args.batch)
    return _finish(machine_judge.run_batch(
        db, args.batch, _client(args, judge.model, connection), max_calls=args.max_calls,
        progress=_progress, set_aside_after=args.set_aside_after))


def run_failures(args: argparse.Namespace) -> int:
    """The failed pairs, one line each; errors and replies JSON-escaped (a reply may hold
    anything: line breaks, terminal escapes, markup)."""
    import json

    from labeling.machine_judging import machine_judge
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.batch is not None:
        machine_judge.batch_judge(db, args.batch)  # one sentence when there is no such batch
    frame = machine_judge.batch_failures(db, args.batch)
    for row in frame.itertuples():
        state = "set aside" if row.state == "set_aside" else "pending"
        reply = "no reply kept" if row.reply is None else f"reply {json.dumps(row.reply)}"
        print(f"batch {row.batch_id}\t{json.dumps(row.query_id)} / {json.dumps(row.chunk_id)}"
              f"\t{state} after {row.failures} failure(s), {row.attempts} request(s)"
              f"\terror {json.dumps(row.error or '')}\t{reply}")
    if frame.empty:
        print("no failed pairs" + (f" in batch {args.batch}" if args.batch is not None else ""))
    return 0


def run_batches(args: argparse.Namespace) -> int:
    from labeling.machine_judging import machine_judge
    from labeling.workspace.store import open_workspace

    frame = machine_judge.batches(open_workspace(args.db, create=False))
    print(frame.to_string(index=False) if not frame.empty else "no batches yet")
    return 0


def run_audit(args: argparse.Namespace) -> int:
    from labeling.machine_judging import audit_sample
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    draw = audit_sample.draw_audit(db, args.judge, args.budget, runs=_split_list(args.runs),
                                   relevance=args.relevance, segment=args.segment,
                                   seed=args.seed)
    print(draw.summary())
    return 0


def run_estimate(args: argparse.Namespace) -> int:
    from labeling.evaluation.inputs.score_controls import NO_SEGMENT, Controls
    from labeling.machine_judging import machine_estimates
    from labeling.workspace.store import open_workspace

    controls = Controls(args.run, measures=tuple(args.measures or ("nDCG@10", "P@10")),
                        rule=args.consensus, relevance=args.relevance)
    db = open_workspace(args.db, create=False)
    table, state = machine_estimates.estimates(
        db, controls, args.sample, segment=args.segment or NO_SEGMENT, baseline=args.baseline)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "json":
        print(table.to_json(orient="records", indent=2))
    else:
        print(machine_estimates.side_by_side(table).to_string(index=False, na_rep="n/a"))
        print("\nMachine only, not comparable with the above (its interval ignores the judge's "
              "error):")
        print(machine_estimates.machine_only(table).to_string(index=False))
        print()
        for line in machine_estimates.notes():
            print(line)
    if state.provisional:
        print(f"scorecard: provisional: {state.waiting} audited pair(s) still wait for a "
              "person", file=sys.stderr)
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from labeling.evaluation.inputs.score_controls import NO_SEGMENT, Controls
    from labeling.machine_judging import machine_agreement
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    found = machine_agreement.agreement(db, args.judge, rule=args.consensus,
                                        segment=args.segment or NO_SEGMENT)
    print(f"{args.judge} against people on {found.pairs} pairs: kappa {found.kappa.kappa:.3f} "
          f"[{found.kappa.low:.3f}, {found.kappa.high:.3f}], {found.weights}-weighted "
          f"{found.weighted.kappa:.3f} [{found.weighted.low:.3f}, {found.weighted.high:.3f}]: "
          f"{found.scope}")
    print(found.confusion.to_string())
    if not found.by_segment.empty:
        print(found.by_segment.to_string(index=False))
    if args.runs:
        runs = _split_list(args.runs)
        ranking = machine_agreement.ranking_agreement(
            db, Controls(runs[0], measures=(args.measure,), rule=args.consensus), args.judge,
            runs)
        print(f"Kendall tau of the run rankings on {ranking.measure}, by the prediction-"
              f"powered estimates (audit sample {ranking.sample_id}) and by the judge's labels "
              f"alone: {ranking.tau:.3f}")
        print(ranking.table.to_string(index=False))
        for above, below, size in ranking.swaps[:10]:
            print(f"swap: the corrected estimates rank {above} above {below}, the machine the "
                  "other way "
                  f"(by {size:.3f})")
    if args.compare:
        diff = machine_agreement.compare_judges(db, args.judge, args.compare,
                                                rule=args.consensus)
        print(f"{args.compare} - {args.judge}: weighted kappa {diff.difference:+.3f} "
              f"[{diff.low:+.3f}, {diff.high:+.3f}] on the {diff.n} pairs people and both "
              "judges graded (unweighted: a figure of these pairs)")
    far = machine_agreement.disagreements(db, args.judge, rule=args.consensus)
    print(f"{len(far)} pair(s) two or more grades apart")
    for row in far.head(10).itertuples():
        print(f"  {row.query_id} / {row.chunk_id}: people {row.people}, machine {row.machine}: "
              f"{row.reason}")
    return 0
