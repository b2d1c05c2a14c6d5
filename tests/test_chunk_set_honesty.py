"""Issue 26, cases 3 and 4, on the demo re-chunked: a run imported without a chunk set is scored
on the chunk set its chunk ids belong to (or warned about), the count of relevant labels beside
recall is the one the run is scored on and names it, and ``export qrels`` never mixes chunk
sets unasked, so that ``scorecard evaluate`` on the exported files gives the app's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeling.commands.cli import main
from labeling.errors import ScorecardError
from labeling.evaluation.inputs import chunk_set_labels, run_freshness
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import label_depth, scoring
from labeling.files import exporters, importers
from labeling.synthetic import review
from labeling.synthetic.candidate import Candidate
from labeling.workspace import chunk_sets, store
from tests.workspaces import rechunk

SMALL = "small"  # the second chunk set: the demo's documents split at 250 characters


def write_run(path: Path, rows) -> Path:
    path.write_text("".join(f"{q} Q0 {c} {r} {s} x\n" for q, c, r, s in rows), encoding="utf-8")
    return path


def top_of(db, run: str, depth: int):
    return db.conn.execute(
        "SELECT query_id, chunk_id, rank, score FROM run_results r JOIN runs u ON u.id = r.run_id"
        " WHERE u.name = ? AND rank <= ? ORDER BY query_id, rank", [run, depth]).fetchall()


@pytest.fixture(scope="module")
def tiny5(tmp_path_factory) -> Path:
    """bm25's top 5 of the demo as a run file that names no chunk set."""
    return tmp_path_factory.mktemp("runs") / "tiny5.trec"


@pytest.fixture(scope="module")
def rechunked(build_workspace, tiny5) -> Path:
    """The demo with a second chunk set (its labels carried over), closed."""
    path = build_workspace.path("demo")
    db = store.open_workspace(path, create=False)
    write_run(tiny5, top_of(db, "bm25", 5))
    rechunk(db, SMALL)
    db.close()
    return path


@pytest.fixture
def db(rechunked, tmp_path):
    copy = tmp_path / "scorecard.db"
    copy.write_bytes(rechunked.read_bytes())
    database = store.open_workspace(copy, create=False)
    yield database
    database.close()


# --- case 3 -----------------------------------------------------------------------------------


def test_a_run_without_a_chunk_set_scores_as_on_the_demo(make_workspace, db, tiny5) -> None:
    demo = make_workspace("demo")
    importers.import_run(demo, tiny5, "tiny5")
    before = scoring.per_query(demo, Controls("tiny5"))
    result = importers.import_run(db, tiny5, "tiny5")  # a second chunk set exists now
    assert chunk_sets.run_chunk_set(db, "tiny5") == "sections"
    assert any("every retrieved chunk belongs to chunk set 'sections'" in w
               for w in result.warnings)
    after = scoring.per_query(db, Controls("tiny5"))
    assert after.equals(before)
    assert chunk_set_labels.unstated_chunk_set(db, "tiny5") is None
    # Scored against every chunk set's labels, recall falls: then it is never silent.
    chunk_sets.set_run_versioning(db, "tiny5", chunk_set=None)
    mixed = scoring.per_query(db, Controls("tiny5"))
    assert (mixed["R@10"] < before["R@10"]).any()
    assert "labels of every chunk set" in chunk_set_labels.unstated_chunk_set(db, "tiny5")


def test_a_run_mixing_chunk_sets_names_none_and_is_warned_about(db, tmp_path) -> None:
    small = [m for m in chunk_sets.member_ids(db, SMALL)][:3]
    rows = [*top_of(db, "bm25", 2), *(("q01", c, 10 + i, 0.1) for i, c in enumerate(small))]
    result = importers.import_run(db, write_run(tmp_path / "mixed.trec", rows), "mixed")
    assert chunk_sets.run_chunk_set(db, "mixed") is None
    assert any("come from different chunk sets" in w and "sections (" in w and "small (" in w
               for w in result.warnings)
    warning = chunk_set_labels.unstated_chunk_set(db, "mixed")
    assert warning and "every chunk set (sections, small)" in warning


def test_the_command_line_and_a_named_chunk_set_win(db, tiny5, capsys) -> None:
    path = str(Path(db.conn.execute("PRAGMA database_list").fetchone()[2]))
    assert main(["import", path, "run", str(tiny5), "--run-name", "t", "--chunk-set",
                 SMALL]) == 0
    assert chunk_sets.run_chunk_set(db, "t") == SMALL  # stated, not inferred
    assert main(["import", path, "run", str(tiny5), "--run-name", "u", "--chunk-set",
                 "nope"]) == 2
    assert "no chunk set named 'nope'" in capsys.readouterr().err


# --- case 4 -----------------------------------------------------------------------------------


def relevant_scored_on(db, controls: Controls) -> int:
    qrels = chunk_set_labels.labels_for_run(db, controls.run, labels_for(db, controls).qrels)
    return int((qrels["relevance"] >= controls.relevance).sum())


def test_the_count_of_relevant_labels_is_the_one_the_run_is_scored_on(db) -> None:
    controls = Controls("bm25")
    every = int((labels_for(db, controls).qrels["relevance"] >= 1).sum())
    depth = label_depth.label_depth(db, controls)
    assert depth.relevant == relevant_scored_on(db, controls) < every
    assert depth.chunk_set == "sections"
    assert depth.sentence().startswith(
        f"The {depth.relevant} relevant labels (grade 1 and above, of chunk set sections, "
        "people's labels")


def test_export_qrels_refuses_to_mix_chunk_sets_unless_asked(db, tmp_path, capsys) -> None:
    path = str(Path(db.conn.execute("PRAGMA database_list").fetchone()[2]))
    out = tmp_path / "qrels.txt"
    assert main(["export", path, "qrels", str(out)]) == 2
    error = capsys.readouterr().err
    assert "2 chunk sets (sections, small)" in error and "--chunk-set" in error
    assert not out.exists()
    assert main(["export", path, "qrels", str(out), "--all-chunk-sets"]) == 0
    mixed = len(out.read_text().splitlines())
    assert main(["export", path, "qrels", str(out), "--chunk-set", "sections"]) == 0
    assert len(out.read_text().splitlines()) < mixed
    with pytest.raises(ScorecardError, match="not both"):
        exporters.export_qrels(db, tmp_path / "x.txt", chunk_set="sections", all_chunk_sets=True)


def test_evaluate_on_the_exported_files_gives_the_app_numbers(db, tmp_path, capsys) -> None:
    path = str(Path(db.conn.execute("PRAGMA database_list").fetchone()[2]))
    qrels, run = tmp_path / "qrels.txt", tmp_path / "bm25.trec"
    assert main(["export", path, "qrels", str(qrels), "--chunk-set", "sections"]) == 0
    assert main(["export", path, "run", "bm25", str(run)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(run), "-m", "R@10", "-m", "RR",
                 "--format", "json"]) == 0
    mean = json.loads(capsys.readouterr().out)["mean"]
    app = scoring.per_query(db, Controls("bm25")).mean()
    assert mean["R@10"] == pytest.approx(app["R@10"], abs=1e-12)
    assert mean["RR"] == pytest.approx(app["RR"], abs=1e-12)


# --- case 5 -----------------------------------------------------------------------------------


def test_a_question_of_another_chunk_sets_chunk_leaves_the_runs_fresh(db) -> None:
    chunk = str(chunk_sets.member_ids(db, SMALL)[0])
    [candidate] = review.add_candidates(
        db, [Candidate(chunk, "How many days of annual leave does a new joiner get?", "x")])
    query_id = review.accept(db, candidate, "carol")
    assert db.conn.execute("SELECT count(*) FROM judgments WHERE query_id = ? AND chunk_id = ?",
                           [query_id, chunk]).fetchone()[0] == 1  # labeled, in chunk set small
    age = run_freshness.run_age(db, "bm25")
    assert not age.stale and age.label() == "bm25"
    assert query_id not in scoring.per_query(db, Controls("bm25")).index
    # A run of chunk set small that has no result for the question is older than it.
    importers.import_run(db, write_run(Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
                                       .with_name("s.trec"), [("q01", chunk, 1, 1.0)]), "s")
    assert chunk_sets.run_chunk_set(db, "s") == SMALL
    with store.write_transaction(db) as conn:  # the run predates the question
        conn.execute("UPDATE runs SET newest_query_seq = (SELECT max(seq) FROM query_arrivals"
                     " WHERE query_id <> ?) WHERE name = 's'", [query_id])
    assert run_freshness.run_age(db, "s").newer == 1
