"""The workspace's default measures and k for the dashboard, as the Metric guide sets them.

Stored in ``labeling_settings`` under ``score_defaults`` as JSON: ``measures`` (engine names, a
cutoff equal to ``k`` written ``@k`` so that the measures follow the k control), ``k``, who set
them (``set_by``) and when (``set_at``, ISO-8601 UTC). Without a stored value (or when the stored
one no longer parses) the defaults are ``score_controls.DEFAULT_MEASURES`` at
``score_controls.DEFAULT_K``, set by nobody.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.errors import InputError, ScorecardError
from labeling.evaluation.inputs.score_controls import (
    DEFAULT_K,
    DEFAULT_MEASURES,
    K_PLACEHOLDER,
    Controls,
)
from labeling.metrics.measures import parse_measure
from labeling.workspace import contents, store

if TYPE_CHECKING:
    import sqlite_utils

SETTING = "score_defaults"


@dataclass(frozen=True)
class ScoreDefaults:
    """Lead measures (``@k`` for the cutoff ``k``), the cutoff, who set them and when (None for
    the built-in defaults)."""

    measures: tuple[str, ...] = DEFAULT_MEASURES
    k: int = DEFAULT_K
    set_by: str | None = None
    set_at: str | None = None

    def shown(self) -> str:
        """The measures as the dashboard will show them: ``R@5, RR`` at k = 5."""
        return ", ".join(Controls(run="-", measures=self.measures, k=self.k).measures)


def score_defaults(db: sqlite_utils.Database) -> ScoreDefaults:
    """The stored defaults, else the built-in ones."""
    value = contents.setting(db, SETTING)
    if value is None:
        return ScoreDefaults()
    try:
        stored = json.loads(value)
        defaults = ScoreDefaults(tuple(stored["measures"]), int(stored["k"]),
                                 stored.get("set_by"), stored.get("set_at"))
        Controls(run="-", measures=defaults.measures, k=defaults.k)  # still valid names
    except (ValueError, KeyError, TypeError, ScorecardError):
        return ScoreDefaults()
    return defaults


def with_k_placeholder(measures: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """Measures as the guide names them (``R@5``, ``RR@5``) -> (``R@k``, ``RR@k``), 5: the
    cutoff of the first measure with one is k, and every measure cut there takes ``@k``
    (another cutoff is kept as written). Without any cutoff, k is ``DEFAULT_K``."""
    parsed = [parse_measure(str(name).strip()) for name in measures]
    cutoffs = [m.cutoff for m in parsed if m.cutoff is not None]
    k = cutoffs[0] if cutoffs else DEFAULT_K
    named = []
    for measure in parsed:
        text = str(measure)
        if measure.cutoff == k:
            text = text[: -len(f"@{k}")] + K_PLACEHOLDER
        named.append(text)
    return tuple(dict.fromkeys(named)), k


def set_score_defaults(
    db: sqlite_utils.Database, measures: Sequence[str], *, by: str | None
) -> ScoreDefaults:
    """Store ``measures`` (lead first, as the guide names them, e.g. ``nDCG@5``) and their k as
    the workspace's dashboard defaults, recording who (``by``) and when; returns them."""
    if not measures:
        raise InputError("choose at least one measure", source="dashboard defaults")
    named, k = with_k_placeholder(measures)
    Controls(run="-", measures=named, k=k)  # raises naming a bad measure
    defaults = ScoreDefaults(named, k, (by or "").strip() or None, store.utc_now())
    value = json.dumps({"measures": list(named), "k": k, "set_by": defaults.set_by,
                        "set_at": defaults.set_at})
    with store.write_transaction(db, action="set_score_defaults") as conn:
        contents.save_setting(conn, SETTING, value)
    return defaults
