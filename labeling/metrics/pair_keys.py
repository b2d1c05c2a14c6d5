"""Vectorised search for the first repeated (query, doc) pair of string ids.

Each id is hashed to 64 bits with a few numpy passes over its bytes (no hash table of
strings), the pairs' hashes are sorted, and only rows whose hashes repeat are compared as
strings, so a collision costs an exact re-check, never a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_MIX = np.uint64(0x9E3779B97F4A7C15)
_BLOCK_BYTES = 64 << 20  # bound on the padded copy hashed at once


def _blocks(values: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    return [c for c in chunks if len(c)]


def _hash_block(block: pa.Array) -> np.ndarray:
    n = len(block)
    lengths = pc.binary_length(block).to_numpy(zero_copy_only=False).astype(np.int64)
    words_per_row = -(-lengths // 8)
    width = max(8, int(words_per_row.max()) * 8)
    rows_at_once = max(1, _BLOCK_BYTES // width)
    if n > rows_at_once:
        return np.concatenate(
            [_hash_block(block.slice(s, rows_at_once)) for s in range(0, n, rows_at_once)]
        )
    # ascii_rpad pads to a width in bytes (utf8_rpad counts characters), so every row of the
    # padded buffer is exactly ``width`` bytes, whatever the text.
    padded = pc.ascii_rpad(block.cast(pa.string()), width=width, padding=" ")
    offsets = np.frombuffer(padded.buffers()[1], dtype=np.int32)[padded.offset : padded.offset + 2]
    words = (
        np.frombuffer(padded.buffers()[2], dtype=np.uint8, count=n * width, offset=int(offsets[0]))
        .view(np.uint64)
        .reshape(n, width // 8)
    )
    h = lengths.astype(np.uint64) * _MIX
    for c in range(width // 8):
        mixed = (h ^ words[:, c]) * _MIX
        mixed ^= mixed >> np.uint64(29)
        # Words past a string's own length are padding: skipping them makes a string's hash
        # independent of the block it sits in.
        h = np.where(words_per_row > c, mixed, h)
    return h


def hash_strings(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 per string; equal strings hash equal. Unequal ones may (rarely) collide."""
    blocks = _blocks(values)
    if not blocks:
        return np.zeros(0, dtype=np.uint64)
    return np.concatenate([_hash_block(b) for b in blocks])


def first_duplicate(
    query_ids: pa.Array | pa.ChunkedArray, doc_ids: pa.Array | pa.ChunkedArray
) -> tuple[int, int] | None:
    """Row indexes ``(first, second)`` of the earliest second occurrence of a pair, or None."""
    n = len(query_ids)
    if n < 2:
        return None
    key = ((hash_strings(query_ids) * np.uint64(31)) ^ hash_strings(doc_ids)) * _MIX
    ordered = np.sort(key)
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    rows = np.flatnonzero(np.isin(key, ordered[1:][same]))
    take = pa.array(rows)
    frame = pd.DataFrame(
        {
            "q": pc.take(query_ids, take).to_pandas(),
            "d": pc.take(doc_ids, take).to_pandas(),
        }
    )
    second = frame.duplicated(["q", "d"], keep="first").to_numpy()
    if not second.any():
        return None
    pos = int(np.argmax(second))
    same_pair = (frame["q"] == frame["q"].iat[pos]) & (frame["d"] == frame["d"].iat[pos])
    first = int(np.argmax(same_pair.to_numpy()))
    return int(rows[first]), int(rows[pos])
