"""Inter-annotator agreement: Cohen's kappa per annotator pair, Krippendorff's alpha for the team,
confusion of grades, disagreeing pairs and adjudication.

Conventions
- Agreement is measured between people, on *current* votes: each person's latest graded
  judgment of a pair. People are judgments of origin ``person`` and, unless left out
  (``unknown=False``), of origin ``unknown`` (stored before origins were recorded, when a hand
  judgment and an import were stored alike). Imports, the generator and machines are not
  people; adjudications and "can't judge" (NULL grade) are left out too.
- A *reference* is any annotator (an imported file, a machine, a person) whose current grades
  each person is compared with (``reference_agreement``).
- Cohen's kappa is the metric layer's one (``labeling.metrics.label_agreement.kappa``, equal to
  ``sklearn.metrics.cohen_kappa_score``), with the workspace's scale as the label list
  (``weights``: None, ``"linear"`` or ``"quadratic"``, distances by position on the scale); a
  pair with a grade off the scale is left out, as scikit-learn's ``labels=`` leaves it out. It
  is NaN when chance agreement is total (both people gave one and the same grade throughout),
  as in scikit-learn.
- Krippendorff's alpha is computed as the ``krippendorff`` package computes it (coincidence
  matrix over pairs with at least two votes; value domain = the scale): ``ordinal`` for a graded
  scale, ``nominal`` for a binary one. NaN when fewer than two values are pairable or all agree
  on a single grade.
- The grade metrics use is ``labeling.judging.consensus``: the latest adjudicated grade, else the
grade of
  a strict majority, else the mean rounded half up (``CONSENSUS_RULE``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import InputError
from labeling.judging import consensus, queue
from labeling.metrics import label_agreement
from labeling.workspace import contents, data_versions, grading, judgments

if TYPE_CHECKING:
    import sqlite_utils

CONSENSUS_RULE = (
    "Consensus: the latest adjudicated grade, else the grade more than half of the annotators "
    "gave, else the mean grade rounded half up. A generator's label counts only until a person "
    "judges the pair; imported labels vote, machine labels do not."
)
PAIR = ["query_id", "chunk_id"]
WEIGHTS = label_agreement.WEIGHTS
# Votes, the team summary and the disagreements of the workspace's current data, computed once
# per version of its judgments, queries and scale (``data_versions``): every browser session
# opening the Agreement page reads the same ones.
_KEPT = data_versions.VersionedCache(size=16)


@dataclass(frozen=True)
class Summary:
    """Team agreement: ``alpha`` (Krippendorff, at ``level``), the people, how many pairs have
    votes of two or more of them (``overlap_pairs``) out of all voted pairs."""

    alpha: float
    level: str
    annotators: list[str]
    overlap_pairs: int
    voted_pairs: int


PEOPLE = ("person", "unknown")


def votes(db: sqlite_utils.Database, *, unknown: bool = True) -> pd.DataFrame:
    """Current votes of people: query_id, chunk_id, annotator, grade (module conventions)."""
    return _KEPT.kept(db, ("votes", unknown), lambda: _votes(db, unknown)).copy()


def _votes(db: sqlite_utils.Database, unknown: bool) -> pd.DataFrame:
    frame = consensus.current_judgments_frame(db)
    people = frame["origin"].isin(PEOPLE if unknown else PEOPLE[:1])
    keep = (people & ~frame["adjudicated"] & ~frame["generator"]
            & (frame["annotator"] != queue.GENERATOR))
    return frame.loc[keep, ["query_id", "chunk_id", "annotator", "grade"]].reset_index(drop=True)


def annotators(db: sqlite_utils.Database) -> pd.DataFrame:
    """Everyone and everything that judged, with where their judgments came from: annotator,
    origin (their origins, comma-separated), sources (the files, models... named by
    ``origin_source``), judgments, pairs. People (origin ``person``) first, then by name."""
    frame = judgments.annotators_table(db)
    frame["origin"] = frame["origin"].map(lambda o: ", ".join(sorted(str(o).split(","))))
    person = frame["origin"].str.contains("person", regex=False)
    return (frame.assign(_people=~person).sort_values(["_people", "annotator"])
            .drop(columns="_people").reset_index(drop=True))


def reference_votes(db: sqlite_utils.Database, reference: str) -> pd.DataFrame:
    """The current graded judgments of ``reference`` (any origin): query_id, chunk_id, grade."""
    frame = consensus.current_judgments_frame(db)
    keep = (frame["annotator"] == reference) & ~frame["adjudicated"]
    return frame.loc[keep, ["query_id", "chunk_id", "grade"]].reset_index(drop=True)


def reference_agreement(
    db: sqlite_utils.Database, reference: str, grades: Sequence[int],
    weights: str | None = None, *, unknown: bool = True,
) -> pd.DataFrame:
    """Each person against ``reference`` on the pairs both graded: annotator, pairs, agreement
    (share of equal grades), kappa (Cohen's, ``weights`` as ``scale_kappa``). The reference
    itself is left out of the people; people with no common pair are left out."""
    people = votes(db, unknown=unknown)
    people = people.loc[people["annotator"] != reference]
    truth = reference_votes(db, reference).rename(columns={"grade": "reference"})
    both = people.merge(truth, on=PAIR, how="inner")
    rows = []
    for name, group in both.groupby("annotator", sort=True):
        x, y = group["grade"].astype(int).to_numpy(), group["reference"].astype(int).to_numpy()
        rows.append({"annotator": name, "pairs": len(group),
                     "agreement": float((x == y).mean()),
                     "kappa": scale_kappa(x, y, grades, weights)})
    return pd.DataFrame(rows, columns=["annotator", "pairs", "agreement", "kappa"])


def level_for(grades: Sequence[int]) -> str:
    """``nominal`` for a two-grade scale, ``ordinal`` for a graded one."""
    return "nominal" if len(grades) <= 2 else "ordinal"


def scale_kappa(
    a: np.ndarray, b: np.ndarray, grades: Sequence[int], weights: str | None = None
) -> float:
    """Cohen's kappa of two aligned grade arrays on the scale ``grades``: the metric layer's
    ``label_agreement.kappa``, with a pair whose grade is off the scale (a scale changed after
    it was judged) left out, as ``sklearn.metrics.cohen_kappa_score(..., labels=grades)`` does.
    NaN when no pair is left."""
    if weights not in WEIGHTS:
        raise InputError(f"weights is one of {WEIGHTS}", source="kappa")
    on_scale = np.isin(a, grades) & np.isin(b, grades)
    if not on_scale.any():
        return float("nan")
    return label_agreement.kappa(a[on_scale], b[on_scale], labels=grades, weights=weights)


def pairwise_kappa(
    frame: pd.DataFrame, grades: Sequence[int], weights: str | None = None
) -> pd.DataFrame:
    """Cohen's kappa for every pair of annotators on the pairs both judged.

    Columns: annotator_a, annotator_b (a < b), pairs (judged by both), agreement (share of equal
    grades), kappa. Annotator pairs with no common pair are left out.
    """
    wide = frame.pivot_table(index=PAIR, columns="annotator", values="grade", aggfunc="first")
    rows = []
    for first, second in itertools.combinations(sorted(wide.columns), 2):
        both = wide[[first, second]].dropna()
        if both.empty:
            continue
        x, y = both[first].astype(int).to_numpy(), both[second].astype(int).to_numpy()
        rows.append({
            "annotator_a": first, "annotator_b": second, "pairs": len(both),
            "agreement": float((x == y).mean()),
            "kappa": scale_kappa(x, y, grades, weights),
        })
    columns = ["annotator_a", "annotator_b", "pairs", "agreement", "kappa"]
    return pd.DataFrame(rows, columns=columns)


def krippendorff_alpha(frame: pd.DataFrame, grades: Sequence[int], level: str) -> float:
    """Krippendorff's alpha of the votes in ``frame`` (units = pairs), ``level`` ``nominal``,
    ``ordinal`` or ``interval`` (as the ``krippendorff`` package computes it)."""
    if level not in ("nominal", "ordinal", "interval"):
        raise InputError("level is nominal, ordinal or interval", source="alpha")
    domain = list(grades)
    index = {g: i for i, g in enumerate(domain)}
    usable = frame.loc[frame["grade"].isin(domain)]
    counts = usable.groupby(PAIR)["grade"].transform("size")
    usable = usable.loc[counts >= 2]
    if usable.empty:
        return float("nan")
    n_values = len(domain)
    # Per unit, a value-count vector; coincidences o_ck = sum_u n_uc (n_uk - [c == k]) / (m_u - 1).
    unit = usable.groupby(PAIR, sort=False).ngroup().to_numpy()
    value = usable["grade"].map(index).to_numpy()
    per_unit = np.zeros((unit.max() + 1, n_values))
    np.add.at(per_unit, (unit, value), 1)
    m = per_unit.sum(axis=1)
    scaled = per_unit / (m - 1)[:, None]
    observed = scaled.T @ per_unit - np.diag(scaled.sum(axis=0))
    n_c = observed.sum(axis=1)
    total = n_c.sum()
    distance = _distance(level, np.asarray(domain, dtype=float), n_c)
    expected = (np.outer(n_c, n_c) - np.diag(n_c)) / (total - 1)
    denominator = float((expected * distance).sum())
    if denominator == 0:
        return float("nan")
    return 1.0 - float((observed * distance).sum()) / denominator


def _distance(level: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    size = len(values)
    if level == "nominal":
        return 1.0 - np.eye(size)
    if level == "interval":
        return np.subtract.outer(values, values) ** 2
    # ordinal: (sum of n_g for g from c to k) - (n_c + n_k) / 2, squared
    cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
    i, j = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    low, high = np.minimum(i, j), np.maximum(i, j)
    between = cumulative[high + 1] - cumulative[low]
    return (between - (n_c[i] + n_c[j]) / 2.0) ** 2


def confusion(
    frame: pd.DataFrame, grades: Sequence[int], a: str | None = None, b: str | None = None
) -> pd.DataFrame:
    """Counts of grade pairs given to the same pair: rows ``a``'s grade, columns ``b``'s.

    Without ``a`` and ``b``: every two annotators of every pair, counted in both orders (a
    symmetric matrix of the whole team). Index and columns are the scale's grades.
    """
    grades = list(grades)
    matrix = pd.DataFrame(0, index=pd.Index(grades, name="grade"), columns=grades, dtype="int64")
    wide = frame.pivot_table(index=PAIR, columns="annotator", values="grade", aggfunc="first")
    if a is not None and b is not None:
        combos = [(a, b)]
    else:
        names = sorted(wide.columns)
        combos = [(x, y) for x in names for y in names if x != y]
    for x, y in combos:
        if x not in wide or y not in wide:
            continue
        both = wide[[x, y]].dropna().astype(int)
        if both.empty:
            continue
        counts = both.groupby([x, y]).size()
        for (gx, gy), n in counts.items():
            if gx in matrix.index and gy in matrix.columns:
                matrix.loc[gx, gy] += int(n)
    return matrix


def summary(db: sqlite_utils.Database, *, unknown: bool = True) -> Summary:
    """Team agreement of the workspace between people (see ``Summary``)."""
    return _KEPT.kept(db, ("summary", unknown), lambda: _summary(db, unknown))


def _summary(db: sqlite_utils.Database, unknown: bool) -> Summary:
    grades = [g for g, _, _ in grading.get_scale(db)]
    frame = votes(db, unknown=unknown)
    level = level_for(grades)
    per_pair = frame.groupby(PAIR).size()
    return Summary(
        alpha=krippendorff_alpha(frame, grades, level),
        level=level,
        annotators=sorted(frame["annotator"].unique().tolist()),
        overlap_pairs=int((per_pair >= 2).sum()),
        voted_pairs=int(len(per_pair)),
    )


def disagreements(
    db: sqlite_utils.Database, include_adjudicated: bool = False, *, unknown: bool = True
) -> pd.DataFrame:
    """Pairs whose current grades by people differ: query_id, chunk_id, votes ("alice 1 · bob
    3"), spread (max - min grade), consensus (the grade metrics use now), adjudicated (bool),
    query (its text). Widest spread first. Adjudicated pairs are left out unless asked for."""
    return _KEPT.kept(db, ("disagreements", include_adjudicated, unknown),
                      lambda: _disagreements(db, include_adjudicated, unknown)).copy()


def _disagreements(
    db: sqlite_utils.Database, include_adjudicated: bool, unknown: bool
) -> pd.DataFrame:
    frame = votes(db, unknown=unknown)
    columns = ["query_id", "chunk_id", "votes", "spread", "consensus", "adjudicated", "query"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    grouped = frame.groupby(PAIR)["grade"]
    spread = (grouped.max() - grouped.min()).rename("spread")
    split = spread.loc[spread > 0]
    if split.empty:
        return pd.DataFrame(columns=columns)
    picked = frame.set_index(PAIR).loc[split.index].reset_index().sort_values(
        [*PAIR, "annotator"]
    )
    picked["vote"] = picked["annotator"].astype(str) + " " + picked["grade"].astype(str)
    out = picked.groupby(PAIR)["vote"].agg(" · ".join).rename("votes").to_frame()
    out = out.join(split)
    current = consensus.current_judgments_frame(db)
    decided = current.loc[current["adjudicated"]].groupby(PAIR).size()
    out["adjudicated"] = out.index.isin(decided.index)
    agreed = consensus.consensus(current).set_index(PAIR)["grade"]
    out["consensus"] = agreed.reindex(out.index).astype("Int64")
    out = out.reset_index()
    texts = {query: contents.shown_text(text, query)
             for query, text in contents.query_texts(db).items()}
    out["query"] = out["query_id"].map(texts)
    if not include_adjudicated:
        out = out.loc[~out["adjudicated"]]
    out = out.sort_values(["spread", *PAIR], ascending=[False, True, True], ignore_index=True)
    return out[columns]


def adjudicate(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, grade: int, adjudicator: str,
    note: str | None = None,
) -> int:
    """Record the adjudicated grade of a pair (a judgment flagged ``adjudicated``, which the
    consensus takes over every vote). Returns the judgment id."""
    return queue.save_judgment(
        db, query_id, chunk_id, int(grade), adjudicator, note=note, flags={"adjudicated": True}
    )
