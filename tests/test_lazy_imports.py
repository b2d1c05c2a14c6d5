"""Start-up cost: the modules the Dashboard's first tab needs do not import scipy.stats (seconds
on a busy machine; only the statistical tests use it, and import it when they run), and the
server's warm-up finds the pages' imports. No timing is asserted (see benchmarks/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pages import _warmup

FIRST_TAB = ("labeling.evaluation.scores.scoring", "labeling.evaluation.views.deciding_pairs",
             "labeling.evaluation.planning.judging_budget",
             "labeling.evaluation.scores.run_comparison",
             "labeling.evaluation.scores.label_depth", "labeling.evaluation.inputs.score_defaults")


def test_the_scorecard_modules_leave_scipy_stats_unimported() -> None:
    code = ("import sys\n" + "".join(f"import {name}\n" for name in FIRST_TAB)
            + "print(sorted(m for m in sys.modules if m.startswith('scipy.stats')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "[]"


def test_a_lazy_statistic_still_computes() -> None:
    from labeling.metrics import statistics

    t, p = statistics.paired_t_test([0.5, 0.7, 0.9, 0.4], [0.4, 0.5, 0.6, 0.4])
    assert t < 0 and 0 < p < 1  # the candidate (second) is lower


def test_the_warm_up_lists_the_pages_imports_dashboard_first() -> None:
    modules = _warmup.page_modules()
    assert "plotly.express" in modules and "labeling.evaluation.scores.scoring" in modules
    assert modules.index("plotly.express") < modules.index("labeling.synthetic")
    thread = _warmup.start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert "plotly.express" in sys.modules
    # it drew the Dashboard's kinds of chart too: the heat map's classes load only when drawn
    assert "plotly.graph_objs._heatmap" in sys.modules


def test_the_served_app_runs_every_session_through_its_navigation() -> None:
    """Served, app.py turns off Streamlit's pages-folder mode before any session: else a fresh
    server's first request for a page address runs that page alone, then again through app.py."""
    code = ("import sys; sys.argv = ['streamlit']\n"
            "from streamlit.runtime.pages_manager import PagesManager\n"
            "import app\n"
            "print(PagesManager.uses_pages_directory)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip().splitlines()[-1] == "False"
