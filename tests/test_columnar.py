"""Reading SQLite columns as Arrow without a Python object per row (labeling.workspace.columnar)
gives exactly what a row-by-row read gives, whatever the text holds: the separator itself,
newlines, commas, quotes, NUL, non-ASCII, markup; NULL integers; several key ranges."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.workspace import columnar
from tests.hostile import TEXT

TRICKY = ["a\x1fb", "\x1f", "", "line\nbreak", 'co,mma "quoted"', "x\x00y", "é✓ 𝄞", TEXT]


def _table(rows: list[tuple[str | None, int | None]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, n INTEGER)")
    conn.executemany("INSERT INTO t (s, n) VALUES (?, ?)", rows)
    return conn


@pytest.mark.parametrize("batch", [1, 3, 500_000])
def test_tricky_text_reads_back_exactly(monkeypatch, batch):
    monkeypatch.setattr(columnar, "BATCH_ROWS", batch)
    rows = [(s, i if i % 3 else None) for i, s in enumerate(TRICKY)] + [(None, 7)]
    table = columnar.read_columns(_table(rows), "t", text=["s"], integer=["id", "n"])
    assert table["s"].to_pylist() == [s for s, _ in rows[:-1]] + [""]  # NULL text reads ""
    assert table["n"].to_pylist() == [n for _, n in rows]
    assert table["id"].to_pylist() == list(range(1, len(rows) + 1))


def test_a_filter_and_an_expression():
    conn = _table([("a", 1), ("b", 2), ("c", 3)])
    table = columnar.read_columns(conn, "t", text={"up": "upper(s)"}, integer=["n"],
                                  where="n >= ?", params=[2])
    assert table.to_pylist() == [{"up": "B", "n": 2}, {"up": "C", "n": 3}]
    assert columnar.read_columns(_table([]), "t", text=["s"]).num_rows == 0


@settings(max_examples=50, deadline=None)
@given(rows=st.lists(st.tuples(st.text(max_size=6), st.one_of(st.none(), st.integers(
    -2**63, 2**63 - 1))), max_size=30), batch=st.integers(1, 8))
def test_any_text_equals_the_row_by_row_read(rows, batch):
    rows = [(s.replace("\x00", ""), n) for s, n in rows]
    conn = _table(rows)
    original = columnar.BATCH_ROWS
    columnar.BATCH_ROWS = batch
    try:
        table = columnar.read_columns(conn, "t", text=["s"], integer=["n"])
    finally:
        columnar.BATCH_ROWS = original
    assert list(zip(table["s"].to_pylist(), table["n"].to_pylist(), strict=True)) == \
        conn.execute("SELECT s, n FROM t ORDER BY id").fetchall()
