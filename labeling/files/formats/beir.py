"""BEIR dataset folders: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

Corpus rows are ``{"_id", "title", "text", ...}`` and query rows ``{"_id", "text", ...}``; other
keys (BEIR's ``metadata`` object among them) are kept as columns unchanged. Each qrels file is
tab-separated with the header ``query-id corpus-id score``; its stem is the split name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from labeling.errors import InputError
from labeling.files.formats import tabular
from labeling.files.formats.records import write_records


@dataclass
class BeirData:
    corpus: pd.DataFrame  # id, title, text, + other keys
    queries: pd.DataFrame  # id, text, + other keys
    qrels: pd.DataFrame  # query_id, doc_id, relevance, split


def read_beir(folder: str | os.PathLike[str]) -> BeirData:
    root = Path(folder)
    for name in ("corpus.jsonl", "queries.jsonl"):
        if not (root / name).is_file():
            raise InputError(f"not a BEIR folder: {name} is missing", source=str(root))
    corpus = _records(root / "corpus.jsonl", ("title", "text"))
    queries = _records(root / "queries.jsonl", ("text",))
    frames = []
    for tsv in sorted((root / "qrels").glob("*.tsv")):
        rows = tabular.read_rows(tsv, "tsv")
        frame = tabular.qrels_from_rows(rows, str(tsv))
        tabular.check_unique(rows, frame, ["query_id", "doc_id"], str(tsv), "judgement")
        frame["split"] = pd.Series([tsv.stem] * len(frame), dtype="str")
        frames.append(frame)
    if frames:
        qrels = pd.concat(frames, ignore_index=True)
    else:
        qrels = pd.DataFrame(
            {
                "query_id": pd.Series(dtype="str"),
                "doc_id": pd.Series(dtype="str"),
                "relevance": pd.Series(dtype="int64"),
                "split": pd.Series(dtype="str"),
            }
        )
    return BeirData(corpus=corpus, queries=queries, qrels=qrels)


def _records(path: Path, text_columns: tuple[str, ...]) -> pd.DataFrame:
    frame = tabular.read_records(path, "jsonl")
    for column in text_columns:
        if column not in frame.columns:
            frame[column] = pd.Series([""] * len(frame), dtype="str")
    order = ["id", *text_columns]
    return frame[order + [c for c in frame.columns if c not in order]]


def write_beir(
    folder: str | os.PathLike[str],
    corpus: pd.DataFrame,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
) -> None:
    """Write a BEIR folder; qrels without a ``split`` column go to ``qrels/test.tsv``."""
    root = Path(folder)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    write_records(corpus.rename(columns={"id": "_id"}), root / "corpus.jsonl")
    write_records(queries.rename(columns={"id": "_id"}), root / "queries.jsonl")
    splits = qrels["split"] if "split" in qrels.columns else pd.Series(["test"] * len(qrels))
    for split in pd.unique(splits):
        part = qrels[(splits == split).to_numpy()]
        out = pd.DataFrame(
            {
                "query-id": part["query_id"].astype(str),
                "corpus-id": part["doc_id"].astype(str),
                "score": part["relevance"].astype("int64"),
            }
        )
        out.to_csv(root / "qrels" / f"{split}.tsv", sep="\t", index=False, lineterminator="\n")
