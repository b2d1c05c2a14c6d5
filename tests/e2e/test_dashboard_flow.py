"""Browser flow: open the Dashboard, open the worst query, see the relevant chunk it missed.

The shared server serves the test its own fresh copy of the demo, which no other test changes; the
worst query and the chunks it missed are what the library says under the Dashboard's default
controls (the first run, the workspace's default measures and relevance), so the browser must
show exactly those.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def worst_query_and_missed(path) -> tuple[str, list[str]]:
    """The first query of "Retrieved badly" under the Dashboard's defaults, and the chunks it
    missed in the top k of the sorting measure, from the library."""
    from labeling.evaluation.inputs import score_defaults, segmenting
    from labeling.evaluation.inputs.score_controls import Controls
    from labeling.evaluation.scores import scoring
    from labeling.evaluation.views import drilldown
    from labeling.workspace import contents, grading, store

    db = store.open_workspace(path, create=False)
    try:
        defaults = score_defaults.score_defaults(db)
        controls = Controls(contents.run_names(db)[0], measures=defaults.measures,
                            k=defaults.k, relevance=grading.default_relevance(db))
        measure = controls.measures[0]  # "Sort by" starts at the first measure
        worst = drilldown.worst_queries(
            scoring.per_query(db, controls), segmenting.query_table(db), measure,
            exclude=scoring.unanswered_queries(db, controls))
        query_id = str(worst["query_id"].iloc[0])
        scoped, k = drilldown.miss_scope(controls, measure)
        missed = drilldown.drill_down(db, scoped, query_id, k=k)[1]
        return query_id, [str(chunk) for chunk in missed["chunk_id"]]
    finally:
        db.close()


def test_worst_query_shows_its_missed_relevant_chunk(page, app_server, app_workspace, wait_idle):
    query_id, missed_ids = worst_query_and_missed(app_workspace)
    assert missed_ids  # below 1 on a recall-like measure: something relevant was missed
    page.goto(f"{app_server}/dashboard")  # `page` opened the home first
    wait_idle(page)
    page.get_by_role("tab", name="Worst queries").click()
    wait_idle(page)
    # The drill-down opens the first (worst) query of the table by default.
    opened = page.locator("[data-testid='stText']").filter(has_text=re.compile(r"^Query \S+: "))
    opened.first.wait_for()
    assert opened.first.inner_text().startswith(f"Query {query_id}: ")
    missed = page.locator("[data-testid='stText']").filter(has_text=re.compile(r"^Missed: "))
    missed.first.wait_for()
    shown = [text.removeprefix("Missed: ").split(" · ")[0] for text in missed.all_inner_texts()]
    assert shown == missed_ids
    assert page.get_by_text("Relevant chunks the run missed").is_visible()
