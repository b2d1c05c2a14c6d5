"""Cell values as plain Python, the one conversion the readers, importers and writers share."""

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
