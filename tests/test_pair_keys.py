"""The vectorised (query, doc) duplicate search agrees with a plain Python scan."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.metrics import pair_keys
from labeling.metrics.pair_keys import first_duplicate, hash_strings

# Short alphabets make repeats likely; "é" and "\x00" test byte lengths, long ids the padding.
IDS = st.sampled_from(["a", "b", "ab", "é", "e\u0301", "a\x00", "x" * 9, "x" * 17, "q" * 40])


def _naive(pairs: list[tuple[str, str]]) -> tuple[int, int] | None:
    seen: dict[tuple[str, str], int] = {}
    for row, pair in enumerate(pairs):
        if pair in seen:
            return seen[pair], row
        seen[pair] = row
    return None


def _chunked(values: list[str], cuts: list[int]) -> pa.ChunkedArray:
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    pieces = zip(bounds[:-1], bounds[1:], strict=True)
    return pa.chunked_array(
        [pa.array(values[a:b], pa.large_string()) for a, b in pieces], type=pa.large_string()
    )


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(IDS, IDS), max_size=30),
    st.lists(st.integers(0, 40), max_size=4),
)
def test_first_duplicate_matches_a_scan(pairs, cuts):
    queries = [q for q, _ in pairs]
    docs = [d for _, d in pairs]
    assert first_duplicate(pa.array(queries), _chunked(docs, cuts)) == _naive(pairs)


def test_hash_ignores_chunking_and_string_type(monkeypatch):
    values = ["doc1", "é" * 7, "x" * 33, "", "doc1"]
    whole = hash_strings(pa.array(values))
    assert (whole == hash_strings(_chunked(values, [2, 3]))).all()
    assert (whole == hash_strings(pa.array(values, pa.large_string()))).all()
    assert whole[0] == whole[4] and len(set(whole[:4].tolist())) == 4
    # Hashing in several padded blocks gives the same values as one block.
    monkeypatch.setattr(pair_keys, "_BLOCK_BYTES", 40)
    assert (hash_strings(pa.array(values)) == whole).all()


def test_colliding_hashes_are_rechecked(monkeypatch):
    # Every string hashing alike must not make different pairs look repeated.
    monkeypatch.setattr(pair_keys, "hash_strings", lambda values: np.zeros(len(values), np.uint64))
    assert first_duplicate(pa.array(["q", "q", "q"]), pa.array(["a", "b", "c"])) is None
    assert first_duplicate(pa.array(["q", "q", "q"]), pa.array(["a", "b", "a"])) == (0, 2)
