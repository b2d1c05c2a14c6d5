"""The Dashboard after a judgment: the new numbers come from patching the per-query values of
the judged query, never from evaluating the whole run again, and they equal a full recompute."""

from __future__ import annotations

from unittest import mock

import pandas as pd
import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.workspace import store


def test_a_judgment_in_the_drill_down_patches_the_scorecard(open_app, workspace):
    result_cache.clear_cache()
    full = mock.Mock(wraps=scoring._evaluate)
    with mock.patch.object(scoring, "_evaluate", full):
        at = open_app("dashboard")
        at.session_state["annotator"] = "carol"
        at.multiselect(key="dash_extra").set_value(["P@k"]).run()
        before = at.dataframe[0].value.set_index("measure").loc["P@10", "mean"]
        evaluations = full.call_count
        assert evaluations  # the first open evaluates the run
        at.session_state["dash_tab"] = "Worst queries"
        at.run()
        at.selectbox(key="dash_drill_query").set_value("q01").run()
        ranked = next(d.value for d in at.dataframe if "snippet" in d.value.columns)
        unjudged = ranked.loc[(ranked["rank"] <= 10) & ranked["grade"].isna()]
        at.selectbox(key="dash_judge_chunk:q01").set_value(unjudged["chunk_id"].iloc[0])
        at.radio(key="dash_judge_grade").set_value(3)
        at.button(key="dash_judge_save").click().run()
        assert not at.exception and not at.error
        at.session_state["dash_tab"] = "Scorecard"
        at.run()
        after = at.dataframe[0].value.set_index("measure").loc["P@10", "mean"]
        assert full.call_count == evaluations  # patched, not evaluated again
    assert after == pytest.approx(before + 0.1 / 46)  # one more relevant chunk in q01's top 10
    db = store.open_workspace(workspace)
    try:
        controls = Controls("bm25", measures=("R@10", "RR", "P@10"))
        kept = scoring.per_query(db, controls)
        result_cache.clear_cache()
        pd.testing.assert_frame_equal(kept.sort_index(), scoring.per_query(db, controls)
                                      .sort_index(), rtol=0, atol=1e-12)
    finally:
        db.close()
    result_cache.clear_cache()
