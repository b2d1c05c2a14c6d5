"""``scorecard user add | remove | role | list`` and ``scorecard backup``.

The command line runs as the owner of the workspace file: trusted, no sign-in (whoever can
write the file can change it anyway). Passwords come from ``--password-stdin`` (one line) or an
interactive prompt, never from an argument (it would show in the shell history and ``ps``).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from labeling.errors import ScorecardError


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        line = sys.stdin.readline()
        return line.removesuffix("\n").removesuffix("\r")
    if not sys.stdin.isatty():
        raise ScorecardError("no terminal to ask the password on: use --password-stdin")
    first = getpass.getpass(f"Password for {args.name}: ")
    if getpass.getpass("Again: ") != first:
        raise ScorecardError("the two passwords differ")
    return first


def _user(args: argparse.Namespace) -> int:
    from labeling.workspace import accounts, roles
    from labeling.workspace.store import open_workspace

    db = open_workspace(args.db, create=False)
    if args.action == "add":
        password = _read_password(args)
        accounts.add_user(db, args.name, args.role, password)
        print(f"added {args.name} ({args.role}); sign-in is on for this workspace")
    elif args.action == "remove":
        accounts.remove_user(db, args.name)
        tail = "" if roles.accounts_enabled(db) else "; no accounts left: sign-in is off"
        print(f"removed {args.name}{tail}")
    elif args.action == "role":
        accounts.set_role(db, args.name, args.role)
        print(f"{args.name} is now {args.role}")
    elif args.action == "password":
        accounts.set_password(db, args.name, _read_password(args))
        print(f"password of {args.name} changed")
    else:
        users = accounts.list_users(db)
        for user in users:
            print(f"{user['name']}\t{user['role']}\t{user['created_at']}")
        if not users:
            print("no accounts: sign-in is off", file=sys.stderr)
    return 0


def _backup(args: argparse.Namespace) -> int:
    from labeling.workspace.backup import backup

    print(backup(args.db, args.out, overwrite=args.overwrite).summary())
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    db_help = "workspace file (SQLite)"
    user = subparsers.add_parser(
        "user",
        help="manage sign-in accounts and roles",
        description="Accounts of the app. With none, sign-in is off; roles: admin (import, "
        "lock the test split, manage accounts), annotator (judge, review), viewer (read only).",
    )
    actions = user.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add an account", description="Add an account.")
    remove = actions.add_parser(
        "remove", help="remove an account", description="Remove an account."
    )
    role = actions.add_parser(
        "role", help="change an account's role", description="Change an account's role."
    )
    password = actions.add_parser(
        "password", help="change an account's password", description="Set a new password."
    )
    listing = actions.add_parser("list", help="list accounts", description="List accounts.")
    for sub in (add, remove, role, password, listing):
        sub.add_argument("db", metavar="DB", type=Path, help=db_help)
    for sub in (add, remove, role, password):
        sub.add_argument("name", metavar="NAME", help="account name")
    role.add_argument("role", metavar="ROLE", choices=("admin", "annotator", "viewer"))
    add.add_argument(
        "--role", required=True, choices=("admin", "annotator", "viewer"), help="the role"
    )
    for sub in (add, password):
        sub.add_argument(
            "--password-stdin",
            action="store_true",
            help="read the password from the first line of stdin instead of a prompt",
        )
    user.set_defaults(handler=_user)

    back = subparsers.add_parser(
        "backup",
        help="copy a workspace safely while the app runs",
        description="Copy a workspace with SQLite's online backup API (safe while the app "
        "writes); the copy is checked before it is renamed to OUT.",
    )
    back.add_argument("db", metavar="DB", type=Path, help=db_help)
    back.add_argument("out", metavar="OUT", type=Path, help="the backup file to write")
    back.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    back.set_defaults(handler=_backup)
