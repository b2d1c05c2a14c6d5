"""The workspace: one SQLite file. Opening and migrating it (``store``, ``migrations``),
judgments, the grading scale, runs and queries (``contents``, ``query_store``), the locked test
split's frozen texts, backup and restore, roles, accounts, sessions and sign-in lockout."""
