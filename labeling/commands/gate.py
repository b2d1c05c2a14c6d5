"""``scorecard gate``: fail a CI job only when a run is significantly worse than its baseline.

Exit status: 0 pass, 1 worse, 2 bad input (the command line's refusals), 3 not enough labels:
the verdict depends on the unjudged results (``labeling.evaluation.planning.regression_gate``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from labeling.commands import add_command, add_consensus_option

FORMATS = ("text", "json", "junit")
SPLITS = ("all", "dev", "test")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "gate",
        help="fail only when a run is significantly worse than its baseline",
        description=(
            "Compare a run with its baseline query by query and fail only when it is worse by "
            "more than the allowed drop: a one-sided paired test (Student's t and the "
            "bootstrap-t must agree), the upper end of the paired interval below -MAX_DROP, "
            "Holm's correction across measures and segments. Unjudged results are bounded: "
            "worse (exit 1) means worse even if every unjudged result of the run were "
            "relevant and none of the baseline's, whatever the coverage; not enough labels "
            "(exit 3) means the verdict depends on the unjudged results. Empty slots (fewer "
            "than k results) are not unjudged. Exit status 0 pass, 1 worse, 2 bad input, 3 "
            "not enough labels. On a workspace: DB with stored run names. On files: --qrels "
            "with run files for --run and --baseline."
        ),
        handler=run_gate, db=False,
    )
    parser.add_argument("db", nargs="?", type=Path, metavar="DB",
                        help="workspace file (SQLite); omit it to gate files with --qrels")
    parser.add_argument("--qrels", metavar="FILE", help="labels file (TREC qrels, CSV or JSONL)")
    parser.add_argument("--queries", metavar="FILE",
                        help="queries file (CSV or JSONL) with the --segment attribute (files)")
    parser.add_argument("--run", required=True, metavar="NEW",
                        help="the run to gate: a stored run's name, or a run file with --qrels")
    parser.add_argument("--baseline", required=True, metavar="OLD",
                        help="the run it must not be worse than (name or file, like --run)")
    parser.add_argument("-m", "--measure", dest="measures", action="append", required=True,
                        metavar="MEASURE", help="e.g. nDCG@10 (repeat for several)")
    parser.add_argument("--max-drop", type=float, required=True, metavar="DROP",
                        help="the drop allowed before the gate fails, e.g. 0.01")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="level of the one-sided test, Holm-corrected (default 0.05)")
    parser.add_argument("--min-judged", type=float, default=0.0, metavar="SHARE",
                        help="also require this share of the run's filled top-k slots judged "
                             "before a pass (default 0: none; the bounds decide)")
    parser.add_argument("--segment", metavar="ATTRIBUTE",
                        help="also gate each value of this query attribute")
    add_consensus_option(parser)
    parser.add_argument("--split", choices=SPLITS, default="all",
                        help="queries of this split only (workspace)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--out", metavar="FILE",
                        help="write the report here (the verdict still goes to stdout)")


def _settings(args: argparse.Namespace):
    from labeling.evaluation.inputs.score_controls import NO_SEGMENT
    from labeling.evaluation.planning.regression_gate import GateSettings

    return GateSettings(tuple(args.measures), args.max_drop, alpha=args.alpha,
                        min_judged=args.min_judged, segment=args.segment or NO_SEGMENT)


def _on_files(args: argparse.Namespace, settings):
    from labeling.evaluation.planning.regression_gate import gate_files
    from labeling.files.formats import read_qrels, read_records, read_run
    from labeling.files.formats.text import source_name

    qrels = read_qrels(args.qrels)
    run, baseline = read_run(args.run), read_run(args.baseline)
    queries = read_records(args.queries) if args.queries else None
    return gate_files(qrels, run, baseline, settings, queries=queries,
                      names=(source_name(args.run), source_name(args.baseline)))


def _on_workspace(args: argparse.Namespace, settings):
    from labeling.evaluation.planning.regression_gate import gate_stored_runs
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    try:
        _refuse_incomplete(db, (args.run, args.baseline))
        return gate_stored_runs(db, args.run, args.baseline, settings, rule=args.consensus,
                                split=args.split)
    finally:
        db.close()


def _refuse_incomplete(db, names: tuple[str, str]) -> None:
    """A live run with failed queries is no evidence either way: the gate refuses it."""
    from labeling.errors import ScorecardError
    from labeling.files.live_runs import run_incompleteness

    for name in names:
        incomplete = run_incompleteness(db, name)
        if incomplete:
            raise ScorecardError(f"the run {name} is {incomplete}: run `scorecard retrieve` "
                                 "again to complete it before gating")


def _write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a partial file, then a rename)."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def run_gate(args: argparse.Namespace) -> int:
    from labeling.errors import ScorecardError
    from labeling.report import gate_report

    if (args.db is None) == (args.qrels is None):
        raise ScorecardError("give a workspace DB with stored run names, or --qrels FILE with "
                             "run files, not both")
    if args.queries and not args.qrels:
        raise ScorecardError("--queries is for files; a workspace has its own query attributes")
    settings = _settings(args)  # bad settings fail before any file is read
    result = _on_files(args, settings) if args.qrels else _on_workspace(args, settings)
    report = gate_report.render(result, args.format)
    if args.out:
        _write(args.out, report)
        print(gate_report.headline(result))
    else:
        sys.stdout.write(report)
    return result.exit_code
