"""Documents and chunk sets from uploaded bytes (the app's import): written to a temporary
folder under their own names, imported with ``labeling.files.importers``, and errors re-worded
to name the upload rather than the temporary path."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from labeling.errors import InputError
from labeling.files import importers
from labeling.files.importers import ImportResult
from labeling.files.importers.documents import DOCUMENT_SUFFIXES
from labeling.files.uploads import MAX_UPLOAD_MB, safe_filename

if TYPE_CHECKING:
    import sqlite_utils

RECORD_SUFFIXES = (".jsonl", ".csv", ".tsv", ".parquet")


@contextmanager
def _named_after_uploads(folder: Path) -> Iterator[None]:
    """Turn the temporary folder's path in an ``InputError``'s source into the upload's name."""
    try:
        yield
    except InputError as error:
        if error.source:
            error.source = error.source.replace(f"{folder}/", "").replace(str(folder),
                                                                         "the upload")
        raise


def _check_size(name: str, data: bytes) -> None:
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise InputError(f"the file is over the {MAX_UPLOAD_MB} MB upload limit; import it "
                         "with `scorecard import` instead", source=name)


def import_documents_bytes(
    db: sqlite_utils.Database, files: Sequence[tuple[str, bytes]]
) -> ImportResult:
    """Documents from uploads: one records file (JSONL/CSV/TSV), or any number of .txt/.md
    files (each one document, its id the file name without the suffix)."""
    if not files:
        raise InputError("choose the document files first", source="upload")
    for name, data in files:
        _check_size(name, data)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        with _named_after_uploads(folder):
            suffixes = {Path(name).suffix.lower() for name, _ in files}
            if suffixes <= set(RECORD_SUFFIXES):
                if len(files) > 1:
                    raise InputError("upload one records file, or text and markdown files",
                                     source="upload")
                path = folder / safe_filename(Path(files[0][0]).name)
                path.write_bytes(files[0][1])
                return importers.import_documents(db, path)
            unknown = sorted(n for n, _ in files if Path(n).suffix.lower() not in
                             DOCUMENT_SUFFIXES)
            if unknown:
                raise InputError("documents are .txt, .md or .markdown files (or one JSONL or "
                                 "CSV file)", source=unknown[0])
            for name, data in files:
                (folder / safe_filename(Path(name).name)).write_bytes(data)
            return importers.import_documents(db, folder)


def import_chunk_set_bytes(
    db: sqlite_utils.Database, file_name: str, data: bytes, name: str, *,
    splitter: str | None = None, size: str | int | None = None,
    overlap: str | int | None = None,
) -> ImportResult:
    """A chunk set from an uploaded records file (see ``importers.import_chunk_set``)."""
    _check_size(file_name, data)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        path = folder / safe_filename(Path(file_name).name)
        path.write_bytes(data)
        with _named_after_uploads(folder):
            return importers.import_chunk_set(db, path, name, splitter=splitter, size=size,
                                              overlap=overlap)
