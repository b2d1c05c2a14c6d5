"""The tables a page shows, read back from an AppTest run: every ``st.dataframe`` and every time
table (``pages/_time_table.py``, a ``st.components.v2`` element, which AppTest lists as an
unknown ``bidi_component`` element carrying its JSON data).

A time table reads back as a DataFrame of the texts shown (times as people read them), its
number columns as numbers again (an empty cell is NaN), so that tests read both kinds alike;
``time_tables`` gives the cells themselves (with each time's ``title``, the exact time).
"""

from __future__ import annotations

import json

import pandas as pd
from streamlit.testing.v1 import AppTest

from pages._time_table import COMPONENT_NAME


def time_tables(at: AppTest) -> dict[str, dict]:
    """Element key -> the data (``{"columns", "rows"}``) of every time table shown."""
    found = {}
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.component_name == COMPONENT_NAME:
            payload = proto.json if proto.WhichOneof("data") == "json" else proto.mixed.json
            found[element.key or proto.id] = json.loads(payload)
    return found


def as_frame(table: dict) -> pd.DataFrame:
    """A time table's data as the DataFrame of what it shows."""
    names = [c["name"] for c in table["columns"]]
    frame = pd.DataFrame([[cell["text"] for cell in row] for row in table["rows"]],
                         columns=names, dtype=object)
    for column in table["columns"]:
        if column["numeric"]:
            frame[column["name"]] = pd.to_numeric(frame[column["name"]].replace("", None))
    return frame


def tables(at: AppTest) -> list[pd.DataFrame]:
    """Every table shown: the ``st.dataframe`` values, then the time tables, each in page
    order."""
    return [d.value for d in at.dataframe] + [as_frame(t) for t in time_tables(at).values()]


def table_with(at: AppTest, *columns: str) -> pd.DataFrame:
    """The first table shown (``tables``) that has all of ``columns``."""
    return next(t for t in tables(at) if set(columns) <= set(t.columns))
