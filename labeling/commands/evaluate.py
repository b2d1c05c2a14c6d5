"""``scorecard evaluate``: score a run against labels, from files or from a workspace."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING, TextIO

from labeling.commands import add_command, add_consensus_option, add_label_source_options
from labeling.errors import InputError, ScorecardError

if TYPE_CHECKING:  # building the parser imports neither pandas nor the metric engine
    import pandas as pd

    from labeling.metrics.engine import Evaluation

FORMATS = ("table", "json", "csv", "trec")
ENGINES = ("single", "dask", "spark")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "evaluate",
        help="score a run against relevance labels",
        description=(
            "Score a run against relevance labels with trec_eval's conventions. Files may be "
            "TREC qrels/runs (whitespace separated) or CSV/JSONL with named columns; the format "
            "is recognised by content."
        ),
        handler=run_evaluate, db=False,
    )
    parser.add_argument("qrels", nargs="?", help="labels file (TREC qrels, CSV or JSONL)")
    parser.add_argument("run", nargs="?", help="run file (TREC run, CSV or JSONL)")
    parser.add_argument("--db", help="evaluate a stored run on a workspace's consensus labels")
    parser.add_argument("--run", dest="run_name", metavar="NAME", help="stored run (with --db)")
    add_consensus_option(parser)
    add_label_source_options(parser)
    parser.add_argument(
        "-m", "--measure", dest="measures", action="append", required=True, metavar="MEASURE",
        help="a measure such as nDCG@10, P(rel=2)@5, RR, AP (repeat for several)",
    )
    parser.add_argument("--per-query", action="store_true", help="print each query's values too")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument(
        "--judged-only", action="store_true",
        help="drop unlabeled results before scoring (trec_eval -J)",
    )
    parser.add_argument(
        "--skip-missing", action="store_true",
        help="leave out labeled queries the run returned nothing for (default: they score 0)",
    )
    parser.add_argument(
        "--relevance", type=int, metavar="GRADE",
        help="with --db: the lowest grade binary measures count as relevant (default: the "
        "workspace's default threshold, see `scorecard threshold`)",
    )
    parser.add_argument(
        "--fail-under", action="append", default=[], metavar="MEASURE=FLOOR",
        help="exit with status 1 when a mean falls below its floor, e.g. nDCG@10=0.6",
    )
    _add_engine_options(parser)


def _add_engine_options(parser: argparse.ArgumentParser) -> None:
    """Where the evaluation runs: this process, or a Dask or Spark cluster (files only)."""
    group = parser.add_argument_group(
        "distributed engines",
        "QRELS and RUN may be files or folders of parts (Parquet, TREC, CSV or JSON lines); "
        "the run is shuffled by query on the engine and scored partition by partition",
    )
    group.add_argument("--engine", choices=ENGINES, default="single",
                       help="single (this process, the default), dask or spark")
    group.add_argument("--scheduler", metavar="ADDR",
                       help="Dask scheduler address (default: a local cluster)")
    group.add_argument("--workers", type=int, metavar="N",
                       help="workers of the local Dask cluster (default: one per core)")
    group.add_argument("--spark-conf", action="append", default=[], metavar="K=V",
                       help="a Spark setting, e.g. spark.master=spark://host:7077 (repeat)")
    group.add_argument("--partitions", type=int, metavar="N",
                       help="partitions after the shuffle by query (default: as many as read)")
    group.add_argument("--per-query-out", metavar="FILE",
                       help="write per-query values as Parquet (for scorecard import DB values)")
    group.add_argument("--top-out", metavar="FOLDER",
                       help="write each query's top rows as TREC parts (for the drill-down)")
    group.add_argument("--top-k", type=int, default=20, metavar="K",
                       help="rows per query written to --top-out (default 20)")


def _parse_floors(items: list[str]) -> dict[str, float]:
    from labeling.metrics.measures import parse_measure

    floors: dict[str, float] = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        try:
            floor = float(value)
        except ValueError:
            floor = None
        if not sep or not name or floor is None:
            raise ScorecardError(f"--fail-under {item!r}: expected MEASURE=FLOOR, e.g. nDCG@10=0.6")
        parse_measure(name)
        floors[name] = floor
    return floors


def _evaluate_stored_run(
    args: argparse.Namespace, measures: list[str]
) -> tuple[Evaluation, dict[str, str]]:
    """A stored run on the workspace's consensus labels, under the controls the options give
    (``labeling.evaluation.inputs.score_controls.Controls``), as the dashboard scores it; with each
    measure's column (a binary measure names the threshold when it is not grade 1:
    ``R(rel=2)@10``)."""
    if not args.run_name or args.qrels or args.run:
        raise ScorecardError("with --db, name a stored run with --run NAME and no files")
    from labeling.evaluation.inputs.score_controls import Controls
    from labeling.evaluation.scores.scoring import stored_run_evaluation
    from labeling.workspace.grading import default_relevance
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    controls = Controls(
        args.run_name, measures=tuple(measures), rule=args.consensus,
        policy="judged_only" if args.judged_only else "nonrelevant",
        relevance=default_relevance(db) if args.relevance is None else args.relevance,
        missing=_missing(args),
        label_source=args.label_source, judge=args.judge,
    )
    columns = {name: controls.with_measures([name]).measures[0] for name in measures}
    return stored_run_evaluation(db, controls), columns


def _missing(args: argparse.Namespace) -> str:
    """The engine's ``missing=`` the options ask for."""
    return "skip" if args.skip_missing else "zero"


def _load(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    if not (args.qrels and args.run):
        raise ScorecardError("give a labels file and a run file, or --db DB --run NAME")
    from labeling.commands.allocator import keep_freed_memory
    from labeling.files.formats import read_qrels, read_run

    keep_freed_memory(arrow=True)  # a short-lived process: reuse memory rather than refault it
    # The engine refuses a repeated (query, doc) pair itself; only then is a file read again
    # with the (slower) check that names the line.
    return (
        read_qrels(args.qrels, check_duplicates=False),
        read_run(args.run, check_duplicates=False),
    )


def _spark_conf(items: list[str]) -> dict[str, str]:
    conf = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScorecardError(f"--spark-conf {item!r}: expected KEY=VALUE, "
                                 "e.g. spark.master=local[4]")
        conf[key.strip()] = value
    return conf


def _check_engine_options(args: argparse.Namespace) -> None:
    if args.engine != "dask" and (args.scheduler or args.workers):
        raise ScorecardError("--scheduler and --workers go with --engine dask")
    if args.engine != "spark" and args.spark_conf:
        raise ScorecardError("--spark-conf goes with --engine spark")
    if args.engine != "single" and args.db:
        raise ScorecardError(f"--engine {args.engine} evaluates files; a workspace's stored "
                             "run is scored with --engine single")
    if args.top_k < 1:
        raise ScorecardError("--top-k must be at least 1")
    for option in ("partitions", "workers"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise ScorecardError(f"--{option} must be at least 1")


def _top_rows(args: argparse.Namespace):
    if not args.top_out:
        return None
    from pathlib import Path

    from labeling.cluster.outputs import TopRows

    Path(args.top_out).mkdir(parents=True, exist_ok=True)
    return TopRows(str(Path(args.top_out).resolve()), args.top_k)


def _evaluate_on_cluster(args: argparse.Namespace, measures: list[str]) -> Evaluation:
    """The files on Dask or Spark (``labeling.cluster``)."""
    if not (args.qrels and args.run):
        raise ScorecardError("give a labels file or folder and a run file or folder")
    from labeling.cluster import parts
    from labeling.commands.extras import require_engine

    require_engine(args.engine)

    run_parts = parts.list_parts(args.run, "run")
    common = dict(partitions=args.partitions, judged_only=args.judged_only,
                  missing=_missing(args), keep_top=_top_rows(args))
    if args.engine == "dask":
        from labeling.cluster.dask_engine import evaluate_on_dask

        labels = parts.list_parts(args.qrels, "labels")  # read by the workers
        return evaluate_on_dask(labels, run_parts, measures, scheduler=args.scheduler,
                                workers=args.workers, **common)
    from labeling.cluster.spark_engine import evaluate_on_spark

    return evaluate_on_spark(parts.read_labels(args.qrels), run_parts, measures,
                             conf=_spark_conf(args.spark_conf), **common)


def _evaluate(
    args: argparse.Namespace, measures: list[str]
) -> tuple[Evaluation, dict[str, str]]:
    """The evaluation and the column of each measure as given."""
    from labeling.metrics.engine import evaluate

    _check_engine_options(args)
    if args.engine != "single":
        return _evaluate_on_cluster(args, measures), {name: name for name in measures}
    if args.db:
        return _evaluate_stored_run(args, measures)
    if args.relevance is not None:
        raise ScorecardError("--relevance applies to a stored run (--db); with files, write "
                             "the threshold into the measure, e.g. P(rel=2)@5")
    qrels, run = _load(args)
    keep_top = _top_rows(args)
    if keep_top is not None:
        keep_top(run)
    try:
        return evaluate(
            qrels, run, measures,
            judged_only=args.judged_only, missing=_missing(args),
        ), {name: name for name in measures}
    except InputError as error:
        if error.source not in ("qrels", "run"):
            raise
        from labeling.files.formats import read_qrels, read_run

        # Name the file and line of the repeated pair.
        read_qrels(args.qrels) if error.source == "qrels" else read_run(args.run)
        raise


def write_evaluation(
    result: Evaluation, measures: list[str], fmt: str, per_query: bool, out: TextIO,
    *, missing: str = "zero",
) -> None:
    """Print ``result`` (evaluated with ``missing``) as a table, JSON, CSV or trec_eval-style
    lines. The table and JSON say how many evaluated queries returned nothing; CSV and trec
    lines stay as trec_eval prints them (``run_evaluate`` says it on stderr)."""
    means = result.mean
    frame = result.per_query
    count = result.query_count(missing)
    if fmt == "trec":
        if per_query:
            for query_id, values in zip(frame.index, frame.itertuples(index=False), strict=True):
                for name, value in zip(measures, values, strict=True):
                    out.write(f"{name}\t{query_id}\t{float(value)!r}\n")
        for name in measures:
            out.write(f"{name}\tall\t{float(means[name])!r}\n")
    elif fmt == "json":
        payload: dict[str, object] = {
            "queries": len(frame),
            "evaluated": count.evaluated,
            "returned_nothing": count.returned_nothing,
            "missing": missing,
            "mean": {name: float(means[name]) for name in measures},
        }
        if per_query:
            payload["per_query"] = {
                str(q): {name: float(v) for name, v in row.items()}
                for q, row in frame.to_dict(orient="index").items()
            }
        json.dump(payload, out, indent=2)
        out.write("\n")
    elif fmt == "csv":
        table = frame.copy() if per_query else frame.iloc[0:0].copy()
        table.loc["all"] = means
        table.index.name = "query_id"
        table.to_csv(out, float_format=None)
    else:
        width = max(len(name) for name in measures)
        if per_query:
            for query_id, row in frame.iterrows():
                for name in measures:
                    out.write(f"{name:<{width}}  {query_id}  {row[name]:.4f}\n")
        out.write(f"{'measure':<{width}}  mean    (over {len(frame)} queries)\n")
        for name in measures:
            out.write(f"{name:<{width}}  {means[name]:.4f}\n")
        out.write(count.sentence() + "\n")


def _write_values(args: argparse.Namespace, result: Evaluation, measures: list[str]) -> None:
    """``--per-query-out``: the values and what they were computed from."""
    from pathlib import Path

    from labeling.cluster.outputs import write_values
    from labeling.metrics.engine import Evaluation

    about = {
        "engine": args.engine, "measures": measures,
        "labels": str(Path(args.qrels).name) if args.qrels else f"{args.db} (consensus "
        f"{args.consensus})", "run": str(Path(args.run).name) if args.run else args.run_name,
        "judged_only": bool(args.judged_only),
        "missing": _missing(args),
    }
    write_values(Evaluation(result.per_query[measures], result.parts), args.per_query_out,
                 about)


def run_evaluate(args: argparse.Namespace) -> int:
    from labeling.metrics.engine import Evaluation
    from labeling.metrics.measures import parse_measure

    measures = list(args.measures)
    for name in measures:
        parse_measure(name)
    floors = _parse_floors(args.fail_under)
    result, columns = _evaluate(args, measures + [m for m in floors if m not in measures])
    names = list(dict.fromkeys(columns[m] for m in measures))
    if args.per_query_out:
        _write_values(args, result, names)
    shown = Evaluation(result.per_query[names], result.parts, result.unanswered)
    if args.engine != "single":  # means combined from the partitions' sums
        shown = dataclasses.replace(result, per_query=shown.per_query)
    write_evaluation(shown, names, args.format, args.per_query, sys.stdout,
                     missing=_missing(args))
    count = shown.query_count(_missing(args))
    if count.returned_nothing and args.format in ("csv", "trec"):
        print(f"scorecard: {count.sentence()}", file=sys.stderr)
    failed = [
        f"{columns[name]} = {result.mean[columns[name]]:.4f} < {floor}"
        for name, floor in floors.items() if result.mean[columns[name]] < floor
    ]
    for line in failed:
        print(f"scorecard: below floor: {line}", file=sys.stderr)
    incomplete = _incomplete_live_run(args)
    if incomplete:
        print(f"scorecard: the run {args.run_name} is {incomplete} (they count as returning "
              "nothing): run `scorecard retrieve` again to complete it", file=sys.stderr)
    return 1 if failed or incomplete else 0


def _incomplete_live_run(args: argparse.Namespace) -> str | None:
    """"incomplete: n queries failed" when the stored run is a live run with failed queries."""
    if not (getattr(args, "db", None) and args.run_name):
        return None
    from labeling.files.live_runs import run_incompleteness
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    try:
        return run_incompleteness(db, args.run_name)
    finally:
        db.close()
