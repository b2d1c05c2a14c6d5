"""Importers: files into the workspace, each all-or-nothing in one ``BEGIN IMMEDIATE`` transaction.

Conventions
- Parsing is ``labeling.files.formats``' job; here frames are checked against the workspace and
  stored in batches (a 1M-row run never sits whole in Python objects).
- Any error rolls the whole import back and surfaces as ``InputError`` naming file and line.
- Ids a qrels or run file names that the workspace does not know become placeholder chunks /
  queries (counted in ``ImportResult.placeholders`` and a warning); ``strict=True`` rejects the
  file instead, naming the first unknown id and its line.
- Qrels rows become judgments by ``annotator`` (one timestamp per import); when a file grades a
  pair twice the later line is the current judgment, the earlier stays in the history.
- Chunks and queries are upserts by id (re-importing a file is harmless; placeholders are filled).

Modules: ``records`` (chunks and queries), ``qrels``, ``runs``, ``beir`` (a whole folder),
``documents`` and ``chunk_sets`` (source documents and chunkings with spans), ``values``
(per-query values of a run scored on a cluster); the
steps they share: ``transaction`` (the all-or-nothing write), ``lines`` (batches and the file
line of each row), ``cells`` (a cell as a stored value), ``ids`` (unknown, repeated and
placeholder ids), ``result`` (what an import did).
"""

from labeling.files.importers.beir import import_beir
from labeling.files.importers.chunk_sets import import_chunk_set
from labeling.files.importers.documents import import_documents
from labeling.files.importers.qrels import import_qrels
from labeling.files.importers.records import import_chunks, import_queries
from labeling.files.importers.result import ImportResult
from labeling.files.importers.runs import import_run
from labeling.files.importers.values import import_values

__all__ = [
    "ImportResult",
    "import_beir",
    "import_chunk_set",
    "import_documents",
    "import_chunks",
    "import_qrels",
    "import_queries",
    "import_run",
    "import_values",
]
