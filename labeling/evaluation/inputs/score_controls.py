"""What a score depends on besides the workspace's labels and runs: one frozen ``Controls``
value, validated in one place, and the names and constants the dashboard and the report show.

Every scoring function of ``labeling.evaluation`` takes a ``Controls`` (or, for the label set
and the split hash, its ``rule``): the dashboard builds one from its widgets, the report and the
CLI from their options, so each tab, file and command scores with the same consensus rule,
unit, policy, split and relevance threshold.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass, replace

from labeling.errors import ScorecardError
from labeling.judging import consensus, label_sources
from labeling.metrics.measures import KINDS, PARAM_DEFAULTS, Measure, parse_measure

UNITS = ("chunk", "document")
POLICIES: dict[str, str] = {
    "nonrelevant": "Unjudged retrieved chunks count as not relevant (as trec_eval does)",
    "judged_only": "Judged results only: unjudged chunks are removed before scoring "
    "(trec_eval -J)",
}
SPLITS = ("all", "dev", "test")
# What happens to an evaluated query the run returned nothing for (the engine's ``missing=``).
MISSING_QUERIES: dict[str, str] = {
    "zero": "score 0 and count in the mean (as trec_eval -c)",
    "skip": "are left out of the mean (--skip-missing)",
}
CONSENSUS_RULES = consensus.RULES
LABEL_SOURCES = label_sources.LABEL_SOURCES
NO_SEGMENT = "(none)"
OVERALL = "(all queries)"
MISSING = "(missing)"

# The headline measures of the dashboard, the history and the CLI's report (``@k`` takes the
# controls' k: R@10 by default).
DEFAULT_MEASURES = ("R@k", "RR")
DEFAULT_K = 10
DEFAULT_RELEVANCE = int(PARAM_DEFAULTS["rel"])  # trec_eval's -l: grade 1 and above are relevant
K_PLACEHOLDER = "@k"  # a measure written ``nDCG@k`` takes the controls' k

# The statistics behind the intervals and the tests (the dashboard's captions and the report's
# conventions render these, so the text cannot drift from the numbers).
BOOTSTRAP_RESAMPLES = 1000
CONFIDENCE = 0.95
TEST_RESAMPLES = 10_000
SEED = 0
ALPHA = 0.05
POWER = 0.8


@dataclass(frozen=True)
class Controls:
    """Everything a score depends on besides the workspace's labels and runs.

    - ``run``: the run scored (the baseline, for a comparison); functions that score several
      runs (curves, coverage, history) apply the same controls to each.
    - ``measures``: engine names (``labeling.metrics.measures``). A name ending in ``@k`` takes
      ``k``; a binary measure that sets no ``rel=`` of its own takes ``relevance`` (written out,
      e.g. ``R(rel=2)@10``, so a column always says what it holds). Repeats are dropped.
    - ``k``: the cutoff of ``@k`` measures and of the coverage (Judged@k, unjudged pairs).
    - ``unit``: ``chunk`` or ``document``; ``policy``: a key of ``POLICIES``; ``split``: one of
      ``SPLITS``; ``rule``: a consensus rule (``labeling.judging.consensus.RULES``).
    - ``relevance``: the lowest grade that counts as relevant (trec_eval's ``-l``), also for the
      drill-down's relevant and missed chunks.
    - ``missing``: a key of ``MISSING_QUERIES``: an evaluated query the run returned nothing
      for scores 0 (``zero``, the default, as ``trec_eval -c``) or is left out (``skip``).
    - ``label_source``: whose judgments the consensus is taken over, a key of ``LABEL_SOURCES``
      (people only by default); ``judge``: one machine judge (``model@prompt-version``) for the
      machine sources, empty for every judge (``labeling.judging.label_sources``).

    The defaults are the dashboard's and the CLI's. Bad values raise ``ScorecardError`` when the
    value is made, naming the problem; a made ``Controls`` is valid and hashable (a cache key).
    """

    run: str
    measures: tuple[str, ...] = DEFAULT_MEASURES
    k: int = DEFAULT_K
    unit: str = "chunk"
    policy: str = "nonrelevant"
    split: str = "all"
    rule: str = "default"
    relevance: int = DEFAULT_RELEVANCE
    missing: str = "zero"
    label_source: str = label_sources.DEFAULT_SOURCE
    judge: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.run, str) or not self.run.strip():
            raise ScorecardError("choose a run")
        if not _whole_number(self.k) or self.k < 1:
            raise ScorecardError(f"k must be a whole number of at least 1, not {self.k!r}")
        if not _whole_number(self.relevance) or self.relevance < 1:
            raise ScorecardError(f"the relevance threshold must be a grade of at least 1, not "
                                 f"{self.relevance!r}")
        _check_choice("unit", self.unit, UNITS)
        _check_choice("policy", self.policy, tuple(POLICIES))
        _check_choice("split", self.split, SPLITS)
        _check_choice("consensus rule", self.rule, tuple(CONSENSUS_RULES))
        _check_choice("treatment of queries without results", self.missing,
                      tuple(MISSING_QUERIES))
        object.__setattr__(self, "judge", str(self.judge or "").strip())
        label_sources.check_source(self.label_source, self.judge)
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "relevance", int(self.relevance))
        object.__setattr__(self, "measures", self._resolve(self.measures))

    def _resolve(self, measures: Iterable[str]) -> tuple[str, ...]:
        if isinstance(measures, str):  # one name, not its letters
            measures = (measures,)
        resolved = [self._resolve_one(str(name).strip()) for name in measures]
        if not resolved:
            raise ScorecardError("choose at least one measure")
        return tuple(dict.fromkeys(resolved))

    def _resolve_one(self, name: str) -> str:
        if name.endswith(K_PLACEHOLDER):
            name = name[: -len(K_PLACEHOLDER)] + f"@{self.k}"
        measure = parse_measure(name)  # raises MeasureError (a ScorecardError) naming the problem
        own = dict(measure.params)
        takes_rel = "rel" in KINDS[measure.kind].params
        if not takes_rel or "rel" in own or self.relevance == DEFAULT_RELEVANCE:
            return name
        own["rel"] = self.relevance
        params = tuple((key, own[key]) for key in KINDS[measure.kind].params if key in own)
        return str(Measure(measure.kind, measure.cutoff, params))

    @property
    def skip_missing(self) -> bool:
        """Whether evaluated queries the run returned nothing for are left out of the means."""
        return self.missing == "skip"

    @property
    def judged_only(self) -> bool:
        """Whether unjudged retrieved items are dropped before scoring (trec_eval -J)."""
        return self.policy == "judged_only"

    def for_run(self, run: str) -> Controls:
        """The same controls on another run."""
        return replace(self, run=run)

    def with_measures(self, measures: Iterable[str]) -> Controls:
        """The same controls on other measures (``@k`` and ``relevance`` apply to them too)."""
        return replace(self, measures=tuple(measures))

    def headline(self) -> Controls:
        """The controls on their first measures only (as many as ``DEFAULT_MEASURES``): what
        the curves and the history draw."""
        return self.with_measures(self.measures[: len(DEFAULT_MEASURES)])

    def describe(self) -> str:
        """The controls as one plain sentence per setting, for a caption."""
        return (
            f"Policy: {POLICIES[self.policy]}. Unit: {self.unit}. Split: {self.split}. "
            f"Consensus rule {self.rule}: {CONSENSUS_RULES[self.rule]}. "
            f"Relevant: grade {self.relevance} and above. "
            f"Queries the run returned nothing for {MISSING_QUERIES[self.missing]}. "
            f"Labels: {label_sources.describe(self.label_source, self.judge)}. "
            "Recall is measured against the labeled set, not the whole corpus."
        )

    def one_line(self) -> str:
        """The controls in one short line for the top of the dashboard (``describe`` says each
        in a sentence): measures, split, unit, rule, threshold, unjudged policy, labels."""
        unjudged = "left out" if self.judged_only else "not relevant"
        empty = "left out" if self.skip_missing else "score 0"
        return (f"{', '.join(self.measures)} · split {self.split} · unit {self.unit} · "
                f"consensus {self.rule} · relevant from grade {self.relevance} · unjudged "
                f"{unjudged} · empty results {empty} · labels: {self.label_source}"
                + (f" ({self.judge})" if self.judge else "")
                + " · recall against the labeled set")

    @property
    def machine_assisted(self) -> bool:
        """Whether a machine judge's labels are part of the scores."""
        return self.label_source in label_sources.MACHINE_SOURCES


def threshold_sentence(relevance: int, scale: Iterable[tuple]) -> str:
    """What the relevance threshold means on ``scale`` ((grade, name, ...) rows), in the
    scale's words: which grades binary measures count as relevant and which they do not."""
    names = {int(row[0]): str(row[1]) for row in scale}
    counted = [f"{g} {names[g]}" for g in sorted(names) if g >= relevance]
    below = [f"{g} {names[g]}" for g in sorted(names) if 0 < g < relevance]
    text = (f"Relevant from grade {relevance}: P, R, Success, RR and AP count "
            + (", ".join(counted) if counted else f"grades {relevance} and above")
            + " as relevant")
    if below:
        text += "; " + ", ".join(below) + " count as not relevant"
    return text + " (nDCG uses the grades themselves)."


def relevance_choices(grades: Iterable[int]) -> list[int]:
    """The thresholds a scale offers: its grades from ``DEFAULT_RELEVANCE`` up (the default
    alone when it has none)."""
    return sorted(g for g in grades if g >= DEFAULT_RELEVANCE) or [DEFAULT_RELEVANCE]


def _whole_number(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_choice(what: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        listed = ", ".join(choices[:-1]) + " or " + choices[-1]
        raise ScorecardError(f"unknown {what} {value!r} (use {listed})")
