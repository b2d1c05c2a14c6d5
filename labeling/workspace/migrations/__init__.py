"""The workspace's schema migrations, one numbered module each.

Migration i (``MIGRATIONS[i - 1]``) brings ``PRAGMA user_version`` from i - 1 to i, inside
the one transaction ``labeling.workspace.store`` opens for the upgrade.
Modules are numbered as they were written; the list's order is the one that counts
(``m010`` runs thirteenth, after the three written beside it). Never edit or reorder a
released migration: append a new module instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from labeling.workspace.migrations import (
    m001_core,
    m002_labeling,
    m003_synthetic,
    m004_dashboard,
    m005_access,
    m006_sessions,
    m007_consensus_rule,
    m008_provenance,
    m009_query_sets,
    m010_search_and_narratives,
    m011_synthetic_quality,
    m012_machine_judges,
    m013_chunk_sets,
    m014_run_columns,
    m015_connections,
    m016_staged_imports,
    m017_evidence,
    m018_skip_times,
    m019_live_runs,
)

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_core.migrate,
    m002_labeling.migrate,
    m003_synthetic.migrate,
    m004_dashboard.migrate,
    m005_access.migrate,
    m006_sessions.migrate,
    m007_consensus_rule.migrate,
    m008_provenance.migrate,
    m009_query_sets.migrate,
    m011_synthetic_quality.migrate,
    m012_machine_judges.migrate,
    m013_chunk_sets.migrate,
    m010_search_and_narratives.migrate,
    m014_run_columns.migrate,
    m015_connections.migrate,
    m016_staged_imports.migrate,
    m017_evidence.migrate,
    m018_skip_times.migrate,
    m019_live_runs.migrate,
]
