"""Small modules and short functions in the core: no module of ``labeling/`` over 500 lines and
no function over 60 (a function's lines run from its ``def`` to its last line, docstring
included)."""

from __future__ import annotations

import ast
from pathlib import Path

LABELING = Path(__file__).resolve().parents[1] / "labeling"
MODULE_LINES = 500
FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(LABELING.rglob("*.py"))


def long_functions(source: str) -> list[str]:
    """Name, first line and length of each function longer than ``FUNCTION_LINES``."""
    return [
        f"{node.name} (line {node.lineno}, {node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]


def test_no_module_over_500_lines():
    long = {p.relative_to(LABELING).as_posix(): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert not long, f"modules over {MODULE_LINES} lines (split them by job): {long}"


def test_no_function_over_60_lines():
    long = {p.relative_to(LABELING).as_posix(): found for p in _modules()
            if (found := long_functions(p.read_text(encoding="utf-8")))}
    assert not long, f"functions over {FUNCTION_LINES} lines: {long}"


def test_the_check_sees_a_long_function():
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}") == [f"f (line 1, {FUNCTION_LINES + 1} lines)"]
    assert not long_functions("def g():\n    return 1\n")
