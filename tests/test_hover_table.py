"""The cells of a table that shows each time's exact time on hover
(``readable_times.hover_table``): readable text, the exact time as the title of time cells only,
empty and non-time values, and hostile text passed through as data."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd

from labeling import readable_times
from tests import hostile

NOW = datetime(2026, 5, 9, 14, 30, tzinfo=UTC)
RTL = "\u202eevil\u202c"
LONG = "x" * 10_000


def test_time_cells_read_as_people_say_them_with_the_exact_time_as_title() -> None:
    frame = pd.DataFrame({"name": ["a", "b"],
                          "created_at": ["2026-05-09T12:02:00+00:00", "2026-05-06T09:15:00"]})
    table = readable_times.hover_table(frame, "Europe/Berlin", now=NOW)
    assert [c["name"] for c in table["columns"]] == ["name", "created_at"]  # no exact column
    assert table["columns"][0]["help"] is None
    assert "Europe/Berlin" in table["columns"][1]["help"]
    assert table["rows"][0][1] == {
        "text": "today 14:02",
        "title": "2026-05-09T12:02:00+00:00 (2026-05-09 14:02:00 Europe/Berlin)",
        "datetime": "2026-05-09T12:02:00+00:00"}
    assert table["rows"][1][1] == {  # no zone in the stamp: UTC
        "text": "3 days ago",
        "title": "2026-05-06T09:15:00+00:00 (2026-05-06 11:15:00 Europe/Berlin)",
        "datetime": "2026-05-06T09:15:00+00:00"}
    assert table["rows"][0][0] == {"text": "a"}  # a column that is not a time: no title


def test_empty_and_non_timestamp_values_have_no_exact_time() -> None:
    frame = pd.DataFrame({"set_at": [None, "", "not a time", np.nan]})
    cells = [row[0] for row in readable_times.hover_table(frame, now=NOW)["rows"]]
    assert cells == [{"text": ""}, {"text": ""}, {"text": "not a time"}, {"text": ""}]


def test_numbers_as_text_and_number_columns_marked() -> None:
    frame = pd.DataFrame({"n": [1, 2], "share": [1 / 3, 2.0], "ok": [True, False],
                          "missing": [np.nan, 0.5], "when_at": ["", ""]})
    table = readable_times.hover_table(frame, now=NOW)
    assert [c["numeric"] for c in table["columns"]] == [True, True, False, True, False]
    assert [[cell["text"] for cell in row] for row in table["rows"]] == [
        ["1", "0.3333", "True", "", ""], ["2", "2", "False", "0.5", ""]]


def test_hostile_text_is_passed_through_unchanged_as_data() -> None:
    texts = [hostile.IMG_TAG, hostile.SCRIPT, "**bold**", hostile.FORMULA, RTL, LONG]
    frame = pd.DataFrame({"name": texts, "created_at": texts})
    table = readable_times.hover_table(frame, now=NOW)
    assert [row[0] for row in table["rows"]] == [{"text": t} for t in texts]
    assert [row[1] for row in table["rows"]] == [{"text": t} for t in texts]  # not times
    hostile_name = pd.DataFrame({hostile.IMG_TAG: ["x"]})
    assert readable_times.hover_table(hostile_name)["columns"][0]["name"] == hostile.IMG_TAG
