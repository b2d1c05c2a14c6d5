"""Files and folders the scorecard creates are readable by their owner only.

A workspace holds password hashes and the session signing key, its backups the same, and the
cache folder beside it copies of its judgments: each is created ``0600`` (folders ``0700``),
whatever the umask. SQLite gives a workspace's ``-wal``, ``-shm`` and ``-journal`` files the
mode of the workspace file, so creating that file ``0600`` covers them.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def create_private(path: str | Path) -> bool:
    """Create the empty file ``path`` with mode ``FILE_MODE``; False when it already exists."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return False
    os.close(descriptor)
    return True


def private_folder(path: str | Path) -> None:
    """Make the folder ``path`` (mode ``FOLDER_MODE``) unless it exists."""
    Path(path).mkdir(mode=FOLDER_MODE, exist_ok=True)


def keep_private(path: str | Path) -> None:
    """Give a file the scorecard just wrote mode ``FILE_MODE``."""
    os.chmod(path, FILE_MODE)
