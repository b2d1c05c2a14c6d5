"""Hostile text for tests: markdown links and images to an outside host, HTML with handlers,
scripts and spreadsheet formulas, written into every user-text field of a workspace.

``seed(db)`` adds one query, three chunks, a run, judgments by three people, a queue, segment
values, a failure tag and review, a history row, a synthetic candidate and grade names, all
carrying that text, and leaves the hostile pairs as the only queued ones (so the Label card and
Judge by query show them) and the hostile candidate as the only pending one. Ids hold no
whitespace (the importers refuse ids with spaces); names and texts hold everything.

Anything that executes sets ``window.__injected``; anything fetched goes to ``evil.example``.
"""

from __future__ import annotations

import json

import sqlite_utils

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import score_history
from labeling.evaluation.views import failure_tags
from labeling.judging import queue
from labeling.workspace import grading, judgments, roles, store
from tests.workspaces import add_rows

EVIL = "evil.example"
LINK = f"[x](https://{EVIL}/a)"
IMAGE = f"![](http://{EVIL}/i.png)"
IMG_TAG = f'<img src="http://{EVIL}/t.png" onerror="window.__injected=1">'
SCRIPT = "<script>window.__injected=2</script>"
FORMULA = f'=HYPERLINK("https://{EVIL}/f","click")'
BARE = f"https://{EVIL}/bare www.{EVIL}"
TEXT = " ".join([FORMULA, LINK, IMAGE, IMG_TAG, SCRIPT, BARE, ":red[alarm] **bold** $x^2$"])
SHORT = f"{LINK} {IMG_TAG}"  # for fields shown in narrow places

QUERY = f"[q](https://{EVIL}/q)"
CHUNKS = (
    f"![c](http://{EVIL}/c.png)",
    f'=HYPERLINK("https://{EVIL}/h")',
    f"<img/src=http://{EVIL}/u.png/onerror=window.__injected=3>",
)
RUN = f"@[run](https://{EVIL}/r)"
ANNOTATORS = (f"[ann](https://{EVIL}/n)", f'=HYPERLINK("https://{EVIL}/n")',
              f'<img src="http://{EVIL}/n.png">')
ATTRIBUTE = f"[seg](https://{EVIL}/s)"
TAG = IMAGE
GRADE_NAME = f"partial [g](https://{EVIL}/g)"
GENERATOR = f'<img src="http://{EVIL}/gen.png" onerror="window.__injected=5">'
FILE_NAME = f"[file](https://{EVIL}/f).csv"  # an upload's name


def seed(db: sqlite_utils.Database) -> None:
    """Write the hostile rows (see the module docstring) into the workspace ``db``.

    The query, the chunks and the run go through the importers, the grade name through
    ``set_scale``. Raw SQL is kept for what no function does: emptying the labeling queue, and
    a synthetic candidate whose generator name, rubric problems and outranking chunks are
    hostile text (``add_candidates`` computes the last two itself).
    """
    add_rows(
        db,
        queries=[{"id": QUERY, "text": TEXT, "topic": LINK, ATTRIBUTE: IMG_TAG}],
        chunks=[{"id": c, "doc_id": f"{CHUNKS[0]}-doc", "title": SHORT, "text": TEXT}
                for c in CHUNKS],
        runs={RUN: {
            "results": [(QUERY, c, 10.0 - rank, rank) for rank, c in enumerate(CHUNKS, start=1)],
            "index_build": SHORT, "embedding_model": FORMULA, "query_set_version": SHORT,
            "notes": TEXT,
        }},
    )
    now = store.utc_now()
    with roles.acting_as(None):
        grading.set_scale(db, [(grade, GRADE_NAME, TEXT) if grade == 1 else (grade, name, text)
                               for grade, name, text in grading.get_scale(db)])
    with roles.acting_as(None), store.write_transaction(db) as conn:
        conn.execute("DELETE FROM label_queue")  # the hostile pairs become the whole queue
        conn.execute("UPDATE synthetic_candidates SET status = 'rejected'")
        conn.execute(
            "INSERT INTO synthetic_candidates (batch, chunk_id, question, generated_question,"
            " answer, generator, rubric_problems, outranking, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [SHORT, CHUNKS[0], TEXT, TEXT, TEXT, GENERATOR, json.dumps([LINK, IMG_TAG]),
             json.dumps([CHUNKS[1]]), now],
        )
    with roles.acting_as(None):
        # two people disagree on the first pair; the second has one grade; the third is open
        judgments.add_judgment(db, QUERY, CHUNKS[0], 0, ANNOTATORS[0], note=FORMULA)
        judgments.add_judgment(db, QUERY, CHUNKS[0], 3, ANNOTATORS[1], note=TEXT)
        judgments.add_judgment(db, QUERY, CHUNKS[1], 2, ANNOTATORS[2], note=f"-{LINK}")
        queue.enqueue_pairs(db, [(QUERY, c) for c in CHUNKS], reason=SHORT)
        failure_tags.add_failure_tag(db, TAG, description=TEXT, created_by=ANNOTATORS[0])
        failure_tags.tag_failure(db, QUERY, RUN, [TAG], ANNOTATORS[1], note=TEXT)
        score_history.save_snapshot(db, Controls(RUN, ("R@10", "RR")),
                                    created_by=ANNOTATORS[0])
