"""Runs of different chunk sets: each scored on its own chunk set's labels, side by side on the
carried queries, and on one footing (document and span units against a reference chunk set);
and the command line that imports documents and chunk sets and prints the transfer report."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from labeling.commands import chunking as chunking_command
from labeling.commands import cli
from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set
from labeling.evaluation.inputs.label_sets import label_snapshot
from labeling.evaluation.inputs.ranked_runs import load_run
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import chunk_set_scores
from labeling.evaluation.scores.scoring import per_query
from labeling.files import baseline
from labeling.metrics.engine import evaluate
from labeling.rechunking import plan, report, splitter, transfer
from labeling.workspace import chunk_sets, store

MEASURES = ("R@10", "nDCG@10", "RR", "P@5")


@pytest.fixture(scope="module")
def two_chunkings(build_workspace):
    """The demo plus chunk set ``small`` (250 characters) with its labels carried over and a
    BM25 run on it; ``bm25`` was scored before the transfer."""
    db = store.open_workspace(build_workspace.path("demo"), create=False)
    result_cache.clear_cache()
    controls = Controls(run="bm25", measures=MEASURES)
    before = per_query(db, controls).copy()
    splitter.rechunk_documents(db, "small", 250)
    transfer.transfer_labels(db, "sections", "small")
    baseline.bm25_run(db, "bm25-small", k=20, chunk_set="small")
    yield db, controls, before
    db.close()


def test_a_run_is_scored_on_its_own_chunk_sets_labels(two_chunkings):
    db, controls, before = two_chunkings
    result_cache.clear_cache()
    after = per_query(db, controls)  # thousands of new labels on another chunk set's chunks
    pd.testing.assert_frame_equal(after, before)
    small = per_query(db, controls.for_run("bm25-small"))
    assert chunk_sets.run_chunk_set(db, "bm25-small") == "small"
    qrels = labels_for_chunk_set(db, "small", label_snapshot(db, "default").qrels)
    assert set(qrels["doc_id"]) <= set(chunk_sets.member_ids(db, "small"))
    engine = evaluate(qrels, load_run(db, "bm25-small"), MEASURES).per_query
    engine.index = engine.index.astype("string")
    pd.testing.assert_frame_equal(small, engine.loc[small.index], check_names=False)


def test_side_by_side_on_carried_queries(two_chunkings):
    db, controls, before = two_chunkings
    card = report.transfer_report(db, "sections", "small", segment="topic")
    table = chunk_set_scores.side_by_side(db, controls, "bm25", "bm25-small",
                                          card.carried_queries).set_index("measure")
    # 45 of the 46 queries: one query's judged sections are all split with the answer not
    # located, so its labels wait for review (the answer rule, labeling.rechunking.answers).
    assert (table["n"] == len(card.carried_queries)).all() and len(card.carried_queries) == 45
    assert table.loc["R@10", "old"] == pytest.approx(
        before.loc[card.carried_queries, "R@10"].mean())
    assert (table["old_low"] <= table["old"]).all() and (table["new"] <= table["new_high"]).all()
    assert table.loc["RR", "difference"] == pytest.approx(
        table.loc["RR", "new"] - table.loc["RR", "old"])


def test_span_unit_of_the_reference_run_is_its_chunk_unit(two_chunkings):
    db, controls, before = two_chunkings
    span = chunk_set_scores.footing_per_query(db, controls, "bm25", "sections", "span")
    pd.testing.assert_frame_equal(span.sort_index(), before.sort_index(), check_names=False)
    document = chunk_set_scores.footing_per_query(db, controls, "bm25", "sections", "document")
    dashboard = per_query(db, Controls(run="bm25", measures=MEASURES, unit="document"))
    pd.testing.assert_frame_equal(document.sort_index(), dashboard.sort_index(),
                                  check_names=False)


def test_span_unit_credits_each_judged_text_once(two_chunkings):
    """bm25-small retrieves pieces of sections: two pieces of one relevant section count as one
    relevant judged text, so recall cannot pass 1 and the ideal list is the reference's."""
    db, controls, _ = two_chunkings
    span = chunk_set_scores.footing_per_query(db, controls, "bm25-small", "sections", "span")
    chunk = per_query(db, controls.for_run("bm25-small"))
    assert span["R@10"].between(0, 1).all()
    # At the chunk unit the split sections' pieces are each a relevant item: recall is lower.
    assert span["R@10"].mean() > chunk["R@10"].mean()
    table = chunk_set_scores.one_footing(db, controls, ["bm25", "bm25-small"], "sections")
    assert set(table["unit"]) == {"document", "span"} and (table["n"] == 46).all()


def test_cli_imports_documents_and_chunk_sets_and_prints_the_report(make_workspace, tmp_path,
                                                                    capsys):
    ws = make_workspace.path("demo")
    db = store.open_workspace(ws, create=False)
    spans = splitter.chunk_records(db, "cli", 600, 60)
    db.close()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "extra.md").write_text("# Extra\n\nA new document.\n", encoding="utf-8")
    chunks = tmp_path / "cli.jsonl"
    chunks.write_text("".join(json.dumps({k: r[k] for k in ("id", "doc_id", "text")}) + "\n"
                              for r in spans), encoding="utf-8")

    def run(*argv):
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("import", ws, "documents", folder)
    assert code == 0 and "imported 1 documents rows" in out
    code, out, _ = run("import", ws, "chunkset", chunks, "--name", "cli", "--size", 600,
                       "--overlap", 60, "--splitter", "recursive")
    assert code == 0 and f"imported {len(spans)} chunk set rows" in out
    code, out, _ = run("baseline", ws, "--run-name", "bm25-cli", "--k", 20, "--chunk-set", "cli")
    assert code == 0
    code, out, err = run("transfer", ws, "--from", "sections", "--to", "cli", "--segment",
                         "topic", "--old-run", "bm25", "--new-run", "bm25-cli", "-m", "nDCG@10")
    assert code == 0 and "612 judgments" in err
    first = json.loads(out)
    db = store.open_workspace(ws, create=False)
    expected = report.transfer_report(db, "sections", "cli", segment="topic").to_dict()
    assert {k: first[k] for k in expected} == expected
    assert sum(first["outcomes"].values()) == 612
    assert sum(row["total"] for row in first["by_segment"]) == 612
    sides = first["scorecards"]["side_by_side"]
    assert [row["measure"] for row in sides] == ["nDCG@10"] and sides[0]["n"] > 40
    # Again: the same report, no second transfer.
    code, out, err = run("transfer", ws, "--from", "sections", "--to", "cli", "--segment",
                         "topic")
    assert code == 0 and "before" in err
    again = json.loads(out)
    assert {k: again[k] for k in expected} == expected and "scorecards" not in again
    code, _, err = run("import", ws, "chunkset", chunks, "--name", "cli")
    assert code == 2 and "already exists" in err and len(err.strip().splitlines()) == 1


def test_cli_reports_an_unplaceable_chunk_in_one_line(make_workspace, tmp_path, capsys):
    ws = make_workspace.path("demo")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x1", "doc_id": "leave", "text": "Not in the policy."})
                   + "\n", encoding="utf-8")
    code = cli.main(["import", str(ws), "chunkset", str(bad), "--name", "bad"])
    _, err = capsys.readouterr()
    assert code == 2 and "'x1' (line 1): its text is not in its document" in err
    assert len(err.strip().splitlines()) == 1


def test_the_command_lines_default_threshold_is_the_librarys():
    parser = cli.build_parser()
    args = parser.parse_args(["transfer", "w.db", "--from", "a", "--to", "b"])
    assert args.threshold == plan.DEFAULT_THRESHOLD
    assert chunking_command.IMPORT_KINDS == ("documents", "chunkset")
