"""The workspace: one SQLite file. Opening and migrating it (``store``, ``migrations``),
judgments, the grading scale, runs and queries (``contents``, ``query_store``), the locked test
split's frozen texts, backup and restore, roles, accounts, sessions and sign-in lockout."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "RUN_VERSION_FIELDS": "labeling.workspace.chunk_sets:RUN_VERSION_FIELDS",
    "chunk_sets": "labeling.workspace.chunk_sets",
    "connections": "labeling.workspace.connections",
    "contents": "labeling.workspace.contents",
    "attach_evidence": "labeling.workspace.evidence:attach_evidence",
    "grading": "labeling.workspace.grading",
    "lockout": "labeling.workspace.lockout",
    "provenance": "labeling.workspace.provenance",
    "query_store": "labeling.workspace.query_store",
    "split_counts": "labeling.workspace.query_store:split_counts",
    "reachable": "labeling.workspace.reachable",
    "roles": "labeling.workspace.roles",
    "sessions": "labeling.workspace.sessions",
    "store": "labeling.workspace.store",
})
