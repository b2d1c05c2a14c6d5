"""``scorecard import DB documents|chunkset``, ``scorecard rechunk`` and ``scorecard transfer``:
documents, chunk sets and labels carried from one chunking to another."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from labeling.commands import add_command, add_consensus_option
from labeling.errors import ScorecardError

IMPORT_KINDS = ("documents", "chunkset")


def _out(text: str) -> None:
    print(text, file=sys.stdout)


# ---------------------------------------------------------------------------------------------
# Import kinds (registered under ``scorecard import`` by ``labeling.commands.workspace``)


def add_import_kinds(kinds: argparse._SubParsersAction) -> None:
    """``import DB documents PATH`` and ``import DB chunkset FILE --name NAME ...``."""
    documents = kinds.add_parser(
        "documents", help="source documents: a folder of .txt/.md files, or JSONL/CSV",
        description="Import source documents: every .txt, .md and .markdown file of a folder "
        "(id: its path without the suffix), or records with id, text, optional title, version.")
    documents.add_argument("file", metavar="PATH", type=Path)
    chunkset = kinds.add_parser(
        "chunkset", help="a chunking of the documents: chunks with doc_id and optional offsets",
        description="Import a chunk set: records with id, doc_id, text and optional start/end "
        "offsets (found in the document when missing). All or nothing.")
    chunkset.add_argument("file", metavar="FILE", type=Path)
    chunkset.add_argument("--name", required=True, help="name of the chunk set")
    chunkset.add_argument("--splitter", default=None, help="how the chunks were made")
    chunkset.add_argument("--size", default=None, help="chunk size the splitter used")
    chunkset.add_argument("--overlap", default=None, help="overlap the splitter used")


def import_kind(args: argparse.Namespace) -> int:
    """Run ``import documents`` or ``import chunkset``."""
    from labeling.files import importers
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.kind == "documents":
        result = importers.import_documents(db, args.file)
    else:
        result = importers.import_chunk_set(db, args.file, args.name, splitter=args.splitter,
                                            size=args.size, overlap=args.overlap)
    for warning in result.warnings:
        print(f"scorecard: warning: {warning}", file=sys.stderr)
    _out(f"{result.summary()} into {args.db}")
    return 0


# ---------------------------------------------------------------------------------------------
# rechunk and transfer


def _rechunk(args: argparse.Namespace) -> int:
    from labeling.rechunking.splitter import rechunk_documents
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    result = rechunk_documents(db, args.name, args.size, args.overlap)
    _out(f"chunk set {args.name!r}: {result.rows} chunks of at most {args.size} characters")
    return 0


def _transfer(args: argparse.Namespace) -> int:
    from labeling.evaluation.inputs.score_controls import Controls
    from labeling.evaluation.scores import chunk_set_scores
    from labeling.rechunking import report, transfer
    from labeling.workspace import transfers
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    report.check_segment(db, args.segment)  # before anything is transferred
    done = transfers.existing_transfer(db, args.from_set, args.to_set)
    if done is None:
        result = transfer.transfer_labels(db, args.from_set, args.to_set,
                                          threshold=args.threshold)
        print(f"scorecard: {result.summary()}", file=sys.stderr)
    else:
        print(f"scorecard: the labels of {args.from_set!r} were transferred to {args.to_set!r} "
              f"before (threshold {done['threshold']}); this is that transfer's report",
              file=sys.stderr)
    card = report.transfer_report(db, args.from_set, args.to_set, segment=args.segment)
    payload = card.to_dict()
    if (args.old_run is None) != (args.new_run is None):
        raise ScorecardError("give both --old-run and --new-run, or neither")
    if args.old_run is not None:
        controls = Controls(run=args.old_run, measures=tuple(args.measure or ("R@k", "RR")),
                            k=args.k, rule=args.consensus)
        sides = chunk_set_scores.side_by_side(db, controls, args.old_run, args.new_run,
                                              card.carried_queries)
        footing = chunk_set_scores.one_footing(db, controls, [args.old_run, args.new_run],
                                               args.from_set, card.carried_queries)
        payload["scorecards"] = {
            "old_run": args.old_run, "new_run": args.new_run, "consensus": args.consensus,
            "queries": "queries with at least one carried label",
            "side_by_side": sides.to_dict("records"),
            "one_footing": {"reference": args.from_set, "span_share":
                            chunk_set_scores.SPAN_SHARE, "rows": footing.to_dict("records")},
        }
    _out(json.dumps(payload, indent=2, default=float))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the rechunk and transfer commands."""
    rechunk = add_command(
        subparsers, "rechunk", "split the stored documents into a new chunk set",
        "Split the workspace's documents with the built-in recursive character splitter "
        "(paragraphs, lines, sentences, words) and store the chunks as a new chunk set.",
        _rechunk)
    rechunk.add_argument("--name", required=True, help="name of the new chunk set")
    rechunk.add_argument("--size", type=int, required=True, help="largest chunk, in characters")
    rechunk.add_argument("--overlap", type=int, default=0, help="characters shared by neighbours")
    trans = add_command(
        subparsers, "transfer", "carry labels over to another chunk set (JSON report)",
        "Transfer the labels of chunk set FROM to chunk set TO (once; run again to read the "
        "report) and print the transfer report as JSON. With --old-run and --new-run the "
        "report adds both runs' scores on the queries whose labels carried over.", _transfer)
    trans.add_argument("--from", dest="from_set", required=True, metavar="SET")
    trans.add_argument("--to", dest="to_set", required=True, metavar="SET")
    trans.add_argument("--threshold", type=float, default=0.8,
                       help="overlap share a label needs to carry over (default: 0.8)")
    trans.add_argument("--segment", default="source",
                       help="query attribute to count by (default: source)")
    trans.add_argument("--old-run", default=None, help="a run of the FROM chunk set")
    trans.add_argument("--new-run", default=None, help="the same retriever on the TO set")
    trans.add_argument("-m", "--measure", action="append", default=None,
                       help="measure for the scorecards (repeatable; default R@k and RR)")
    trans.add_argument("--k", type=int, default=10, help="the k of @k measures (default: 10)")
    add_consensus_option(trans)
