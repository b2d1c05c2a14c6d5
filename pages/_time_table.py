"""A read-only table that shows each workspace time as people read it, with the exact time on
hover: a ``st.components.v2`` component, registered once when this module is imported.

``st.dataframe`` cannot give one cell a tooltip (its cells have none; a column's ``help`` is the
header's), so the table is drawn by this component's own JavaScript, in a shadow root (its
styles stay inside), from the cells ``labeling.readable_times.hover_table`` gives: built with
DOM calls only (``createElement``, ``textContent``, ``setAttribute``), never by parsing the data
as HTML, so any text in a cell (markup, formulas, right-to-left marks) is shown as text. A time
cell is ``<time datetime="UTC ISO" title="exact time">today 14:02</time>``. The look follows the
app's theme through the ``--st-*`` CSS variables Streamlit sets on a component's wrapper (seen
in Chromium with Streamlit 1.67: ``--st-font``, ``--st-text-color``, ``--st-border-color``,
``--st-dataframe-border-color``, ``--st-dataframe-header-background-color``,
``--st-dataframe-header-text-color``, ``--st-secondary-background-color``, ``--st-base-radius``),
each with a fallback.
"""

from __future__ import annotations

import streamlit as st

COMPONENT_NAME = "scorecard_time_table"
MAX_HEIGHT_REM = 25  # about the height of a ten-row st.dataframe; taller tables scroll
# A cell is one line at most this wide, cut with an ellipsis; a text longer than LONG_TEXT
# characters (which may be cut) shows whole on hover, as the cell's title.
CELL_REM = 20
LONG_TEXT = 30

_HTML = '<div class="time-table"></div>'

_CSS = f"""
.time-table {{
  font-family: var(--st-font, "Source Sans", sans-serif);
  font-size: 0.875rem;
  color: var(--st-text-color, #31333f);
}}
.frame {{
  max-height: {MAX_HEIGHT_REM}rem;
  overflow: auto;
  border: 1px solid var(--st-dataframe-border-color, var(--st-border-color, #d5dae5));
  border-radius: var(--st-base-radius, 0.5rem);
}}
table {{ border-collapse: separate; border-spacing: 0; min-width: 100%; }}
th, td {{
  padding: 0.3rem 0.6rem;
  text-align: left;
  vertical-align: top;
  border-bottom: 1px solid var(--st-dataframe-border-color, var(--st-border-color, #e6e9ef));
  border-right: 1px solid var(--st-dataframe-border-color, var(--st-border-color, #e6e9ef));
  max-width: {CELL_REM}rem;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  unicode-bidi: isolate;
}}
th:last-child, td:last-child {{ border-right: none; }}
tbody tr:last-child td {{ border-bottom: none; }}
th {{
  position: sticky;
  top: 0;
  font-weight: 400;
  white-space: nowrap;
  color: var(--st-dataframe-header-text-color, inherit);
  background: var(--st-dataframe-header-background-color,
                  var(--st-secondary-background-color, #f0f2f6));
}}
td.numeric {{ text-align: right; font-variant-numeric: tabular-nums; }}
time[title] {{ text-decoration: underline dotted; cursor: help; }}
.empty {{ padding: 0.5rem 0.6rem; opacity: 0.7; }}
"""

# DOM calls only: data is set as textContent and attribute values, never parsed as HTML.
_JS = f"const LONG_TEXT = {LONG_TEXT};\n" + """
function headerRow(columns) {
  const row = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.textContent = column.name;
    if (column.help) th.setAttribute("title", column.help);
    row.appendChild(th);
  }
  return row;
}

function cell(column, value) {
  const td = document.createElement("td");
  if (column.numeric) td.className = "numeric";
  if (value.title) {
    const time = document.createElement("time");
    time.setAttribute("datetime", value.datetime || "");
    time.setAttribute("title", value.title);
    time.textContent = value.text;
    td.appendChild(time);
  } else {
    td.textContent = value.text;
    if (value.text.length > LONG_TEXT) td.setAttribute("title", value.text);
  }
  return td;
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".time-table");
  const columns = (data && data.columns) || [];
  const rows = (data && data.rows) || [];
  const head = document.createElement("thead");
  head.appendChild(headerRow(columns));
  const body = document.createElement("tbody");
  for (const values of rows) {
    const row = document.createElement("tr");
    values.forEach((value, i) => row.appendChild(cell(columns[i], value)));
    body.appendChild(row);
  }
  const table = document.createElement("table");
  table.append(head, body);
  const frame = document.createElement("div");
  frame.className = "frame";
  frame.appendChild(table);
  const shown = [frame];
  if (!rows.length) {
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "No rows.";
    shown.push(empty);
  }
  root.replaceChildren(...shown);
}
"""

_mount = st.components.v2.component(
    COMPONENT_NAME, html=_HTML, css=_CSS, js=_JS, isolate_styles=True)


def time_table(table: dict[str, list], key: str) -> None:
    """Draw ``table`` (``labeling.readable_times.hover_table``) under the element key ``key``."""
    _mount(key=key, data=table)
