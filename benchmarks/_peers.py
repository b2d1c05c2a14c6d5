"""One library's side of the metric benchmark, run in a fresh child process.

``python benchmarks/_peers.py LIBRARY QRELS.parquet RUN.parquet --repeat 3 --out PER_QUERY.parquet``
imports the library (and, for ranx, compiles its numba kernels on a small input), loads the two
frames, then evaluates them ``--repeat`` times. Each timing covers everything from the loaded
DataFrames to per-query values and their means: converting the frames into the library's own
structures is included. It prints one ``RESULT {json}`` line: times, memory, means; the
per-query values of the first repetition go to ``--out`` (outside the timings).

Memory: Linux's VmRSS after loading the frames is the baseline; before each repetition the
peak (VmHWM) is reset by writing "5" to /proc/self/clear_refs, and the peak above the baseline
after it is the repetition's extra memory.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from _data import MEASURES, make_data

PYTREC_NAMES = {
    "P@10": "P_10",
    "R@100": "recall_100",
    "Success@10": "success_10",
    "RR": "recip_rank",
    "AP@100": "map_cut_100",
    "nDCG@10": "ndcg_cut_10",
}
PYTREC_REQUEST = {"P.10", "recall.100", "success.10", "recip_rank", "map_cut.100", "ndcg_cut.10"}
RANX_NAMES = {
    "P@10": "precision@10",
    "R@100": "recall@100",
    "Success@10": "hit_rate@10",
    "RR": "mrr",
    "AP@100": "map@100",
    "nDCG@10": "ndcg@10",
}
LIBRARIES = ("ours", "pytrec_eval", "ranx", "ir_measures")
MODULES = {
    "ours": "labeling.metrics.engine",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx",
    "ir_measures": "ir_measures",
}


# ---------------------------------------------------------------- memory (Linux /proc)


def _status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS; False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return _status_kib("VmHWM") <= _status_kib("VmRSS") + 1024


def rss_mb() -> float:
    return _status_kib("VmRSS") / 1024


def peak_mb() -> float:
    return _status_kib("VmHWM") / 1024


# ---------------------------------------------------------------- the four evaluators
# Each returns (per_query frame indexed by query id with MEASURES columns, means dict).
# Everything inside runs in the timed region.


def _nested(outer: pd.Series, inner: pd.Series, value: pd.Series) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(outer.tolist(), inner.tolist(), value.tolist(), strict=True):
        entry = out.get(q)
        if entry is None:
            entry = out[q] = {}
        entry[d] = v
    return out


def _frame(values: dict[str, dict[str, float]]) -> pd.DataFrame:
    """{measure: {query: value}} as a frame indexed by query id."""
    return pd.DataFrame(values)[MEASURES]


def setup_ours() -> Callable[[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, dict]]:
    from labeling.commands.allocator import keep_freed_memory
    from labeling.metrics.engine import evaluate

    # Each peer runs in a process of its own, as a batch command would: ours tunes the allocator
    # as `scorecard evaluate` does (the library itself leaves a process's allocator alone).
    keep_freed_memory()

    def run(qrels: pd.DataFrame, run_frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
        result = evaluate(qrels, run_frame, MEASURES)
        return result.per_query, result.mean.to_dict()

    return run


def setup_pytrec_eval() -> Callable[[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, dict]]:
    import pytrec_eval

    def run(qrels: pd.DataFrame, run_frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
        qrels_dict = _nested(qrels["query_id"], qrels["doc_id"], qrels["relevance"])
        run_dict = _nested(run_frame["query_id"], run_frame["doc_id"], run_frame["score"])
        evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, PYTREC_REQUEST)
        per_query = evaluator.evaluate(run_dict)
        values = {
            ours: {q: scores[name] for q, scores in per_query.items()}
            for ours, name in PYTREC_NAMES.items()
        }
        means = {m: sum(v.values()) / max(len(v), 1) for m, v in values.items()}
        return _frame(values), means

    return run


def _ranx_inputs(qrels: pd.DataFrame, run_frame: pd.DataFrame) -> tuple[Any, Any]:
    import ranx

    # ranx 0.3.21 needs object id columns under pandas 3 (it rejects the string dtype).
    q = qrels.astype({"query_id": object, "doc_id": object})
    r = run_frame.astype({"query_id": object, "doc_id": object})
    return (
        ranx.Qrels.from_df(q, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance"),
        ranx.Run.from_df(r, q_id_col="query_id", doc_id_col="doc_id", score_col="score"),
    )


def setup_ranx() -> Callable[[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, dict]]:
    import ranx

    def run(qrels: pd.DataFrame, run_frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
        ranx_qrels, ranx_run = _ranx_inputs(qrels, run_frame)
        means = ranx.evaluate(ranx_qrels, ranx_run, list(RANX_NAMES.values()))
        values = {ours: dict(ranx_run.scores[name]) for ours, name in RANX_NAMES.items()}
        return _frame(values), {m: float(means[RANX_NAMES[m]]) for m in MEASURES}

    return run


def setup_ir_measures() -> Callable[[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, dict]]:
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in MEASURES]

    def run(qrels: pd.DataFrame, run_frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
        values: dict[str, dict[str, float]] = {m: {} for m in MEASURES}
        for metric in ir_measures.iter_calc(measures, qrels, run_frame):
            values[str(metric.measure)][metric.query_id] = metric.value
        means = {m: sum(v.values()) / max(len(v), 1) for m, v in values.items()}
        return _frame(values), means

    return run


SETUP = {
    "ours": setup_ours,
    "pytrec_eval": setup_pytrec_eval,
    "ranx": setup_ranx,
    "ir_measures": setup_ir_measures,
}


# ---------------------------------------------------------------- child main


def measure(library: str, qrels_path: Path, run_path: Path, repeat: int, out: Path | None) -> dict:
    result: dict[str, Any] = {"library": library}
    start = time.perf_counter()
    evaluate = SETUP[library]()
    result["import_s"] = time.perf_counter() - start
    # A small evaluation first (50 queries of the same shape: string ids, shuffled rows, tied
    # scores): for ranx this is numba's one-time compilation (a tiny hand-made input leaves
    # some kernels uncompiled); for the others it only loads lazily imported code.
    start = time.perf_counter()
    evaluate(*make_data(50, seed=12345))
    result["warmup_s"] = time.perf_counter() - start
    result["rss_after_import_mb"] = rss_mb()

    qrels = pd.read_parquet(qrels_path)
    run = pd.read_parquet(run_path)
    gc.collect()
    baseline = rss_mb()
    result["rss_loaded_mb"] = baseline
    result["peak_reset"] = reset_peak()

    times, peaks, first = [], [], None
    for _ in range(repeat):
        gc.collect()
        reset_peak()
        start = time.perf_counter()
        per_query, means = evaluate(qrels, run)
        times.append(time.perf_counter() - start)
        peaks.append(peak_mb() - baseline)
        if first is None:
            first = (per_query, means)
        del per_query, means
    assert first is not None
    result.update(
        times_s=times,
        first_s=times[0],
        best_s=min(times),
        peak_above_data_mb=max(peaks),
        peaks_mb=peaks,
        means=first[1],
        n_queries=len(first[0]),
    )
    if out is not None:
        frame = first[0].copy()
        frame.index = frame.index.astype(str)
        frame.index.name = "query_id"
        frame.astype("float64").to_parquet(out)
    return result


def profile(library: str, qrels_path: Path, run_path: Path, rows: int) -> None:
    import cProfile
    import pstats

    evaluate = SETUP[library]()
    evaluate(*make_data(50, seed=12345))
    qrels, run = pd.read_parquet(qrels_path), pd.read_parquet(run_path)
    evaluate(qrels, run)  # warm (first-touch page faults, caches), as in "best of" timings
    profiler = cProfile.Profile()
    profiler.enable()
    evaluate(qrels, run)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
    stats.sort_stats("tottime").print_stats(rows)
    stats.sort_stats("cumulative").print_stats(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", choices=LIBRARIES)
    parser.add_argument("qrels", type=Path)
    parser.add_argument("run", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="per-query values (parquet)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="instead of timing: cProfile one (warm) evaluation, print N rows",
    )
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # numba's type-safety warnings from ranx
    if args.profile:
        profile(args.library, args.qrels, args.run, args.profile)
        return 0
    result = measure(args.library, args.qrels, args.run, max(args.repeat, 1), args.out)
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
