"""``scorecard retrieve DB --connection NAME --run-name NAME``: a live run of a retriever.

Every query (of ``--split``) is asked of the retriever through a stored connection (or one
described in ``--connection-file``, for CI) and the answers are stored as the run ``NAME``.
Running the same command again after failures asks only the queries not done yet.
"""

from __future__ import annotations

import argparse
import sys

from labeling.commands import add_command, read_json_object


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "retrieve", "run a retriever live and store its results as a run",
        "Ask every query (of a split) of a retriever connection: an HTTP JSON search service "
        "(Elasticsearch, OpenSearch, Solr or your own) or a Python callable. Failed queries are "
        "listed and the run is marked incomplete; running the same command again completes it "
        "without asking the finished queries again.", handler=run_retrieve)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--connection", metavar="NAME", help="a stored retriever connection")
    source.add_argument("--connection-file", metavar="FILE.json",
                        help="a connection described in a JSON file (CI; never stored)")
    parser.add_argument("--run-name", required=True, metavar="NAME")
    parser.add_argument("--param", action="append", default=[], metavar="K=V",
                        help="a named template parameter (a JSON number/true/false, else text)")
    parser.add_argument("--split", default=None, help="only the queries of this split")
    parser.add_argument("-k", type=int, default=100, help="results asked per query (100)")
    parser.add_argument("--threads", type=int, default=4, help="queries in flight (4)")
    parser.add_argument("--rate", type=float, default=None, metavar="PER_SECOND",
                        help="at most this many queries start a second (default: no limit)")


def run_retrieve(args: argparse.Namespace) -> int:
    from labeling.files.live_runs import live_run, parse_params
    from labeling.workspace import connections
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.connection_file:
        connection = connections.connection_from_file(read_json_object(args.connection_file),
                                                      args.connection_file)
    else:
        connection = connections.get_retriever(db, args.connection)

    def progress(done: int, total: int, failed: int) -> None:
        print(f"\rretrieve: {done}/{total} queries, {failed} failed", end="", file=sys.stderr,
              flush=True)

    result = live_run(db, connection, args.run_name, params=parse_params(args.param), k=args.k,
                      split=args.split, threads=args.threads, rate=args.rate,
                      progress=progress)
    print(file=sys.stderr)
    for query_id, error in sorted(result.failed.items()):
        print(f"failed: query {query_id}: {error}")
    if result.unknown_ids:
        print(f"hits naming no chunk of the workspace ({result.unknown_hits:,}): "
              + ", ".join(result.unknown_ids))
    print(result.summary())
    _print_comparison(db, args.run_name)
    return 1 if result.incomplete else 0


def _print_comparison(db, run_name: str) -> None:
    """The run against its previous version through the same connection (the tuning loop)."""
    from labeling.evaluation.planning import tuning

    previous = tuning.previous_version(db, run_name)
    if previous is None:
        return
    changed = tuning.setup_change(db, previous, run_name)
    print(f"against the previous version {previous} (changed: "
          + (", ".join(f"{k} {a} -> {b}" for k, (a, b) in changed.items()) or "nothing") + "):")
    for row in tuning.compare_with_previous(db, run_name).itertuples():
        print(f"  {row.measure}: {row.baseline:.4f} -> {row.candidate_mean:.4f} "
              f"({row.difference:+.4f}, 95% interval {row.diff_low:+.4f} to "
              f"{row.diff_high:+.4f}, p = {row.p_randomization:.3g}, n = {row.n} queries)")
