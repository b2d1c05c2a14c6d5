"""``scorecard connection DB add | remove | list``: the named connections to outside servers that
the app's users pick from (a model server for the machine judge and the question generator).

The command line runs as the workspace's owner; in the app only admins change connections. The
key is never given here: ``--key-env`` names the environment variable that holds it where the
app or the command runs.
"""

from __future__ import annotations

import argparse

from labeling.commands import add_command

KINDS = ("model_server",)  # labeling.workspace.connections.KINDS (a test keeps them in step)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "connection", "named connections to outside servers (admins)",
        "Store, change, list or remove the named connections people pick on the pages: a model "
        "server (an OpenAI-compatible chat server) with its base URL, model, the NAME of the "
        "environment variable holding its key (never the key) and the most calls one batch may "
        "send. Nobody but an admin chooses where the app sends requests.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="store a connection (or change the one of that name)")
    add.add_argument("name")
    add.add_argument("--kind", choices=KINDS, default="model_server")
    add.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8080/v1")
    add.add_argument("--model", required=True, help="the model the server runs")
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
                                            args.key_env, args.call_ceiling)
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
