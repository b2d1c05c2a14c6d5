"""Cell values as plain Python, and what a JSON value is: shared by the readers, the importers and
the writers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def is_missing(value: object) -> bool:
    """None, NaN, ``pd.NA`` or ``NaT``; a list, object or array is never missing."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # lists / dicts / arrays
        return False


def plain_value(value: object) -> object:
    """``value`` as JSON and SQLite take it: numpy scalars unwrapped, arrays as lists, missing
    and non-finite numbers as None (JSON has no NaN or infinity)."""
    if isinstance(value, np.ndarray):
        return [plain_value(v) for v in value.tolist()]
    if is_missing(value):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_kind(value: object) -> str:
    """What a JSON value is, for a message: ``an object``, ``a list``, ``a string``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"
