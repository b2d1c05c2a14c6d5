"""Files in memory for the app: uploads imported from bytes, exports as bytes for download
buttons (a temporary file under the hood, removed after).
"""

from __future__ import annotations

import io
import re
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from labeling.errors import InputError
from labeling.files import exporters as exports
from labeling.files import importers as imports
from labeling.judging.visibility import Sight

if TYPE_CHECKING:
    import sqlite_utils

# ---------------------------------------------------------------------------------------------
# Exports as bytes (for download buttons)


def _via_file(write, name: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        write(path)
        return path.read_bytes()


def safe_filename(name: str) -> str:
    """``name`` reduced to letters, digits, ``.``, ``_`` and ``-`` (for download file names)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "export"


def qrels_bytes(
    db: sqlite_utils.Database, sight: Sight | None = None, chunk_set: str | None = None,
    all_chunk_sets: bool = False,
) -> bytes:
    """Consensus qrels in TREC format (the pairs ``sight`` may see; default all), of one chunk
    set or every one as ``exporters.export_qrels`` takes them."""
    return _via_file(lambda p: exports.export_qrels(db, p, sight=sight, chunk_set=chunk_set,
                                                    all_chunk_sets=all_chunk_sets),
                     "qrels.txt")


def run_bytes(db: sqlite_utils.Database, run_name: str) -> bytes:
    """The stored run ``run_name`` in TREC run format."""
    return _via_file(lambda p: exports.export_run(db, run_name, p), "run.trec")


def judgments_csv_bytes(db: sqlite_utils.Database, sight: Sight | None = None) -> bytes:
    """The judgment history as CSV (what ``sight`` may see; default all)."""
    return _via_file(lambda p: exports.export_judgments(db, p, sight=sight), "judgments.csv")


def beir_zip_bytes(
    db: sqlite_utils.Database, folder_name: str = "beir", sight: Sight | None = None
) -> bytes:
    """The workspace as a BEIR folder, zipped (files under ``folder_name/``; qrels: the pairs
    ``sight`` may see, default all)."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / folder_name
        exports.export_beir(db, root, sight=sight)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(root.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(Path(tmp)).as_posix())
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# Imports from uploaded bytes

IMPORT_KINDS = ("chunks", "queries", "qrels", "run")
# Same as `[server] maxUploadSize` in .streamlit/config.toml (MB), so the message is ours.
MAX_UPLOAD_MB = 200


def import_bytes(
    db: sqlite_utils.Database,
    kind: str,
    file_name: str,
    data: bytes,
    *,
    annotator: str | None = None,
    run_name: str | None = None,
    meta: Mapping[str, object] | None = None,
    strict: bool = False,
    replace: bool = False,
) -> imports.ImportResult:
    """Import an uploaded file's bytes with the matching ``labeling.files.importers`` function.

    The bytes go to a temporary file named like the upload (formats are recognised by the file
    extension); errors name the upload, not the temporary path. Qrels are labels of origin
    ``import`` from the upload's file name, recorded under ``annotator`` or, by default, under
    that file name: never under the name of the person who uploads them.
    """
    if kind not in IMPORT_KINDS:
        raise InputError(f"unknown import kind {kind!r}", source=file_name)
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise InputError(
            f"the file is {len(data) / 1024 / 1024:.1f} MB, over the {MAX_UPLOAD_MB} MB upload "
            "limit; import it with `scorecard import` instead",
            source=file_name,
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / safe_filename(Path(file_name).name)
        path.write_bytes(data)
        try:
            if kind == "chunks":
                return imports.import_chunks(db, path)
            if kind == "queries":
                return imports.import_queries(db, path)
            if kind == "qrels":
                return imports.import_qrels(db, path, annotator=annotator, strict=strict,
                                            source_name=Path(file_name).name)
            name = (run_name or "").strip()
            if not name:
                raise InputError("enter a name for the run", source=file_name)
            clean_meta = {k: v for k, v in (meta or {}).items() if v not in (None, "")}
            return imports.import_run(db, path, name, clean_meta, strict=strict, replace=replace)
        except InputError as error:
            if error.source and str(path) in error.source:
                error.source = error.source.replace(str(path), file_name)
            elif error.source is None:
                error.source = file_name
            raise
