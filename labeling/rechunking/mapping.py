"""Which chunks of a new chunk set overlap which chunks of an old one, and by how much.

Conventions
- Spans are frames with columns chunk_id, doc_id, doc_version, start, end (``chunk_spans``).
- An old chunk's text is compared with a new chunk's on the new chunk's document version: the
  same version as is; another version of the same document through ``alignment`` (text removed
  from the document overlaps nothing). A document missing from the new chunk set overlaps
  nothing either.
- ``shared`` is the number of characters both hold; ``share_of_judged`` = shared / length of
  the old chunk's span (how much of the judged text the new chunk holds), ``share_of_chunk`` =
  shared / length of the new chunk's span (how much of the new chunk is that judged text).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from labeling.rechunking.alignment import shared_blocks, surviving_pieces
from labeling.rechunking.overlap import overlapping_pairs

# (document id, version) keys -> their texts (only the keys that exist).
TextLoader = Callable[[list[tuple[str, str]]], dict[tuple[str, str], str]]


def _document_keys(spans: pd.DataFrame) -> np.ndarray:
    """Each span's (document, version) as one string (ids hold no control character)."""
    return (spans["doc_id"].to_numpy(object).astype(str).astype(object) + "\x1f"
            + spans["doc_version"].to_numpy(object).astype(str).astype(object))


def chunk_overlaps(old: pd.DataFrame, new: pd.DataFrame, texts: TextLoader) -> pd.DataFrame:
    """Every (old chunk, new chunk) pair sharing text: columns ``old`` and ``new`` (row positions
    in ``old`` and ``new``), shared, share_of_judged, share_of_chunk; sorted by old, new."""
    new_key, new_keys = pd.factorize(_document_keys(new))
    new_keys = pd.Index(new_keys, dtype=object)
    old_key = new_keys.get_indexer(_document_keys(old))
    pieces = [_same_version_pieces(old, old_key)]
    pieces += _other_version_pieces(old, old_key, new_keys, texts)
    piece = pd.concat(pieces, ignore_index=True)
    new_start, new_end = new["start"].to_numpy(np.int64), new["end"].to_numpy(np.int64)
    stride = int(max(new_end.max(initial=0), piece["hi"].max() if len(piece) else 0)) + 1
    if len(new_keys) * stride >= 2**62:
        raise ValueError("too many or too long documents to place on one int64 line")
    at, new_at = piece["key"].to_numpy(np.int64) * stride, new_key.astype(np.int64) * stride
    left, right, shared = overlapping_pairs(
        at + piece["lo"].to_numpy(np.int64), at + piece["hi"].to_numpy(np.int64),
        new_at + new_start, new_at + new_end,
    )
    frame = pd.DataFrame({"old": piece["old"].to_numpy(np.int64)[left], "new": right,
                          "shared": shared})
    if len(piece) > len(old):  # a span in several pieces (an edited document): add them up
        frame = frame.groupby(["old", "new"], as_index=False, sort=False)["shared"].sum()
    old_length = (old["end"] - old["start"]).to_numpy(np.int64)[frame["old"].to_numpy()]
    new_length = (new_end - new_start)[frame["new"].to_numpy()]
    frame["share_of_judged"] = frame["shared"] / np.maximum(old_length, 1)
    frame["share_of_chunk"] = frame["shared"] / np.maximum(new_length, 1)
    return frame.sort_values(["old", "new"], ignore_index=True)


def _same_version_pieces(old: pd.DataFrame, key: np.ndarray) -> pd.DataFrame:
    """Old spans on a document version the new chunk set also uses: one piece each, as is."""
    kept = np.flatnonzero(key >= 0)
    return pd.DataFrame({"old": kept, "key": key[kept],
                         "lo": old["start"].to_numpy(np.int64)[kept],
                         "hi": old["end"].to_numpy(np.int64)[kept]})


def _other_version_pieces(
    old: pd.DataFrame, same: np.ndarray, new_keys: pd.Index, texts: TextLoader
) -> list[pd.DataFrame]:
    """Old spans whose document the new chunk set holds at another version: their surviving
    pieces, per (document, old version, new version), one alignment each."""
    frames: list[pd.DataFrame] = []
    if (same >= 0).all():  # every document at the same version in both: nothing to align
        return frames
    split_keys = [k.split("\x1f", 1) for k in new_keys]
    new_docs = np.array([doc for doc, _ in split_keys], dtype=object)
    moved = old.loc[(same < 0) & old["doc_id"].isin(set(new_docs))]
    for (doc_id, version), group in moved.groupby(["doc_id", "doc_version"], sort=True):
        for key in np.flatnonzero(new_docs == doc_id):
            target = (str(doc_id), split_keys[key][1])
            loaded = texts([(str(doc_id), str(version)), target])
            if len(loaded) < 2:
                continue
            blocks = shared_blocks(loaded[(str(doc_id), str(version))], loaded[target])
            span, lo, hi = surviving_pieces(group["start"].to_numpy(np.int64),
                                            group["end"].to_numpy(np.int64), blocks)
            rows = np.flatnonzero(old.index.isin(group.index))
            frames.append(pd.DataFrame({"old": rows[span], "key": key, "lo": lo, "hi": hi}))
    return frames
