"""Vectorised interval overlap: every pair of intervals of two sets that share characters.

Intervals are half-open ``[lo, hi)`` on one line of int64 positions (``line_positions`` puts
every document on its own stretch of the line). No Python loop runs per interval or per pair:
the candidates of each left interval are found with ``searchsorted`` over the right intervals
sorted by start, per class of right lengths (powers of two), so one very long right interval
does not make every left interval scan the whole line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _expand(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``[first[i], last[i])``: (i repeated per member, the members)."""
    counts = np.maximum(last - first, 0)
    owner = np.repeat(np.arange(len(first), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    members = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts - first, counts)
    return owner, members


def overlapping_pairs(
    left_lo: np.ndarray, left_hi: np.ndarray, right_lo: np.ndarray, right_hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left index, right index, shared length) of every pair of intervals that share at least
    one position. Empty intervals share nothing. Pairs come grouped by length class of the
    right interval, then by left index."""
    left_lo, left_hi = np.asarray(left_lo, np.int64), np.asarray(left_hi, np.int64)
    right_lo, right_hi = np.asarray(right_lo, np.int64), np.asarray(right_hi, np.int64)
    lengths = right_hi - right_lo
    keep = lengths > 0
    classes = np.zeros(len(lengths), dtype=np.int64)
    classes[keep] = np.floor(np.log2(lengths[keep])).astype(np.int64)
    out_left, out_right, out_shared = [], [], []
    for length_class in np.unique(classes[keep]):
        members = np.flatnonzero(keep & (classes == length_class))
        order = members[np.argsort(right_lo[members], kind="stable")]
        lo, hi = right_lo[order], right_hi[order]
        longest = int((hi - lo).max())
        # A right interval reaches past left_lo only if it starts after left_lo - longest.
        first = np.searchsorted(lo, left_lo - longest, side="right")
        last = np.searchsorted(lo, left_hi, side="left")
        owner, member = _expand(first, last)
        shared = np.minimum(left_hi[owner], hi[member]) - np.maximum(left_lo[owner], lo[member])
        hit = shared > 0
        out_left.append(owner[hit])
        out_right.append(order[member[hit]])
        out_shared.append(shared[hit])
    if not out_left:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    return np.concatenate(out_left), np.concatenate(out_right), np.concatenate(out_shared)


def line_positions(
    keys: pd.Series, starts: np.ndarray, ends: np.ndarray, categories: pd.Index, stride: int
) -> tuple[np.ndarray, np.ndarray]:
    """Spans of documents ``keys`` (values of ``categories``) as positions on one line: document
    number ``i`` occupies ``[i * stride, (i + 1) * stride)``. ``stride`` exceeds every offset."""
    codes = pd.Categorical(keys, categories=categories).codes.astype(np.int64)
    if (codes < 0).any():
        raise ValueError("a span names a document outside the categories")
    if len(categories) and len(categories) * stride >= 2**62:
        raise ValueError("too many or too long documents for one int64 line")
    base = codes * stride
    return base + np.asarray(starts, np.int64), base + np.asarray(ends, np.int64)
