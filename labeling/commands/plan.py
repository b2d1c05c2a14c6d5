"""``scorecard plan``: how many queries and judgments a comparison needs, and their cost."""

from __future__ import annotations

import argparse
import json
import sys

from labeling.commands import add_command, add_consensus_option

FORMATS = ("text", "json")
SPLITS = ("all", "dev", "test")
CURVE_ROWS = 8  # points of the detectable-difference curve the text output prints


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "plan",
        help="queries, judgments and hours needed to detect a difference",
        description=(
            "From the workspace's own per-query paired differences: the queries a paired "
            "t-test needs to detect a difference at the chosen power and level, the judgments "
            "that takes at a pool depth (and the trade-off between more queries and deeper "
            "pools), the hours at the team's judging pace and the calls and tokens of a "
            "machine judge. --max-drop plans for the regression gate instead: a one-sided "
            "test that catches a true drop of twice the allowed one (or --true-drop)."
        ),
        handler=run_plan,
    )
    parser.add_argument("--baseline", required=True, metavar="NAME", help="the baseline run")
    parser.add_argument("--candidate", metavar="NAME",
                        help="the run compared with it (its paired differences set the spread)")
    parser.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                        help="e.g. nDCG@10")
    goal = parser.add_mutually_exclusive_group(required=True)
    goal.add_argument("--difference", type=float, metavar="D",
                      help="smallest difference worth detecting (two-sided test)")
    goal.add_argument("--max-drop", type=float, metavar="DROP",
                      help="plan for `scorecard gate --max-drop DROP` (one-sided test)")
    parser.add_argument("--true-drop", type=float, metavar="DROP",
                        help="with --max-drop: the true drop to catch (default twice DROP)")
    parser.add_argument("--power", type=float, default=0.8, help="default 0.8")
    parser.add_argument("--alpha", type=float, default=0.05, help="level (default 0.05)")
    parser.add_argument("--pool-depth", type=int, default=10, metavar="D",
                        help="judge the top D of the runs per query (default 10)")
    parser.add_argument("--segment", metavar="ATTRIBUTE",
                        help="plan each value of this query attribute too (level alpha / m)")
    add_consensus_option(parser)
    parser.add_argument("--split", choices=SPLITS, default="all", help="queries of this split")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")


def _table(frame, number_formats: dict[str, str]) -> list[str]:
    if frame.empty:
        return []
    cells = [[str(c) for c in frame.columns]]
    for row in frame.itertuples(index=False):
        cells.append([format(v, number_formats.get(c, "")) if isinstance(v, float) else str(v)
                      for c, v in zip(frame.columns, row, strict=True)])
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in cells]


def write_text(plan, out) -> None:
    for sentence in plan.sentences():
        out.write(sentence + "\n")
    out.write("\nQueries against pool depth (the measure cut at each depth):\n")
    out.write("\n".join(_table(plan.tradeoff, {"judged": ".0%", "empty": ".0%", "sd": ".3f",
                                               "pool_per_query": ".1f", "hours": ".1f"})) + "\n")
    if not plan.segments.empty:
        out.write(f"\nPer segment, each at level {plan.segments['alpha_each'].iloc[0]:.4g} "
                  "(alpha / segments, enough for Holm's correction):\n")
        out.write("\n".join(_table(plan.segments, {"sd": ".3f", "alpha_each": ".4g"})) + "\n")
    step = max(1, len(plan.curve) // CURVE_ROWS)
    out.write("\nDetectable difference against queries:\n")
    out.write("\n".join(_table(plan.curve.iloc[::step], {"detectable": ".3f"})) + "\n")


def to_json(plan) -> str:
    from labeling.files.formats.values import plain_value

    def records(frame):
        return [{k: plain_value(v) for k, v in row.items()} for row in
                frame.to_dict(orient="records")]

    summary = {key: plain_value(getattr(plan, key)) for key in (
        "measure", "baseline", "candidate", "difference", "power", "alpha", "sides",
        "pool_depth", "sd", "sd_source", "queries_have", "queries_needed", "formula_queries",
        "max_drop", "simulated_power", "more_queries",
        "detectable_now", "pool_per_query", "judgments_needed", "to_judge", "hours",
        "machine_calls", "machine_tokens")}
    summary["seconds_per_card"] = plan.pace.seconds_per_card
    summary["pace_source"] = plan.pace.source
    summary["sentences"] = plan.sentences()
    summary["tradeoff"] = records(plan.tradeoff)
    summary["segments"] = records(plan.segments)
    summary["curve"] = records(plan.curve)
    return json.dumps(summary, indent=2, ensure_ascii=False) + "\n"


def run_plan(args: argparse.Namespace) -> int:
    from labeling.evaluation.inputs.score_controls import NO_SEGMENT, Controls
    from labeling.evaluation.planning import judging_budget
    from labeling.workspace.store import open_workspace

    if args.true_drop is not None and args.max_drop is None:
        from labeling.errors import ScorecardError

        raise ScorecardError("--true-drop goes with --max-drop")
    if args.max_drop is not None:
        difference = judging_budget.gate_difference(args.max_drop, args.true_drop)
    else:
        difference = args.difference
    controls = Controls(args.baseline, measures=(args.measure,), rule=args.consensus,
                        split=args.split)
    db = open_workspace(args.db, create=False)
    if args.max_drop is not None and args.candidate:
        print("scorecard: checking the count by simulating the gate on the paired differences "
              "(a few seconds)", file=sys.stderr)
    try:
        plan = judging_budget.plan(
            db, controls, args.measure, difference, candidate=args.candidate, power=args.power,
            alpha=args.alpha, pool_depth=args.pool_depth, segment=args.segment or NO_SEGMENT,
            max_drop=args.max_drop)
    finally:
        db.close()
    if args.format == "json":
        sys.stdout.write(to_json(plan))
    else:
        write_text(plan, sys.stdout)
    return 0
