"""``scorecard connection DB add | remove | list``: the named connections to outside servers that
the app's users pick from (a model server for the machine judge and the question generator).

The command line runs as the workspace's owner; in the app only admins change connections. The
key is never given here: ``--key-env`` names the environment variable that holds it where the
app or the command runs.
"""

from __future__ import annotations

import argparse

from labeling.commands import add_command, read_json_object

# labeling.workspace.connections.KINDS (a test keeps them in step)
KINDS = ("model_server", "http_json", "python", "postgres_fts")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "connection", "named connections to outside servers (admins)",
        "Store, change, list or remove the named connections people pick on the pages: a model "
        "server (an OpenAI-compatible chat server) with its base URL, model, the NAME of the "
        "environment variable holding its key (never the key) and the most calls one batch may "
        "send; or a retriever: an HTTP JSON search service (--kind http_json, with --preset "
        "elasticsearch|opensearch|solr or --options FILE.json) or a Python callable (--kind "
        "python, --base-url module:callable). Nobody but an admin chooses where the app sends "
        "requests.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="store a connection (or change the one of that name)")
    add.add_argument("name")
    add.add_argument("--kind", choices=KINDS, default="model_server")
    add.add_argument("--base-url", required=True,
                     help="e.g. http://127.0.0.1:8080/v1; a retriever's endpoint "
                     "(http://host:9200/INDEX/_search); a Python retriever's module:callable")
    add.add_argument("--model", default="", help="the model the server runs (model servers)")
    add.add_argument("--preset", choices=("elasticsearch", "opensearch", "solr"),
                     help="an HTTP JSON retriever's request and reply shape")
    add.add_argument("--text-field", default="text", help="the field a preset searches (text)")
    add.add_argument("--id-field", default="",
                     help="the source field holding the chunk id (default: the hit's own id)")
    add.add_argument("--table", default=None,
                     help="the table a PostgreSQL full-text connection searches (chunks)")
    add.add_argument("--options", metavar="FILE.json", default=None,
                     help="an HTTP JSON retriever's options (method, headers, body, query, "
                     "hits_path, id_path, score_path, params); over the preset's")
    add.add_argument("--key-env", default="", metavar="VARIABLE",
                     help="environment variable holding the API key (none for local servers)")
    add.add_argument("--call-ceiling", type=int, default=500, metavar="N",
                     help="most requests one batch may send (default 500)")
    add.set_defaults(handler=run_connection)
    remove = actions.add_parser("remove", help="forget a connection")
    remove.add_argument("name")
    remove.add_argument("--kind", choices=KINDS, default="model_server")
    remove.set_defaults(handler=run_connection)
    listing = actions.add_parser("list", help="list the connections (never a key)")
    listing.add_argument("--kind", choices=KINDS, default="model_server")
    listing.set_defaults(handler=run_connection)


def run_connection(args: argparse.Namespace) -> int:
    from labeling.workspace import connections
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.action == "add":
        saved = connections.save_connection(db, args.kind, args.name, args.base_url, args.model,
                                            args.key_env, args.call_ceiling,
                                            options=_options(args))
        print(f"stored {saved.describe()}")
    elif args.action == "remove":
        connections.remove_connection(db, args.kind, args.name)
        print(f"removed {args.name}")
    else:
        found = connections.list_connections(db, args.kind)
        for connection in found:
            print(connection.describe())
        if not found:
            print("no connections yet")
    return 0


def _options(args: argparse.Namespace) -> dict | None:
    """An HTTP JSON retriever's options: the preset's, then the options file's over them."""

    from labeling.workspace import connections

    if args.kind == "postgres_fts":
        options = {"table": args.table or "chunks", "text_column": args.text_field}
        return {**options, "id_column": args.id_field or "id"}
    if args.kind != "http_json":
        return None
    options = connections.preset_options(args.preset, text_field=args.text_field,
                                         id_field=args.id_field) if args.preset else {}
    if args.options:
        options.update(read_json_object(args.options))
    return options
