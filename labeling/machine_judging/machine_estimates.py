"""Scores from a machine judge's labels corrected by an audit: people-only, machine-only and
prediction-powered estimates side by side, for a run and for the difference of two runs.

Conventions (the statistics are ``labeling.metrics.prediction_powered``'s)
- The queries are those of the audit sample's universe (every query with a label from the judge
  or from people when the sample was drawn), filtered by the controls' split. The target is the
  mean score those queries' population would get if people had graded every pair of the
  universe, under the controls' consensus rule, policy and relevance threshold.
- For each query, the label sets scored are: the machine's grades alone (*machine only*); then,
  along the query's audit order, the people's grades of its known pairs and of each audited
  pair in turn, the machine's grade elsewhere (*prediction-powered*); and the same with "the
  lowest grade" instead of the machine's (*people only*: the human labels alone, design-
  weighted). Each is scored by the metric engine; the estimates are means of per-query terms
  with t intervals that allow for heavy tails.
- An audited pair counts once a person has graded it (the people's consensus under the rule).
  While some of a query's audited pairs wait, the audit of that query stops before the first
  waiting one and the estimate is marked provisional.
- The machine's grades are those stored with the sample (at draw time), so a later run of the
  judge does not change a sample's estimates. Scores are per chunk (the document unit is
  refused: the audit is of chunks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.ranked_runs import load_run
from labeling.evaluation.inputs.score_controls import CONFIDENCE, NO_SEGMENT, OVERALL, Controls
from labeling.evaluation.inputs.segmenting import _segments, query_table
from labeling.evaluation.scores.scoring import in_split
from labeling.judging import label_sources
from labeling.machine_judging import audit_sample
from labeling.metrics import prediction_powered as ppi
from labeling.metrics.engine import evaluate
from labeling.workspace import grading

if TYPE_CHECKING:
    import sqlite_utils

ESTIMATES = ("people only", "machine only", "prediction-powered")
COLUMNS = ["segment", "measure", "estimate", "mean", "ci_low", "ci_high", "interval", "queries",
           "human_labels", "effective_labels", "machine_weight"]
# What each estimate's interval covers (after its level, "95% interval"). The machine-only
# interval only reflects which queries were sampled: with a biased judge it covers nothing.
COVERS = {
    "prediction-powered": "for the mean over all queries like these, correcting for the "
                          "judge's error",
    "people only": "for the mean over all queries like these, from people's labels alone",
    "machine only": "— sampling of queries only, ignores the judge's error",
}
WORTH = "worth (human labels)"
WORTH_MEANING = ("worth (human labels): how many audited people's labels the people-only "
                 "estimate would need to be as precise as the prediction-powered one")
_SEP = "\x1f"


@dataclass(frozen=True)
class AuditState:
    """A sample's pairs with today's human grades: ``pairs`` (universe in audit order, with
    ``human`` grade or NA and ``observed``: the pair's human grade is used), how many audited
    pairs still wait, and the human labels used."""

    sample: dict
    pairs: pd.DataFrame
    waiting: int
    human_labels: int

    @property
    def provisional(self) -> bool:
        return self.waiting > 0


def audit_state(db: sqlite_utils.Database, sample_id: int, rule: str) -> AuditState:
    """The sample's universe with the people's current grades (see the module conventions)."""
    sample = audit_sample.sample_row(db, sample_id)
    pairs = audit_sample.sample_pairs(db, sample_id)
    people = label_sources.source_consensus(db, rule, "people")
    human = people.set_index(["query_id", "chunk_id"])["grade"]
    index = pd.MultiIndex.from_frame(pairs[["query_id", "chunk_id"]])
    pairs["human"] = human.reindex(index).to_numpy()
    pairs["human"] = pairs["human"].astype("Int64")
    # A known pair whose person withdrew the label since is left out of every label set.
    pairs = pairs.loc[~(pairs["known"] & pairs["human"].isna())].reset_index(drop=True)
    audited = pairs["sampled"] & ~pairs["known"]
    missing = audited & pairs["human"].isna()
    # The audit of a query reaches up to (not including) its first audited pair still waiting.
    first_missing = pairs["position"].where(missing).groupby(pairs["query_id"]).transform("min")
    reached = pairs["position"] < first_missing.fillna(np.inf)
    pairs["observed"] = pairs["known"] | (audited & reached)
    return AuditState(sample, pairs, int(missing.sum()), int(pairs["observed"].sum()))


def _label_sets(pairs: pd.DataFrame, prediction: str, null_grade: int) -> pd.DataFrame:
    """qrels (query_id = hybrid id, doc_id, relevance) of every label set scored, and the
    hybrid table: one row per (query, step) with ``hybrid`` id, ``step`` (0: prediction only;
    1: the known pairs human; s > 1: and the first s - 1 audited pairs too) and the step's
    inclusion probability. ``pairs`` is in audit order (query, position)."""
    pairs = pairs.reset_index(drop=True)
    guess = (pairs["machine_grade"] if prediction == "machine"
             else pd.Series(null_grade, index=pairs.index, dtype="Int64"))
    human_used = pairs["observed"].to_numpy()
    # A pair's place among the human grades a query uses: known pairs first, then the audit.
    place = pairs.loc[human_used].groupby("query_id").cumcount() + 1
    human_place = np.full(len(pairs), np.inf)
    human_place[place.index.to_numpy()] = place.to_numpy()
    known = pairs.groupby("query_id", sort=True)["known"].sum()
    audited = pairs.loc[human_used & ~pairs["known"].to_numpy()]
    steps = pd.concat([
        pd.DataFrame({"query_id": known.index, "step": 0, "take": 0, "inclusion": 1.0}),
        pd.DataFrame({"query_id": known.index, "step": 1, "take": known.to_numpy(),
                      "inclusion": 1.0}),
        pd.DataFrame({"query_id": audited["query_id"].to_numpy(),
                      "step": audited.groupby("query_id").cumcount().to_numpy() + 2,
                      "take": known.reindex(audited["query_id"]).to_numpy()
                      + audited.groupby("query_id").cumcount().to_numpy() + 1,
                      "inclusion": audited["inclusion"].to_numpy()}),
    ], ignore_index=True).sort_values(["query_id", "step"], ignore_index=True)
    steps["hybrid"] = (steps["query_id"].astype(str) + f"{_SEP}{prediction}{_SEP}"
                       + steps["step"].astype(str))
    frame = pairs[["query_id", "chunk_id"]].assign(
        human=pairs["human"], guess=guess, place=human_place)
    grid = frame.merge(steps[["query_id", "hybrid", "take"]], on="query_id")
    labels = grid["guess"].where(grid["place"] > grid["take"], grid["human"])
    keep = labels.notna().to_numpy()
    qrels = pd.DataFrame({"query_id": grid["hybrid"].to_numpy()[keep],
                          "doc_id": grid["chunk_id"].to_numpy()[keep],
                          "relevance": labels.to_numpy()[keep].astype("int64")})
    return qrels, steps[["query_id", "hybrid", "step", "inclusion"]]


def _hybrid_values(db, controls: Controls, run: str, qrels: pd.DataFrame,
                   table: pd.DataFrame) -> pd.DataFrame:
    """The engine's per-query values of ``run`` on every label set (index: hybrid id)."""
    frame = load_run(db, run)
    frame = frame.loc[frame["query_id"].isin(table["query_id"])]
    expanded = frame.merge(table[["query_id", "hybrid"]], on="query_id")
    expanded = expanded.assign(query_id=expanded["hybrid"])[["query_id", "doc_id", "score"]]
    result = evaluate(qrels.astype({"query_id": str, "doc_id": str}),
                      expanded.astype({"query_id": str, "doc_id": str}),
                      controls.measures, judged_only=controls.judged_only).per_query
    # A label set with no label at all is not evaluated by the engine: it scores 0.
    return result.reindex(table["hybrid"]).fillna(0.0)


@dataclass(frozen=True)
class _Terms:
    """Per query (sorted ids) and measure: the machine-only values and the per-query terms of
    the prediction-powered and people-only estimates."""

    queries: pd.Index
    machine_only: pd.DataFrame
    machine: pd.DataFrame
    people: pd.DataFrame


def _terms(db, controls: Controls, state: AuditState, runs: tuple[str, ...]) -> _Terms:
    """Terms of ``runs[0]`` (minus those of ``runs[1]`` for a paired comparison)."""
    if controls.unit != "chunk":
        raise ScorecardError("prediction-powered estimates are computed per chunk: choose the "
                             "chunk unit")
    pairs = state.pairs
    keep = in_split(db, pd.DataFrame(index=pd.Index(pairs["query_id"].unique())),
                    controls.split).index
    pairs = pairs.loc[pairs["query_id"].isin(keep)]
    if pairs.empty:
        raise ScorecardError("the audit sample has no query in this split")
    null_grade = min(g for g, _, _ in grading.get_scale(db))
    out = {}
    for prediction in ("machine", "null"):
        qrels, table = _label_sets(pairs, prediction, null_grade)
        values = None
        for sign, run in zip((1.0, -1.0), runs, strict=False):
            got = _hybrid_values(db, controls, run, qrels, table) * sign
            values = got if values is None else values + got.to_numpy()
        out[prediction] = (table, values)
    queries = pd.Index(sorted(pairs["query_id"].unique()), name="query_id")
    machine_table, machine_values = out["machine"]
    null_table, null_values = out["null"]
    alone = machine_values.loc[machine_table.loc[machine_table["step"] == 0, "hybrid"]]
    alone.index = queries
    return _Terms(queries, alone, _query_terms(machine_table, machine_values, queries),
                  _query_terms(null_table, null_values, queries))


def _query_terms(table: pd.DataFrame, values: pd.DataFrame, queries: pd.Index) -> pd.DataFrame:
    """Per query and measure: the scores of steps 1.. as a padded (queries, steps) array fed to
    ``prediction_powered.query_terms`` (every stored step was audited)."""
    table = table.loc[table["step"] >= 1]
    width = int(table.groupby("query_id").size().max())
    row = pd.Categorical(table["query_id"], categories=queries).codes
    col = table.groupby("query_id").cumcount().to_numpy()
    out = {}
    for measure in values.columns:
        grid = np.full((len(queries), width), np.nan)
        grid[row, col] = values.loc[table["hybrid"], measure].to_numpy()
        grid = pd.DataFrame(grid).ffill(axis=1).to_numpy()  # past a query's last step: no change
        inclusion = np.ones((len(queries), width - 1))
        if width > 1:
            probs = np.full((len(queries), width), np.nan)
            probs[row, col] = table["inclusion"].to_numpy()
            inclusion = pd.DataFrame(probs[:, 1:]).ffill(axis=1).fillna(1.0).to_numpy()
        sampled = np.ones_like(inclusion, dtype=bool)
        out[measure] = ppi.query_terms(grid, inclusion, sampled)
    return pd.DataFrame(out, index=queries)


def estimates(
    db: sqlite_utils.Database,
    controls: Controls,
    sample_id: int,
    *,
    segment: str = NO_SEGMENT,
    baseline: str | None = None,
    confidence: float = CONFIDENCE,
) -> tuple[pd.DataFrame, AuditState]:
    """The three estimates of each of ``controls.measures`` for ``controls.run`` (minus
    ``baseline`` when given: a paired comparison on the same queries and labels), overall and
    per value of ``segment``. Columns ``COLUMNS``: ``human_labels`` counts the people's labels
    used, ``effective_labels`` how many audited labels the people-only estimate would need to be
    as precise, ``machine_weight`` the power-tuning weight (1: classical prediction-powered)."""
    state = audit_state(db, sample_id, controls.rule)
    runs = (controls.run,) if baseline is None else (controls.run, baseline)
    terms = _terms(db, controls, state, runs)
    folds = np.arange(len(terms.queries)) % 2
    groups = _segments(query_table(db), segment, terms.queries)
    parts = [(OVERALL, np.ones(len(terms.queries), dtype=bool))]
    if segment != NO_SEGMENT:
        parts += [(str(name), (groups == name).to_numpy()) for name in sorted(groups.unique())]
    # A mean score lies in [0, 1]; a difference of two runs' in [-1, 1].
    span = (0.0, 1.0) if baseline is None else (-1.0, 1.0)
    human = state.pairs.loc[state.pairs["observed"] & state.pairs["query_id"].isin(terms.queries)]
    human_by_query = human.groupby("query_id").size().reindex(terms.queries).fillna(0)
    rows = []
    for measure in controls.measures:
        machine, people = terms.machine[measure].to_numpy(), terms.people[measure].to_numpy()
        if len(np.unique(folds)) > 1:
            tuned, weights = ppi.tuned_terms(machine, people, folds)
        else:
            tuned, weights = machine, np.ones(1)
        for name, inside in parts:
            labels = int(human_by_query.to_numpy()[inside].sum())
            people_ci = ppi.t_interval(people[inside], confidence)
            powered = ppi.t_interval(tuned[inside], confidence)
            alone = ppi.t_interval(terms.machine_only[measure].to_numpy()[inside], confidence)
            effective = ppi.effective_labels(labels, people_ci.half_width, powered.half_width)
            people_ci, powered, alone = (i.clipped(*span) for i in (people_ci, powered, alone))
            for label, interval, extra in (
                ("people only", people_ci, {}),
                ("machine only", alone, {"human_labels": 0}),
                ("prediction-powered", powered,
                 {"effective_labels": effective, "machine_weight": float(np.mean(weights))}),
            ):
                rows.append({"segment": name, "measure": measure, "estimate": label,
                             "mean": interval.mean, "ci_low": interval.low,
                             "ci_high": interval.high,
                             "interval": interval_meaning(label, confidence),
                             "queries": int(inside.sum()),
                             "human_labels": labels, "effective_labels": np.nan,
                             "machine_weight": np.nan, **extra})
    return pd.DataFrame(rows, columns=COLUMNS), state


def interval_meaning(estimate: str, confidence: float = CONFIDENCE) -> str:
    """What ``estimate``'s interval is, level first: e.g. "95% interval for the mean over all
    queries like these, correcting for the judge's error"."""
    return f"{confidence:.0%} interval {COVERS[estimate]}"


def _cell(item) -> str:
    return f"{item.mean:.3f} [{item.ci_low:.3f}, {item.ci_high:.3f}]"


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """``estimates`` as one row per segment and measure: the prediction-powered and the
    people-only estimates (``mean [low, high]``), the queries, the human labels used and what
    they are worth (rounded). The machine-only estimate is not among them: its interval does
    not cover the judge's error (``machine_only``)."""
    rows = []
    for (segment, measure), group in table.groupby(["segment", "measure"], sort=False):
        row = {"segment": segment, "measure": measure}
        by_estimate = {item.estimate: item for item in group.itertuples()}
        for name in ("prediction-powered", "people only"):
            row[name] = _cell(by_estimate[name])
        powered = group.loc[group["estimate"] == "prediction-powered"].iloc[0]
        row["queries"] = int(powered["queries"])
        row["human labels"] = int(powered["human_labels"])
        worth = powered["effective_labels"]
        row[WORTH] = pd.NA if pd.isna(worth) else round(float(worth))
        rows.append(row)
    return pd.DataFrame(rows).astype({WORTH: "Int64"})


def machine_only(table: pd.DataFrame) -> pd.DataFrame:
    """The machine-only estimates (one row per segment and measure, ``mean [low, high]``),
    shown apart from the others: the interval reflects the sampling of queries only."""
    alone = table.loc[table["estimate"] == "machine only"]
    return pd.DataFrame({"segment": alone["segment"].to_numpy(),
                         "measure": alone["measure"].to_numpy(),
                         "machine only": [_cell(r) for r in alone.itertuples()],
                         "queries": alone["queries"].to_numpy()})


def notes(confidence: float = CONFIDENCE) -> list[str]:
    """One sentence per kind of figure of ``side_by_side`` and ``machine_only``: what the
    intervals cover and what the worth means."""
    return [f"{name}: {interval_meaning(name, confidence)}."
            for name in ("prediction-powered", "people only", "machine only")] + [
        WORTH_MEANING + "."]
