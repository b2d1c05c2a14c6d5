"""Per-query values of a run scored outside the workspace (``scorecard evaluate --engine dask
|spark --per-query-out``), stored with the run so that the dashboard shows them.

The values file is Parquet: query_id plus one float64 column per measure, with what they were
computed from in its metadata (``labeling.cluster.outputs``). ``top``, a file or folder of run
parts (``--top-out``), becomes the run's stored rows: each query's top results, what the
drill-down lists. Without it the values attach to the stored run of that name, or to a new run
without rows. All or nothing, in one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from labeling.errors import InputError, MeasureError
from labeling.files import formats
from labeling.files.importers.lines import batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.runs import (
    RUN_BATCH_ROWS,
    _placeholders,
    _store_run,
    replace_run,
)
from labeling.files.importers.transaction import import_transaction
from labeling.metrics.measures import parse_measure
from labeling.workspace import runs, staged_runs
from labeling.workspace.run_parts import write_run_parts
from labeling.workspace.store import utc_now

if TYPE_CHECKING:
    import sqlite_utils

VALUES_KEY = b"scorecard.values"  # Parquet key-value metadata: what the values came from


@dataclass
class ValuesImport(ImportResult):
    """An ``ImportResult`` that also counts the top rows stored with the values."""

    top_rows: int = 0

    def summary(self) -> str:
        text = f"imported the per-query values of {self.rows} queries"
        return text + (f" and {self.top_rows} top rows" if self.top_rows else "")


def _read_values(path: Path) -> tuple[pa.Table, list[str], dict]:
    source = str(path)
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as error:
        raise InputError(f"cannot read the values file as Parquet: {error}",
                         source=source) from None
    about = json.loads((table.schema.metadata or {}).get(VALUES_KEY, b"{}"))
    if "query_id" not in table.column_names:
        raise InputError("the values file has no query_id column", source=source)
    measures = [c for c in table.column_names if c != "query_id"]
    if not measures:
        raise InputError("the values file holds no measure column", source=source)
    for name in measures:
        try:
            parse_measure(name)
        except MeasureError as error:
            raise InputError(f"column {name!r} is not a measure: {error}", source=source) from None
        if not pa.types.is_floating(table[name].type) and not pa.types.is_integer(
                table[name].type):
            raise InputError(f"column {name!r} is not numeric", source=source)
    query_id = table["query_id"].cast(pa.string())
    if query_id.null_count:
        raise InputError("a query_id is empty", source=source)
    if len(query_id.unique()) != len(query_id):
        raise InputError("a query_id appears twice", source=source)
    columns = {"query_id": query_id}
    columns.update({m: table[m].cast(pa.float64()) for m in measures})
    return pa.table(columns), measures, about


def _blob(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, table.schema,
                        options=ipc.IpcWriteOptions(compression="lz4")) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def import_values(
    db: sqlite_utils.Database,
    path: str | Path,
    run_name: str,
    *,
    top: str | Path | None = None,
    replace: bool = False,
) -> ImportResult:
    """Store the per-query values in ``path`` as run ``run_name``'s (see the module
    docstring); ``top`` (a file or folder of run parts) becomes the run's rows."""
    path = Path(path)
    table, measures, about = _read_values(path)
    result = ValuesImport("per-query value")
    with import_transaction(db, str(path)) as conn:
        stored_id = runs.run_id(conn, run_name)
        if top is not None or stored_id is None:
            meta = {"notes": f"scored by {about.get('engine', 'an outside engine')}; values "
                             f"from {path.name}"}
            run_id = replace_run(conn, run_name, meta, replace, str(path))
        else:
            run_id = stored_id
        if top is not None:
            _store_top(db, run_id, Path(top), result)
        runs.put_run_values(conn, run_id, measures=measures, labels=about,
                            engine=str(about.get("engine", "unknown")), queries=table.num_rows,
                            data=_blob(table), created_at=utc_now())
    result.rows = table.num_rows
    return result


def _store_top(db, run_id: int, top: Path, result: ImportResult) -> None:
    """The run's rows from the part files of ``top`` (placeholders for unknown ids)."""
    parts = [top] if top.is_file() else sorted(
        p for p in top.rglob("*") if p.is_file() and not p.name.startswith(("_", ".")))
    if not parts:
        raise InputError("no part files", source=str(top))
    added = stored = 0
    for part in parts:
        frames = formats.iter_run_batches(part, batch_rows=RUN_BATCH_ROWS)
        with staged_runs.foreign_keys_off(db.conn):  # deferred to the COMMIT
            done = _store_run(db, run_id, batches(frames, part, None), strict=False,
                              source=str(part))
            added += sum(_placeholders(db.conn, done.unknown))
        stored += done.rows
        result.warnings += done.warnings
    write_run_parts(db.conn, run_id)
    result.top_rows = stored
