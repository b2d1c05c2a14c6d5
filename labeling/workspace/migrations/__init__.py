"""The workspace's schema migrations, one numbered module each.

Migration i (``MIGRATIONS[i - 1]``, module ``m00i_*``) brings ``PRAGMA user_version`` from
i - 1 to i, inside the one transaction ``labeling.workspace.store`` opens for the upgrade.
Never edit a released migration: append a new module instead.
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
    m015_run_columns,
)

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_core.migrate,
    m002_labeling.migrate,
    m003_synthetic.migrate,
    m004_dashboard.migrate,
    m005_access.migrate,
    m006_sessions.migrate,
    m007_consensus_rule.migrate,
    m015_run_columns.migrate,
]
