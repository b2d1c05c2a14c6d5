"""The scorecard's tables and number formats, shared by its HTML and Markdown forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.files.formats.values import plain_value

if TYPE_CHECKING:
    from labeling.report.scorecard import Scorecard


def fmt(value: Any, digits: int = 3) -> str:
    value = plain_value(value)
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def interval_table(card: pd.DataFrame) -> pd.DataFrame:
    wide = card.pivot_table(index="segment", columns="measure", values=["mean", "ci_low",
                                                                      "ci_high"], sort=False)
    counts = card.groupby("segment", sort=False)["n"].first()
    rows = []
    for segment in dict.fromkeys(card["segment"]):
        row: dict[str, Any] = {"segment": segment, "queries": int(counts[segment])}
        for measure in dict.fromkeys(card["measure"]):
            mean = wide.loc[segment, ("mean", measure)]
            low, high = wide.loc[segment, ("ci_low", measure)], wide.loc[segment,
                                                                          ("ci_high", measure)]
            row[measure] = f"{mean:.3f} [{low:.3f}, {high:.3f}]"
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_table(card: Scorecard) -> pd.DataFrame:
    frame = card.comparison
    assert frame is not None
    return pd.DataFrame({
        "measure": frame["measure"], "queries": frame["n"], "baseline": frame["baseline"],
        "run": frame["candidate_mean"], "difference": frame["difference"],
        "p (Holm)": frame["p_holm"],
        "significant": frame["significant"].map({True: "yes", False: "no"}),
        "wins / ties / losses": [f"{w} / {t} / {lo}" for w, t, lo in
                                 zip(frame["wins"], frame["ties"], frame["losses"],
                                     strict=True)],
    })
