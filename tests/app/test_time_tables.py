"""``pages._common.dataframe``: a table with workspace times shows each exact time on hover (the
time table) up to ``HOVER_ROWS`` rows, with no exact-time column; a longer one, or one with no
time, is ``st.dataframe`` (the longer one with the exact time in a column beside)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from pages._common import HOVER_ROWS
from tests.tables import time_tables


def _page() -> None:
    import pandas as pd

    from pages import _common

    rows = _common.HOVER_ROWS + 1
    frame = pd.DataFrame({"name": [f"set {i}" for i in range(rows)],
                          "created_at": ["2026-05-09T12:02:00+00:00"] * rows})
    _common.dataframe(frame.head(_common.HOVER_ROWS), "short", hide_index=True)
    _common.dataframe(frame, "long", hide_index=True)
    _common.dataframe(frame[["name"]].head(3), "no_time", hide_index=True)


def test_hover_up_to_the_row_limit_then_the_grid_with_the_exact_column() -> None:
    at = AppTest.from_function(_page).run()
    assert not at.exception
    hovering = time_tables(at)
    assert list(hovering) == ["short"]
    short = hovering["short"]
    assert [c["name"] for c in short["columns"]] == ["name", "created_at"]
    assert len(short["rows"]) == HOVER_ROWS
    assert {row[1]["title"] for row in short["rows"]} == {"2026-05-09T12:02:00+00:00"}
    long, no_time = (d.value for d in at.dataframe)  # AppTest gives st.dataframe no key
    assert list(long.columns) == ["name", "created_at", "created_at (exact)"]
    assert len(long) == HOVER_ROWS + 1
    assert set(long["created_at (exact)"]) == {"2026-05-09T12:02:00+00:00"}
    assert list(no_time.columns) == ["name"]
