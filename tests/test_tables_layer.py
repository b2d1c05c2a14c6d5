"""The workspace layer owns the tables: no SQL text and no database call outside
``labeling/workspace/``.

SQL text is a string literal (not a docstring) that starts with an SQL statement keyword or
holds an SQL clause (``SELECT … FROM``, ``INSERT INTO``, ``UPDATE … SET``, ``DELETE FROM``,
``WHERE``, ``JOIN``, ``ORDER BY``, a ``= ?`` placeholder); a database call is ``execute``,
``executemany``, ``executescript`` or ``query`` on a connection, a cursor or the workspace
handle. The one exemption is SQL sent to somebody else's database: the PostgreSQL retriever
connection queries the team's own search table, not the workspace."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

LABELING = Path(__file__).resolve().parents[1] / "labeling"
OUTSIDE_DATABASES = {"model_calls/postgres_search.py"}  # a retriever's PostgreSQL, not ours
_STATEMENT = ("SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|WITH|PRAGMA|REPLACE|BEGIN|COMMIT|"
              "ROLLBACK|SAVEPOINT|RELEASE|VACUUM|ATTACH|DETACH|ANALYZE")
SQL = re.compile(
    rf"^\s*({_STATEMENT})\b"
    r"|\bSELECT\b.*\bFROM\b|\bINSERT (OR \w+ )?INTO\b|\bUPDATE \w+ SET\b|\bDELETE FROM\b"
    r"|\b(WHERE|JOIN|ORDER BY|GROUP BY|LIMIT)\b|\w\s*(=|<|>|<=|>=| IN| LIKE)\s*\(?\?",
    re.DOTALL)
ONE_WORDS = {"DROP", "REPLACE", "WITH", "ANALYZE"}  # words of the app's own vocabulary
DATABASE_CALLS = {"execute", "executemany", "executescript", "query"}
DATABASE_OWNER = re.compile(r"(^|\.)(conn|db|connection|cursor|cur|con)$|conn$")


def sql_findings(source: str) -> list[str]:
    """Line and kind of each piece of SQL in a module's source."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and node.value.strip() not in ONE_WORDS
                and SQL.search(node.value)):
            found.append(f"{node.lineno}: SQL text {' '.join(node.value.split())[:60]!r}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in DATABASE_CALLS
              and DATABASE_OWNER.search(ast.unparse(node.func.value))):
            found.append(f"{node.lineno}: database call {ast.unparse(node.func)}(...)")
    return found


def test_no_sql_outside_the_workspace_layer():
    outside = {}
    for path in sorted(LABELING.rglob("*.py")):
        name = path.relative_to(LABELING).as_posix()
        if name.startswith("workspace/") or name in OUTSIDE_DATABASES:
            continue
        if found := sql_findings(path.read_text(encoding="utf-8")):
            outside[name] = found
    assert not outside, f"SQL outside labeling/workspace/ (move it into the workspace): {outside}"


@pytest.mark.parametrize("planted", [
    'rows = db.conn.execute("SELECT id FROM queries").fetchall()',
    'db.conn.executemany(STATEMENT, rows)',
    'STATEMENT = "INSERT INTO label_queue (query_id, chunk_id) VALUES (?, ?)"',
    'where = " AND query_id = ?"',
    'frame = db.query(text)',
    'cursor.execute(text)',
])
def test_the_check_sees_planted_sql(planted):
    assert sql_findings(f'"""A module."""\n\n\ndef f(db, rows, text, cursor):\n    {planted}\n')


@pytest.mark.parametrize("innocent", [
    '"""SELECT in a docstring is prose."""',
    'verdict = "DROP"',
    'help_text = "Transfer the labels of chunk set FROM to chunk set TO"',
    'frame = pandas.read_csv(path)',
])
def test_the_check_leaves_prose_alone(innocent):
    assert not sql_findings(f"{innocent}\n")
