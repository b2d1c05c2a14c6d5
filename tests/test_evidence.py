"""Evidence spans: stored with a judgment and its history, checked against the chunk and its
document, imported from and exported to JSON lines exactly."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from labeling.errors import InputError
from labeling.files import importers
from labeling.workspace import judgments

INTRO = "Backups run nightly at 02:00 and keep fourteen copies."
RESTORE = ("To restore a file, run restore --from DATE PATH. The restore asks before it "
           "overwrites anything. Restores of whole disks need an administrator. Restored files "
           "keep their original owner and permissions. A restore of more than a thousand files "
           "runs in the background and mails its owner when done.")
OTHER = ("Printers on the third floor are serviced on Mondays; paper and toner are in the "
         "cupboard beside the kitchen, and a broken printer is reported to the facilities desk "
         "with its asset number, which is printed on a label at the back of the machine, next "
         "to the power switch.")
DOC = f"{INTRO}\n\n{RESTORE}\n\n{OTHER}\n"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def span_of(piece: str) -> tuple[int, int]:
    return DOC.index(piece), DOC.index(piece) + len(piece)


@pytest.fixture
def placed(make_workspace, tmp_path):
    """Document ``d`` in two chunks ``intro`` and ``restore`` (chunk set ``paragraphs``)."""
    db = make_workspace(queries=[{"id": "q1", "text": "how do I restore a file", "split": "dev"}])
    importers.import_documents(db, write_jsonl(tmp_path / "d.jsonl", [{"id": "d", "text": DOC}]))
    importers.import_chunk_set(db, write_jsonl(tmp_path / "c.jsonl", [
        {"id": "intro", "doc_id": "d", "text": INTRO},
        {"id": "restore", "doc_id": "d", "text": RESTORE},
        {"id": "other", "doc_id": "d", "text": OTHER}]), "paragraphs")
    return db


def test_a_judgment_keeps_its_evidence_in_its_history(placed):
    answer = span_of("run restore --from DATE PATH.")
    first = judgments.add_judgment(placed, "q1", "restore", 2, "ana", evidence=[answer])
    second = judgments.add_judgment(placed, "q1", "restore", 1, "ana")
    history = judgments.judgment_history(placed, "q1", "restore")
    assert [(r["id"], r["evidence"]) for r in history] == [(first, [answer]), (second, [])]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        placed.conn.execute("DELETE FROM judgment_evidence")


@pytest.mark.parametrize(("chunk", "grade", "span", "problem"), [
    ("intro", 2, span_of("run restore"), r"outside chunk .intro. \(characters 0-54"),
    ("restore", 2, (len(DOC) - 5, len(DOC) + 3), "outside document 'd'"),
    ("restore", 0, span_of("run restore"), "only a relevant grade"),
    ("restore", 2, (9, 9), "0 <= N < M"),
])
def test_evidence_that_does_not_fit_is_refused_and_nothing_is_saved(
        placed, chunk, grade, span, problem):
    with pytest.raises(InputError, match=problem):
        judgments.add_judgment(placed, "q1", chunk, grade, "ana", evidence=[span])
    assert placed.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0


# ---------------------------------------------------------------------------------------------
# Files: JSON lines in, JSON lines and CSV out


def qrels_rows() -> list[dict]:
    return [
        {"query_id": "q1", "doc_id": "intro", "relevance": 0},
        {"query_id": "q1", "doc_id": "other", "relevance": 0},
        {"query_id": "q1", "doc_id": "restore", "relevance": 2,
         "evidence": [{"start": s, "end": e} for s, e in (
             span_of("run restore --from DATE PATH."),
             span_of("The restore asks before it overwrites anything."))]},
    ]


@pytest.fixture
def placed_file(placed, tmp_path):
    path = Path(placed.conn.execute("PRAGMA database_list").fetchone()[2])
    placed.close()
    return path


def scorecard(*argv) -> int:
    from labeling.commands import cli
    return cli.main([str(a) for a in argv])


def test_jsonl_qrels_with_evidence_round_trip_exactly_through_the_command_line(
        placed_file, tmp_path, capsys):
    source = write_jsonl(tmp_path / "labels.jsonl", qrels_rows())
    assert scorecard("import", placed_file, "qrels", source) == 0
    out = tmp_path / "out.jsonl"
    assert scorecard("export", placed_file, "qrels", out) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == qrels_rows()
    table = tmp_path / "judgments.csv"
    assert scorecard("export", placed_file, "judgments", table) == 0
    import csv
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    assert [json.loads(r["evidence"]) if r["evidence"] else None for r in rows] == [
        None, None, qrels_rows()[2]["evidence"]]


@pytest.mark.parametrize(("line", "bad", "problem"), [
    (3, {"start": 3, "end": 9}, "outside chunk 'restore'"),
    (3, {"start": len(DOC) - 2, "end": len(DOC) + 40}, "outside document 'd'"),
    (3, {"start": 9, "end": 3}, "0 <= N < M"),
    (1, {"start": 3, "end": 9}, "only a relevant grade"),
])
def test_a_span_that_does_not_fit_is_a_line_error_and_nothing_is_written(
        placed_file, tmp_path, capsys, line, bad, problem):
    rows = qrels_rows()
    rows[line - 1]["evidence"] = [bad]
    source = write_jsonl(tmp_path / "labels.jsonl", rows)
    assert scorecard("import", placed_file, "qrels", source) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"labels.jsonl, line {line}:" in err[0] and problem in err[0], err
    conn = sqlite3.connect(placed_file)
    assert conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM judgment_evidence").fetchone()[0] == 0
    conn.close()


# ---------------------------------------------------------------------------------------------
# Transfer: by where the answer is


ANSWER = "run restore --from DATE PATH."
HALF = RESTORE.index("The restore asks")


def new_chunk_set(db, tmp_path, name: str, pieces: dict[str, str]) -> None:
    importers.import_chunk_set(db, write_jsonl(tmp_path / f"{name}.jsonl", [
        {"id": chunk_id, "doc_id": "d", "text": text} for chunk_id, text in pieces.items()]),
        name)


def labels_of(db, to_set: str) -> dict[str, tuple[int, bool, list]]:
    """chunk id -> (grade, inferred, evidence) of the transferred labels."""
    out = {}
    for row in db.query(
            "SELECT j.id, j.chunk_id, j.grade, j.flags FROM judgments j JOIN chunk_set_members m"
            " ON m.chunk_id = j.chunk_id AND m.chunk_set = ? WHERE j.origin = 'transferred'",
            [to_set]):
        spans = judgments.judgment_history(db, "q1", row["chunk_id"])[-1]["evidence"]
        out[row["chunk_id"]] = (row["grade"], bool(json.loads(row["flags"]).get("inferred")),
                                spans)
    return out


def queued(db) -> set[str]:
    return {r[0] for r in db.conn.execute("SELECT chunk_id FROM transfer_suggestions")}


@pytest.fixture
def halves(placed, tmp_path):
    """``restore`` split in two: ``r1`` (its first sentence, the answer) and ``r2``."""
    new_chunk_set(placed, tmp_path, "halves", {
        "i": INTRO, "r1": RESTORE[:HALF].strip(), "r2": RESTORE[HALF:], "o": OTHER})
    return placed


def test_with_evidence_the_piece_holding_it_gets_the_grade_and_the_other_is_not_relevant(halves):
    from labeling.rechunking import report, transfer
    judgments.add_judgment(halves, "q1", "restore", 2, "ana", evidence=[span_of(ANSWER)])
    transfer.transfer_labels(halves, "paragraphs", "halves")
    assert labels_of(halves, "halves") == {"r1": (2, False, [span_of(ANSWER)]),
                                           "r2": (0, False, [])}
    assert not queued(halves)
    card = report.transfer_report(halves, "paragraphs", "halves").to_dict()
    assert card["new_pairs"] == {"exact": 1, "inferred": 0, "review": 0, "not_relevant": 1}
    assert card["invalidated"] == 0


def test_without_evidence_only_the_located_piece_is_labelled_inferred_and_the_rest_queued(
        halves):
    from labeling.rechunking import report, transfer
    judgments.add_judgment(halves, "q1", "restore", 2, "ana")
    transfer.transfer_labels(halves, "paragraphs", "halves")
    # "how do I restore a file": the first sentence matches best, by a margin.
    assert labels_of(halves, "halves") == {"r1": (2, True, [])}
    assert queued(halves) == {"r2"}
    card = report.transfer_report(halves, "paragraphs", "halves")
    assert card.to_dict()["new_pairs"] == {"exact": 0, "inferred": 1, "review": 1,
                                           "not_relevant": 0}
    assert card.inferred_labels == 1
    from labeling.evaluation.scores.inferred_labels import inferred_labels
    from labeling.judging import consensus
    counted = inferred_labels(halves, consensus.consensus_qrels(halves))
    assert (counted.inferred, counted.relevant) == (1, 2)  # and the old chunk's own label
    assert counted.sentence().startswith("1 of the 2 relevant labels are inferred")
    judgments.add_judgment(halves, "q1", "r1", 2, "bo")  # a person judged it: not inferred now
    assert inferred_labels(halves, consensus.consensus_qrels(halves)).inferred == 0
    assert "1 sent to review (about 0.0 hours at 30 s per judgment" in card.headline()


def test_evidence_cut_by_a_new_boundary_goes_to_review(placed, tmp_path):
    from labeling.rechunking import transfer
    cut = RESTORE.index("DATE")
    new_chunk_set(placed, tmp_path, "cut", {"a": RESTORE[:cut].strip(), "b": RESTORE[cut:]})
    judgments.add_judgment(placed, "q1", "restore", 2, "ana", evidence=[span_of(ANSWER)])
    transfer.transfer_labels(placed, "paragraphs", "cut")
    assert labels_of(placed, "cut") == {} and queued(placed) == {"a", "b"}


def test_a_whole_evidence_span_in_a_sliver_is_never_hidden(placed, tmp_path):
    """The end of ``restore`` (under a fifth of it) opens a chunk that is mostly ``other``."""
    from labeling.rechunking import transfer
    tail = RESTORE[RESTORE.index("mails its owner"):]
    new_chunk_set(placed, tmp_path, "shifted", {"head": RESTORE[:-len(tail)].strip(),
                                                "tail": f"{tail}\n\n{OTHER}"})
    assert len(tail) < 0.2 * len(RESTORE) and len(tail) < 0.2 * len(OTHER)
    judgments.add_judgment(placed, "q1", "restore", 2, "ana", evidence=[span_of(tail)])
    transfer.transfer_labels(placed, "paragraphs", "shifted")
    assert labels_of(placed, "shifted") == {"tail": (2, False, [span_of(tail)]),
                                            "head": (0, False, [])}


@pytest.mark.parametrize("with_evidence", [True, False])
def test_an_answer_deleted_in_a_new_version_yields_no_label_and_is_counted(
        placed, tmp_path, with_evidence):
    from labeling.rechunking import report, transfer
    judgments.add_judgment(placed, "q1", "restore", 2, "ana",
                           evidence=[span_of(ANSWER)] if with_evidence else None)
    edited = RESTORE.replace(" run restore --from DATE PATH.", " ask the service desk.")
    importers.import_documents(placed, write_jsonl(tmp_path / "v2.jsonl", [
        {"id": "d", "text": f"{INTRO}\n\n{edited}\n\n{OTHER}\n"}]))
    new_chunk_set(placed, tmp_path, "v2", {"v2i": INTRO, "v2r": edited, "v2o": OTHER})
    result = transfer.transfer_labels(placed, "paragraphs", "v2")
    assert all(grade == 0 for grade, _, _ in labels_of(placed, "v2").values())
    card = report.transfer_report(placed, "paragraphs", "v2")
    assert result.invalidated == card.invalidated == 1 and card.invalidated_queries == ["q1"]
    assert card.outcomes["lost"] == 1 and "1 were lost" in card.sentence()
    assert "1 old judgments were invalidated" in card.headline()


# ---------------------------------------------------------------------------------------------
# On screen: sentences to pick from, marks in the chunk text


def test_picked_sentences_become_the_evidence_of_the_judgment_just_saved(placed):
    from labeling.evidence_marks import current_evidence, placed_chunk
    from labeling.workspace.evidence import attach_evidence
    chunk = placed_chunk(placed, "restore")
    sentences = chunk.sentences()
    assert [DOC[a:b] for a, b in sentences[:2]] == [
        "To restore a file, run restore --from DATE PATH.",
        "The restore asks before it overwrites anything."]
    saved = judgments.add_judgment(placed, "q1", "restore", 2, "ana")
    with pytest.raises(InputError, match="your own judgment"):
        attach_evidence(placed, saved, [sentences[0]], "bo")
    attach_evidence(placed, saved, [sentences[0]], "ana")
    assert current_evidence(placed, "q1", "restore") == [sentences[0]]
    with pytest.raises(InputError, match="already has its evidence"):
        attach_evidence(placed, saved, [sentences[1]], "ana")
    # Marks in the stored text, also when the stored text collapsed the whitespace.
    assert [(m.start, m.end) for m in chunk.marks([sentences[0]])] == [
        (0, len("To restore a file, run restore --from DATE PATH."))]
    from dataclasses import replace
    squeezed = replace(chunk, text="   " + chunk.text.replace(" ", "  "))
    mark = squeezed.marks([sentences[0]])[0]
    assert " ".join(squeezed.text[mark.start:mark.end].split()) == DOC[slice(*sentences[0])]
