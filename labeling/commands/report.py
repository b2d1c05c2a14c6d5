"""``scorecard report``: write a run's scorecard as a shareable HTML, Markdown or JSON file."""

from __future__ import annotations

import argparse

from labeling.commands import add_command, add_consensus_option, add_label_source_options

CONFIDENCE = 0.95  # score_controls.CONFIDENCE (a test keeps them in step)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "report",
        help="write a shareable scorecard (HTML, Markdown or JSON)",
        description=(
            "Write the scorecard of a stored run: one sentence with the verdict, scores by "
            f"segment with {CONFIDENCE:.0%} bootstrap intervals, the comparison with a "
            "baseline run (paired randomization test, Holm-adjusted), and the worst queries, "
            "those the run returned nothing for apart, with the relevant chunks they missed. The "
            "format follows the file name: .html (one file, opens offline), .md (for a "
            "pull-request comment) or .json."
        ),
        handler=run_report,
    )
    parser.add_argument("--run", required=True, metavar="NAME", help="the run to report on")
    parser.add_argument("--baseline", metavar="NAME", help="compare with this run")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="card.html, card.md or card.json")
    parser.add_argument(
        "-m", "--measure", dest="measures", action="append", metavar="MEASURE",
        help="a measure such as nDCG@10 (repeat for several; default: the scorecard's headline "
        "measures, labeling.report.scorecard_report.DEFAULT_MEASURES); the first sorts the "
        "worst queries",
    )
    parser.add_argument("--segment", metavar="ATTRIBUTE",
                        help="query attribute to segment by (default: the first attribute)")
    parser.add_argument("--judged-only", action="store_true",
                        help="drop unlabeled results before scoring (trec_eval -J)")
    parser.add_argument(
        "--skip-missing", action="store_true",
        help="leave out labeled queries the run returned nothing for (default: they score 0)",
    )
    parser.add_argument(
        "--relevance", type=int, metavar="GRADE",
        help="the lowest grade binary measures count as relevant (default: the workspace's "
        "default threshold, see `scorecard threshold`)",
    )
    add_consensus_option(parser)
    add_label_source_options(parser)


def run_report(args: argparse.Namespace) -> int:
    # Imported here: the report pulls in scipy and plotly, which other commands do not need.
    from labeling.report import scorecard_report as report
    from labeling.workspace.store import open_workspace

    report.output_format(args.out)  # a wrong file name fails before any work
    settings = {
        "measures": tuple(args.measures or report.DEFAULT_MEASURES),
        "policy": "judged_only" if args.judged_only else "nonrelevant", "rule": args.consensus,
        "missing": "skip" if args.skip_missing else "zero",
        "label_source": args.label_source, "judge": args.judge,
    }
    report.report_controls(args.run, **settings)  # bad measures fail before the workspace opens
    db = open_workspace(args.db, create=False)
    from labeling.workspace.grading import default_relevance

    relevance = default_relevance(db) if args.relevance is None else args.relevance
    controls = report.report_controls(args.run, relevance=relevance, **settings)
    card = report.build_scorecard(db, controls, baseline=args.baseline, segment=args.segment)
    fmt = report.write_scorecard(card, args.out)
    print(f"wrote the {fmt} scorecard of {args.run} to {args.out} "
          f"(label snapshot {card.snapshot}, {card.counts.summary()}; labels: "
          f"{card.label_source})")
    for line in card.headline():
        print(line)
    return 0
