"""``scorecard threshold``: show or set the workspace's default relevance threshold."""

from __future__ import annotations

import argparse

from labeling.commands import add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "threshold",
        help="show or set the default relevance threshold",
        description=(
            "Show or set the lowest grade that binary measures (P, R, Success, RR, AP) count as "
            "relevant by default: the dashboard starts from it, and `scorecard evaluate --db` "
            "and `scorecard report` use it unless --relevance says otherwise. A new workspace "
            "uses grade 1 (as trec_eval)."
        ),
        handler=run_threshold,
    )
    parser.add_argument("grade", nargs="?", type=int, metavar="GRADE",
                        help="a grade of the workspace's scale, 1 or above")


def run_threshold(args: argparse.Namespace) -> int:
    from labeling.evaluation.inputs.score_controls import threshold_sentence
    from labeling.workspace import grading
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.grade is not None:
        grading.set_default_relevance(db, args.grade)
    print(threshold_sentence(grading.default_relevance(db), grading.get_scale(db)))
    return 0
