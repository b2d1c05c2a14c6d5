"""Every judgment as columns, the oldest ones from a copy beside the workspace.

Reading a million judgments from SQLite is most of a consensus's time. Judgments are
append-only, so an Arrow copy of them up to judgment ``n`` (``.<workspace>.cache/
judgments-<n>-<time>.arrow``) stays right as long as judgment ``n`` is the one it saw (same
time): then only the judgments after it are read from SQLite. Another history at the same path
(a restored backup) shows as another time and drops the copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from labeling.evaluation.inputs.result_cache import _cache_dir
from labeling.workspace import judgments as stored_judgments
from labeling.workspace import private_files

if TYPE_CHECKING:
    import sqlite_utils

# A columnar copy of the judgments beside the workspace is worth writing once this many
# judgments came after the one it holds (reading them from SQLite is the slow part).
JUDGMENT_COPY_ROWS = 100_000


def judgment_columns(db: sqlite_utils.Database, version: tuple[int, str]) -> pa.Table:
    """Every judgment as columns (``workspace.judgments.judgment_columns``), the oldest ones from an
    Arrow copy in ``.<workspace>.cache/`` when there is one: judgments are append-only, so a
    copy up to judgment ``n`` stays right as long as judgment ``n`` is the one it saw (same
    time); only the judgments after it are read from SQLite."""
    folder = _cache_dir(db)
    if folder is None:
        return stored_judgments.judgment_columns(db)
    copy, upto = None, 0
    for path in folder.glob("judgments-*.arrow"):
        seen = _version_of(path.stem)
        if seen is not None and same_history(db, seen):
            copy, upto = path, seen[0]
        else:
            path.unlink(missing_ok=True)
    old = None
    if copy is not None:
        with pa.memory_map(str(copy)) as source:
            old = pa.ipc.open_file(source).read_all()
        if set(old.schema.names) != set(stored_judgments.JUDGMENT_COLUMNS):
            old, upto = None, 0  # written by a version that read other columns
    columns = stored_judgments.judgment_columns(db, after_id=upto)
    if old is not None:
        columns = pa.concat_tables([old, columns.cast(old.schema)]).combine_chunks()
    if columns.num_rows and version[0] - upto >= JUDGMENT_COPY_ROWS:
        target = folder / f"judgments-{version[0]}-{version[1].encode().hex()}.arrow"
        partial = target.with_name(target.name + ".partial")
        try:
            private_files.private_folder(folder)
            with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(
                    sink, columns.schema) as writer:
                writer.write_table(columns)
            private_files.keep_private(partial)
            partial.replace(target)
            if copy is not None and copy != target:
                copy.unlink(missing_ok=True)
        except OSError:  # a read-only folder: work without the copy
            partial.unlink(missing_ok=True)
    return columns


def _version_of(stem: str) -> tuple[int, str] | None:
    """The judgment version a copy's name records (``judgments-<id>-<time as hex>``)."""
    stamp = stem.split("-", 2)
    try:
        return int(stamp[1]), bytes.fromhex(stamp[2]).decode()
    except (IndexError, ValueError):
        return None


def same_history(db: sqlite_utils.Database, version: tuple[int, str]) -> bool:
    """Whether judgment ``version[0]`` is still the one read then (same time): the file holds
    the same history up to it."""
    if version[0] == 0:
        return True
    return stored_judgments.judgment_time(db, version[0]) == version[1]


