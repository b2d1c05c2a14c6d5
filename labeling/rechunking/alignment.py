"""Judged spans carried from one version of a document to another.

Two versions are aligned by ``difflib``: first line by line, then character by character inside
each changed stretch of lines (when both sides of it are under ``CHARACTER_DIFF_LIMIT``
characters; a longer rewritten stretch counts as removed and re-written). The result is the
list of stretches the two texts share (``blocks``). A span of the old version survives as its
*pieces*: its parts inside shared stretches, at their offsets in the new version. Text removed
from the document has no piece, so it can carry no label.
"""

from __future__ import annotations

import difflib

import numpy as np

from labeling.rechunking.overlap import overlapping_pairs

CHARACTER_DIFF_LIMIT = 20_000


def shared_blocks(old: str, new: str) -> np.ndarray:
    """Stretches both texts hold: rows (old start, new start, length), by old start."""
    if old == new:
        return np.array([[0, 0, len(old)]], dtype=np.int64)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_at = np.concatenate([[0], np.cumsum([len(x) for x in old_lines])]).astype(np.int64)
    new_at = np.concatenate([[0], np.cumsum([len(x) for x in new_lines])]).astype(np.int64)
    blocks = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            blocks.append((old_at[i1], new_at[j1], old_at[i2] - old_at[i1]))
        elif tag == "replace":
            before, after = old[old_at[i1]:old_at[i2]], new[new_at[j1]:new_at[j2]]
            if len(before) <= CHARACTER_DIFF_LIMIT and len(after) <= CHARACTER_DIFF_LIMIT:
                inner = difflib.SequenceMatcher(None, before, after, autojunk=False)
                blocks += [(old_at[i1] + a, new_at[j1] + b, size)
                           for a, b, size in inner.get_matching_blocks() if size]
    if not blocks:
        return np.zeros((0, 3), dtype=np.int64)
    table = np.array(blocks, dtype=np.int64)
    return table[np.argsort(table[:, 0], kind="stable")]


def surviving_pieces(
    starts: np.ndarray, ends: np.ndarray, blocks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of old spans ``[starts, ends)`` that the new version still holds: (span index,
    piece start, piece end), offsets in the new version."""
    if len(blocks) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    old_lo, new_lo, size = blocks[:, 0], blocks[:, 1], blocks[:, 2]
    span, block, _ = overlapping_pairs(starts, ends, old_lo, old_lo + size)
    lo = np.maximum(np.asarray(starts, np.int64)[span], old_lo[block])
    hi = np.minimum(np.asarray(ends, np.int64)[span], old_lo[block] + size[block])
    shift = new_lo[block] - old_lo[block]
    return span, lo + shift, hi + shift
