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

from labeling.commands import add_command
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


# ``labeling.workspace.roles.ROLES``, listed here so that building the parser does not import the
# store (a test keeps the two in step).
ROLE_NAMES = ("admin", "annotator", "viewer")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the user and backup commands."""
    _register_user(subparsers)
    backup = add_command(
        subparsers, "backup", "copy a workspace safely while the app runs",
        "Copy a workspace with SQLite's online backup API (safe while the app writes); the copy "
        "is checked before it is renamed to OUT.",
        _backup,
    )
    backup.add_argument("out", metavar="OUT", type=Path, help="the backup file to write")
    backup.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")


def _register_user(subparsers: argparse._SubParsersAction) -> None:
    user = add_command(
        subparsers, "user", "manage sign-in accounts and roles",
        "Accounts of the app. With none, sign-in is off; roles: admin (import, lock the test "
        "split, manage accounts), annotator (judge, review), viewer (read only).",
        _user,
        db=False,
    )
    actions = user.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = add_command(actions, "add", "add an account", "Add an account.")
    remove = add_command(actions, "remove", "remove an account", "Remove an account.")
    role = add_command(actions, "role", "change an account's role", "Change an account's role.")
    password = add_command(
        actions, "password", "change an account's password", "Set a new password."
    )
    add_command(actions, "list", "list accounts", "List accounts.")
    for sub in (add, remove, role, password):
        sub.add_argument("name", metavar="NAME", help="account name")
    role.add_argument("role", metavar="ROLE", choices=ROLE_NAMES)
    add.add_argument("--role", required=True, choices=ROLE_NAMES, help="the role")
    for sub in (add, password):
        sub.add_argument(
            "--password-stdin",
            action="store_true",
            help="read the password from the first line of stdin instead of a prompt",
        )
