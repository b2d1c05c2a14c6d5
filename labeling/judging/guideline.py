"""The workspace's judging guideline: markdown an admin writes for every judge (what counts as
relevant here, borderline cases, examples), shown on the judging pages one key away.

Conventions
- Stored in ``labeling_settings`` (``GUIDELINE``; who saved it last and when in
  ``GUIDELINE_SAVED``, as "name · UTC time"). Empty text means no guideline.
- Shown through ``labeling.chunk_markup.render``: its tables, lists and code blocks render, and
  nothing in it can become HTML, a link or a script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labeling.errors import InputError
from labeling.workspace import contents
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

GUIDELINE = "judging_guideline"
GUIDELINE_SAVED = "judging_guideline_saved"
MAX_CHARS = 100_000


def _setting(db: sqlite_utils.Database, name: str) -> str:
    return contents.setting(db, name) or ""


def guideline(db: sqlite_utils.Database) -> str:
    """The guideline's markdown ('' when there is none)."""
    return _setting(db, GUIDELINE)


def saved_by(db: sqlite_utils.Database) -> str:
    """Who saved the guideline last and when ("name · time"), '' when nobody has."""
    return _setting(db, GUIDELINE_SAVED)


def set_guideline(db: sqlite_utils.Database, text: str, by: str | None = None) -> None:
    """Replace the guideline (admins only); blank text removes it."""
    text = (text or "").strip()
    if len(text) > MAX_CHARS:
        raise InputError(f"the guideline is {len(text)} characters, over {MAX_CHARS}",
                         source="guideline")
    stamp = f"{(by or '').strip() or 'someone'} · {utc_now()[:19]} UTC"
    with write_transaction(db, action="set_guideline") as conn:
        for name, value in ((GUIDELINE, text), (GUIDELINE_SAVED, stamp)):
            contents.save_setting(conn, name, value)
