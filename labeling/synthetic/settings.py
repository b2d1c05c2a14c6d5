"""The team's settings for synthetic questions, stored in the workspace (``synthetic_settings``).

- ``quality_floor``: candidates whose quality score is below it are hidden from the review
  queue (0-1; default ``calibration.DEFAULT_FLOOR``, chosen from the score's reliability
  curve);
- ``form_mix``: the share of each question form a batch should have (``forms.DEFAULT_MIX``);
- ``llm_domain``: what the passages are ("technical documentation");
- ``llm_persona``: who asks ("a developer or administrator using the software");
- ``llm_max_calls``: the most chat calls one LLM batch may make (default 50; a passage takes
  two: the questions and the critic).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from labeling.errors import InputError
from labeling.synthetic import calibration, forms
from labeling.workspace.store import utc_now, write_transaction
from labeling.workspace.synthetic_candidates import save_settings, stored_settings

if TYPE_CHECKING:
    import sqlite_utils

DEFAULTS: dict[str, Any] = {
    "quality_floor": calibration.DEFAULT_FLOOR,
    "form_mix": dict(forms.DEFAULT_MIX),
    "llm_domain": "technical documentation",
    "llm_persona": "a developer or administrator using the software",
    "llm_max_calls": 50,
}


def _floor(value: Any) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ValueError("the quality floor is between 0 and 1")
    return number


def _mix(value: Any) -> dict[str, float]:
    if not isinstance(value, Mapping):
        raise ValueError("the form mix maps forms to shares")
    unknown = sorted(set(value) - set(forms.FORMS))
    if unknown:
        raise ValueError(f"unknown question form {unknown[0]!r} (forms: "
                         f"{', '.join(forms.FORMS)})")
    if any(float(v) < 0 for v in value.values()) or not sum(float(v) for v in value.values()):
        raise ValueError("the form mix needs shares of 0 or more, not all 0")
    return forms.normalise_mix(value)


def _text(value: Any) -> str:
    text = " ".join(str(value).split())
    if not text or len(text) > 300:
        raise ValueError("give 1 to 300 characters")
    return text


def _calls(value: Any) -> int:
    number = int(value)
    if number < 2 or number > 100_000:
        raise ValueError("the call cap is between 2 and 100000 (a passage takes two calls)")
    return number


CHECKS: dict[str, Callable[[Any], Any]] = {
    "quality_floor": _floor, "form_mix": _mix, "llm_domain": _text, "llm_persona": _text,
    "llm_max_calls": _calls,
}


def get_settings(db: sqlite_utils.Database) -> dict[str, Any]:
    """Every setting: the stored value, else its default."""
    out = {name: (dict(value) if isinstance(value, dict) else value)
           for name, value in DEFAULTS.items()}
    for name, value in stored_settings(db):
        if name in out:
            out[name] = json.loads(value)
    return out


def set_settings(db: sqlite_utils.Database, values: Mapping[str, Any], who: str | None = None
                 ) -> dict[str, Any]:
    """Check and store ``values`` (one transaction); ``InputError`` naming the setting when one
    is not valid, and then nothing is stored. Returns the settings now in force."""
    checked = {}
    for name, value in values.items():
        if name not in CHECKS:
            raise InputError(f"unknown setting {name!r}", source="synthetic settings")
        try:
            checked[name] = CHECKS[name](value)
        except (TypeError, ValueError) as error:
            raise InputError(f"{name}: {error}", source="synthetic settings") from error
    with write_transaction(db, action="synthetic_settings") as conn:
        save_settings(conn, checked, who, utc_now())
    return get_settings(db)
