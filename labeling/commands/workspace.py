"""``scorecard init | import | export | baseline | restore``: thin wrappers over the workspace
library."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from labeling.commands import add_command, add_consensus_option, add_db_argument, chunking
from labeling.errors import ScorecardError


def _out(text: str) -> None:
    print(text, file=sys.stdout)


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"scorecard: warning: {warning}", file=sys.stderr)


def _meta(items: list[str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScorecardError(f"--meta {item!r} is not KEY=VALUE")
        meta[key.strip()] = value
    return meta


# ---------------------------------------------------------------------------------------------
# Handlers


def _init(args: argparse.Namespace) -> int:
    from labeling.workspace.contents import counts, describe_counts
    from labeling.workspace.grading import init_workspace
    from labeling.workspace.store import open_workspace

    if args.demo:
        if args.db.exists():
            raise ScorecardError(f"{args.db}: already exists; --demo builds a new workspace")
        if args.scale != "graded":
            raise ScorecardError("--demo uses the graded scale; drop --scale")
        from labeling.files import demo

        demo.build_demo(args.db)
        db = open_workspace(args.db, create=False)
    else:
        db = init_workspace(args.db, scale=args.scale)
    _out(f"workspace {args.db}: {describe_counts(counts(db))}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from labeling.files import importers as imports
    from labeling.workspace.store import open_workspace

    kind = args.kind
    if kind in chunking.IMPORT_KINDS:
        return chunking.import_kind(args)
    db = open_workspace(args.db, create=False)
    if kind == "chunks":
        result = imports.import_chunks(db, args.file)
    elif kind == "queries":
        result = imports.import_queries(db, args.file)
    elif kind == "qrels":
        result = imports.import_qrels(
            db, args.file, annotator=args.annotator, strict=args.strict, format=args.format,
            origin=args.origin,
        )
    elif kind == "run":
        meta = _meta(args.meta)
        if args.chunk_set:
            meta["chunk_set"] = args.chunk_set
        result = imports.import_run(
            db,
            args.file,
            args.run_name,
            meta,
            strict=args.strict,
            replace=args.replace,
            format=args.format,
            batch_rows=args.batch_rows,
        )
    elif kind == "values":
        result = imports.import_values(db, args.file, args.run_name, top=args.top,
                                       replace=args.replace)
    else:
        result = imports.import_beir(db, args.folder)
    _warn(result.warnings)
    _out(f"{result.summary()} into {args.db}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from labeling.files import exporters as exports
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.kind == "qrels":
        count = exports.export_qrels(db, args.out, rule=args.consensus,
                                     chunk_set=args.chunk_set,
                                     all_chunk_sets=args.all_chunk_sets)
        which = (f", chunk set {args.chunk_set}" if args.chunk_set
                 else ", every chunk set" if args.all_chunk_sets else "")
        _out(f"wrote {count} qrels ({args.consensus} consensus{which}) to {args.out}")
    elif args.kind == "run":
        _out(f"wrote {exports.export_run(db, args.name, args.out)} results to {args.out}")
    elif args.kind == "judgments":
        _out(f"wrote {exports.export_judgments(db, args.out)} judgments to {args.out}")
    else:
        sizes = exports.export_beir(db, args.folder)
        _out(
            f"wrote BEIR folder {args.folder}: "
            + ", ".join(f"{n} {part}" for part, n in sizes.items())
        )
    return 0


def _baseline(args: argparse.Namespace) -> int:
    from labeling.files.baseline import bm25_run
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    fields = tuple(f.strip() for f in args.fields.split(",") if f.strip())
    result = bm25_run(db, args.run_name, k=args.k, fields=fields, chunk_set=args.chunk_set)
    _out(f"stored BM25 run {args.run_name!r}: {result.rows} results")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from labeling.workspace.backup import restore

    _out(restore(args.backup, args.db).summary())
    return 0


# ---------------------------------------------------------------------------------------------
# Parsers


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the init, import, export, baseline and restore commands."""
    _register_init(subparsers)
    _register_import(subparsers)
    _register_export(subparsers)
    _register_baseline(subparsers)
    _register_restore(subparsers)


def _register_init(subparsers: argparse._SubParsersAction) -> None:
    init = add_command(subparsers, "init", "create a workspace", "Create a workspace.", _init)
    init.add_argument("--demo", action="store_true", help="fill it with the demo data set")
    init.add_argument(
        "--scale",
        default="graded",
        help="graded (0-3, default), binary (0/1) or '0:not relevant,1:relevant'",
    )


def _register_import(subparsers: argparse._SubParsersAction) -> None:
    imp = add_command(
        subparsers, "import", "import chunks, queries, qrels, a run or BEIR",
        "Import a file into a workspace (all or nothing).", _import,
    )
    kinds = imp.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind, text in (
        ("chunks", "chunks records (JSONL/CSV/Parquet)"),
        ("queries", "queries records (JSONL/CSV/Parquet)"),
    ):
        _file_kind(kinds, kind, text, f"Import {text}.")
    qrels = _file_kind(
        kinds, "qrels", "relevance labels (TREC qrels, CSV, JSONL...)",
        "Append relevance labels as judgments.",
    )
    qrels.add_argument(
        "--annotator", default=None,
        help="the name the labels are recorded under (default: the file's name)",
    )
    qrels.add_argument(
        "--origin", choices=("import", "person"), default="import",
        help="import (default): labels from elsewhere, never under a person's name; person: "
        "hand judgments of the person named by --annotator",
    )
    run = _run_kind(kinds)
    for sub in (qrels, run):
        sub.add_argument(
            "--strict",
            action="store_true",
            help="reject ids the workspace does not know instead of adding placeholders",
        )
        sub.add_argument("--format", default=None, help="file format (default: detected)")
    _values_kind(kinds)
    beir = kinds.add_parser("beir", help="a BEIR folder", description="Import a BEIR folder.")
    beir.add_argument("folder", metavar="FOLDER", type=Path)
    chunking.add_import_kinds(kinds)


def _run_kind(kinds: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``scorecard import run``: its own options (the shared ones are added by the caller)."""
    run = _file_kind(
        kinds, "run", "a retriever's run (TREC run, CSV, JSONL...)",
        "Store a retriever's ranked results under a name.",
    )
    run.add_argument("--run-name", required=True, help="name of the run in the workspace")
    run.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="run metadata (index_build, chunk_size, embedding_model, "
        "query_set_version, notes or any key); repeatable",
    )
    run.add_argument(
        "--chunk-set", default=None, metavar="NAME",
        help="the chunk set the run retrieves from (its labels are the ones it is scored on); "
        "default: the one chunk set holding every retrieved chunk, else none (with a warning)",
    )
    run.add_argument("--replace", action="store_true", help="replace a run of the same name")
    run.add_argument("--batch-rows", type=int, default=50_000, help=argparse.SUPPRESS)
    return run


def _values_kind(kinds: argparse._SubParsersAction) -> None:
    """``scorecard import values``."""
    values = _file_kind(
        kinds, "values", "per-query values of a run scored on a cluster (Parquet)",
        "Store per-query values written by `scorecard evaluate --per-query-out` with a run, "
        "so that the dashboard shows them; --top adds the run's top rows (--top-out) for the "
        "drill-down.",
    )
    values.add_argument("--run-name", required=True, help="name of the run in the workspace")
    values.add_argument("--top", type=Path, metavar="PATH",
                        help="file or folder of the run's top rows (evaluate --top-out)")
    values.add_argument("--replace", action="store_true",
                        help="replace a run of the same name (with --top, or a new run)")


def _file_kind(
    kinds: argparse._SubParsersAction, kind: str, help: str, description: str
) -> argparse.ArgumentParser:
    """An ``import`` kind that reads one FILE."""
    sub = kinds.add_parser(kind, help=help, description=description)
    sub.add_argument("file", metavar="FILE", type=Path)
    return sub


def _register_export(subparsers: argparse._SubParsersAction) -> None:
    exp = add_command(
        subparsers, "export", "export qrels, a run, judgments or BEIR",
        "Export from a workspace.", _export,
    )
    out = exp.add_subparsers(dest="kind", metavar="KIND", required=True)
    qrels = out.add_parser(
        "qrels",
        help="consensus qrels, TREC format (JSON lines with evidence to a .jsonl OUT)",
        description="Write one grade per pair (consensus) as TREC qrels; to an OUT ending in"
        " .jsonl, as JSON lines with each relevant pair's evidence spans.",
    )
    qrels.add_argument("out", metavar="OUT", type=Path)
    add_consensus_option(qrels)
    qrels.add_argument(
        "--chunk-set", default=None, metavar="NAME",
        help="only the labels a run of this chunk set is scored on (needed when the workspace "
        "holds several chunk sets)")
    qrels.add_argument("--all-chunk-sets", action="store_true",
                       help="write every chunk set's labels together (they mix chunkings)")
    run = out.add_parser("run", help="a run, TREC format", description="Write a run as TREC.")
    run.add_argument("name", metavar="NAME")
    run.add_argument("out", metavar="OUT", type=Path)
    judgments = out.add_parser(
        "judgments",
        help="the judgment history, CSV (with each judgment's evidence spans)",
        description="Write every judgment ever made as CSV.",
    )
    judgments.add_argument("out", metavar="OUT", type=Path)
    beir = out.add_parser("beir", help="a BEIR folder", description="Write a BEIR folder.")
    beir.add_argument("folder", metavar="FOLDER", type=Path)


def _register_baseline(subparsers: argparse._SubParsersAction) -> None:
    base = add_command(
        subparsers, "baseline", "store a BM25 baseline run",
        "Compute a BM25 run (bm25s) for every query.", _baseline,
    )
    base.add_argument("--run-name", default="bm25", help="run name (default: bm25)")
    base.add_argument("--k", type=int, default=100, help="results per query (default: 100)")
    base.add_argument("--fields", default="text", help="chunk fields to index: title,text")
    base.add_argument("--chunk-set", default=None, help="search only this chunk set's chunks")


def _register_restore(subparsers: argparse._SubParsersAction) -> None:
    rest = add_command(
        subparsers, "restore", "replace a workspace by a backup",
        "Replace the workspace DB by BACKUP (made with `scorecard backup`). Refused while any "
        "process has DB open. The backup's integrity and schema version are checked first; a "
        "-wal file a crash left beside DB is checkpointed into the old file, which is kept as "
        "DB.replaced-<UTC time>.",
        _restore,
        db=False,
    )
    rest.add_argument("backup", metavar="BACKUP", type=Path, help="the backup file")
    add_db_argument(rest)
