"""One cell of an imported record as the value the workspace stores, or an error naming its line.

Every function takes the row's position in its batch and the batch's ``RowLines``, so that a
refusal names the file's line.
"""

from __future__ import annotations

import json
from typing import Any

from labeling.errors import InputError
from labeling.files.formats.tabular import TOO_DEEP
from labeling.files.formats.values import json_kind, plain_value
from labeling.files.importers.lines import RowLines
from labeling.workspace.ids import problem as id_problem


def metadata(value: Any, source: str, lines: RowLines, row: int) -> dict:
    """A record's ``metadata``: a JSON object, or its JSON text (a CSV cell); missing is {}."""
    value = plain_value(value)
    if value is None or value == "":
        return {}
    parsed = value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            parsed = value
    if not isinstance(parsed, dict):
        raise InputError(
            f"metadata must be a JSON object, found {json_kind(value)}",
            source=source,
            line=int(lines[row]),
        )
    return dict(parsed)


def json_text(value: Any, source: str, lines: RowLines, row: int) -> str:
    """``value`` as JSON text for a metadata column; too deep a nesting is an input error."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        raise InputError(TOO_DEEP, source=source, line=int(lines[row])) from None


def text(value: Any, column: str, source: str, lines: RowLines, row: int) -> Any:
    """A text cell (``text``, ``title``): a JSON list or object there is an input error."""
    value = plain_value(value)
    if isinstance(value, (list, dict)):
        raise InputError(
            f"{column} must be text, found {json_kind(value)}", source=source, line=int(lines[row])
        )
    return value


def doc_id(value: Any, source: str, lines: RowLines, row: int) -> str | None:
    """A chunk's document id (from a column or BEIR metadata): text TREC files can hold."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    reason = id_problem("doc_id", value)
    if reason is not None:
        raise InputError(reason, source=source, line=int(lines[row]))
    return value
