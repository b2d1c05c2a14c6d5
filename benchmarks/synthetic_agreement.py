"""Do independent graders agree on which synthetic questions are acceptable, and how much of a
kind's distance from its predicted accept rate is the grader's?

Data: the graded samples under ``benchmarks/synthetic_grading`` that more than one independent
grader graded blind, each from ``sheet.md`` and ``CRITERIA.md`` alone. A sample's graders are
``grades-1.tsv``, ``grades-2.tsv``, ... when ``grades-1.tsv`` exists (then ``grades.tsv`` is
their majority, written by ``majority``); otherwise ``grades.tsv`` is the first grader's and
``grades-2.tsv``, ... were graded later by others.

For each sample: each grader's accept rate and that of the majority; Cohen's kappa
(``sklearn.metrics.cohen_kappa_score``) and the share of questions on which each pair of
graders agrees; and each grader's offset, on the logit scale, from the quality score the sample
was drawn with (``quality`` in ``candidates.jsonl``: the offset that makes the mean score that
grader's accept rate, ``calibration.kind_shift`` without a prior). The graders grade the same
questions, so the spread of one sample's offsets is the graders' alone; its pooled standard
deviation (the root of the mean within-sample variance) is set against ``KIND_SHIFT_SD``, the
spread of the kinds' offsets that the quality score's calibration measured with one grader a
sample.

    python benchmarks/synthetic_agreement.py              # the report
    python benchmarks/synthetic_agreement.py majority round65/heldout
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import cohen_kappa_score

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from synthetic_quality import GRADING, load  # noqa: E402

from labeling.synthetic import calibration  # noqa: E402

OUT = ROOT / "results" / "synthetic_agreement.md"


def grader_files(folder: Path) -> list[str]:
    """The grades files of ``folder``'s graders, in order (none: one grader or none)."""
    numbered = sorted((p.name for p in folder.glob("grades-*.tsv")),
                      key=lambda name: int(name.removeprefix("grades-").removesuffix(".tsv")))
    if not numbered:
        return []
    return numbered if numbered[0] == "grades-1.tsv" else ["grades.tsv", *numbered]


def graded(folder: Path, files: list[str]) -> list[dict[str, dict]]:
    """Each grader's graded candidates of ``folder`` by key (in the first grader's order). Every
    grader must grade every question once: a missing or extra key stops with the file's name."""
    loaded = [load(folder, name) for name in files]
    keys = [row["key"] for row in loaded[0]]
    for name, rows in zip(files, loaded, strict=True):
        if sorted(row["key"] for row in rows) != sorted(keys) or len(rows) != len(set(keys)):
            raise SystemExit(f"{folder / name}: its keys are not the first grader's, once each")
    return [{row["key"]: row for row in rows} for rows in loaded]


def majority_vote(grades: np.ndarray) -> np.ndarray:
    """1 where most graders (``grades``' rows) accepted the question as written, else 0."""
    return (grades.sum(axis=0) * 2 > len(grades)).astype(float)


def votes(by_key: list[dict[str, dict]]) -> tuple[list[dict], np.ndarray]:
    """The candidates that ``graded`` returned (in the first grader's order) and an array of
    their grades, one row per grader (1 accepted as written, 0 not)."""
    keys = list(by_key[0])
    return ([by_key[0][k] for k in keys],
            np.array([[float(rows[k]["accepted"]) for k in keys] for rows in by_key]))


def majority(folder: Path) -> Path:
    """Write ``grades.tsv`` of ``folder``: each question accepted when most graders accepted it,
    a reject's reason the first rejecting grader's."""
    files = grader_files(folder)
    if len(files) < 3 or files[0] != "grades-1.tsv":
        raise SystemExit(f"{folder}: a majority needs grades-1.tsv and two or more graders more")
    by_key = graded(folder, files)
    rows, grades = votes(by_key)
    lines = []
    for row, accepted in zip(rows, majority_vote(grades), strict=True):
        reason = "ok" if accepted else next(
            g[row["key"]]["reason"] for g in by_key if not g[row["key"]]["accepted"])
        lines.append(f"{row['key']}\t{'accept' if accepted else 'reject'}\t{reason}")
    out = folder / "grades.tsv"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def offset(scores: np.ndarray, accepted: np.ndarray) -> float:
    """The logit offset that makes the mean of ``scores`` the accept rate of ``accepted``."""
    return calibration.kind_shift(scores, accepted, prior_sd=float("inf"))


def sample_lines(name: str, folder: Path) -> tuple[list[str], list[float]]:
    """The report's lines for one sample and its graders' offsets."""
    files = grader_files(folder)
    rows, grades = votes(graded(folder, files))
    scores = np.array([row["quality"] for row in rows])
    vote = majority_vote(grades)
    offsets = [offset(scores, g) for g in grades]
    lines = [f"### {name} ({len(rows)} questions, {len(files)} graders)", "",
             "| grader | accepted | offset (logit) |", "|---|---|---|"]
    lines += [f"| {file} | {g.mean():.0%} | {d:+.2f} |"
              for file, g, d in zip(files, grades, offsets, strict=True)]
    lines += [f"| majority | {vote.mean():.0%} | {offset(scores, vote):+.2f} |", "",
              "| graders | agree | Cohen's kappa |", "|---|---|---|"]
    for (i, a), (j, b) in itertools.combinations(enumerate(grades), 2):
        lines.append(f"| {files[i]} · {files[j]} | {np.mean(a == b):.0%} | "
                     f"{cohen_kappa_score(a, b):.2f} |")
    return [*lines, ""], offsets


def report() -> list[str]:
    samples = sorted((p for p in GRADING.glob("round*/*") if grader_files(p)),
                     key=lambda p: (int(p.parent.name.removeprefix("round")), p.name))
    lines = ["# Do independent graders agree?", "",
             "Written by `python benchmarks/synthetic_agreement.py` (see its docstring): the "
             "samples that more than one grader graded blind. An offset is the shift, on the "
             "logit scale, that makes the mean quality score the sample was drawn with that "
             "grader's accept rate.", ""]
    variances = []
    for folder in samples:
        part, offsets = sample_lines(f"{folder.parent.name}/{folder.name}", folder)
        lines += part
        variances.append(float(np.var(offsets, ddof=1)))
    pooled = float(np.sqrt(np.mean(variances))) if variances else float("nan")
    share = pooled**2 / calibration.KIND_SHIFT_SD**2
    lines += ["## The graders' share of a kind's offset", "",
              f"Pooled standard deviation of one sample's offsets between its graders: "
              f"**{pooled:.2f}** on the logit scale ({len(variances)} samples), against "
              f"{calibration.KIND_SHIFT_SD:.2f} for the spread of the kinds' offsets measured "
              f"with one grader a sample (`KIND_SHIFT_SD`): the graders account for about "
              f"{share:.0%} of that spread's variance, the text and the generator for the rest.",
              ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    vote = sub.add_parser("majority", help="write grades.tsv from grades-1.tsv, grades-2.tsv, ...")
    vote.add_argument("folder", help="a folder under synthetic_grading")
    args = parser.parse_args()
    if args.command == "majority":
        print(majority(GRADING / args.folder))
        return
    lines = report()
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
