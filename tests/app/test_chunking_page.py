"""Chunking page: import a new chunk set, carry the labels over, read the transfer report, judge
a suggestion (the old grade shows only afterwards), compare the two chunk sets' scorecards."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from streamlit.testing.v1 import AppTest

from labeling import readable_times
from labeling.evaluation.inputs import result_cache
from labeling.files import importers
from labeling.rechunking import report, splitter, transfer
from labeling.workspace import chunk_sets, judgments, store
from tests import hostile
from tests.app.test_hostile_text import Walk
from tests.markup import shown
from tests.tables import table_with, time_tables

NEW_SET = "windows"


def window_chunks(workspace: Path) -> bytes:
    """The demo's documents cut into 600-character word windows, whitespace collapsed and no
    offsets: a chunking that cuts through sections, as a team's new pipeline might."""
    db = store.open_workspace(workspace, create=False)
    rows = []
    for doc_id, text in db.conn.execute("SELECT id, text FROM documents ORDER BY id"):
        for n, (start, end) in enumerate(splitter.split_spans(text, 600, 60, (" ",)), 1):
            rows.append({"id": f"w:{doc_id}:{n}", "doc_id": doc_id,
                         "text": " ".join(text[start:end].split())})
    db.close()
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def table(at: AppTest, *columns: str):
    """The first table shown with all of ``columns`` (tables carry no key in AppTest)."""
    return table_with(at, *columns)


def texts(at: AppTest) -> str:
    return " ".join(shown(m.value) for m in at.markdown)


def test_import_transfer_report_judge_and_compare(workspace: Path, open_app) -> None:
    result_cache.clear_cache()
    started = datetime.now(UTC)
    at = open_app("chunking")
    assert not at.exception
    assert table(at, "name", "splitter")["name"].tolist() == ["sections"]
    sets = time_tables(at)["chunk_sets_table"]  # its time shows the exact time on hover
    assert [c["name"] for c in sets["columns"]][-1] == "created_at"  # no exact-time column
    made = chunk_sets.get_chunk_set(store.open_workspace(workspace), "sections").created_at
    assert sets["rows"][0][-1]["title"] == readable_times.exact(made)
    read_at = (started, datetime.now(UTC))  # it reads relative to the render's time
    assert sets["rows"][0][-1]["text"] in {readable_times.readable(made, now=t) for t in read_at}

    # Import a new chunk set (no offsets: located in the documents).
    data = window_chunks(workspace)
    at.file_uploader(key="chunking_set_0").set_value(("windows.jsonl", data, "text/plain"))
    at.text_input(key="chunk_set_name").input(NEW_SET)
    at.text_input(key="chunk_set_size").input("600")
    at.button(key="import_chunk_set").click().run()
    assert not at.exception and not at.error
    assert "windows.jsonl" in shown(at.success[0].value)
    sets = table(at, "name", "splitter").set_index("name")
    assert sets.loc[NEW_SET, "chunks"] == data.count(b"\n") and sets.loc[NEW_SET, "size"] == 600

    # Carry the labels over and read the report.
    at.selectbox(key="transfer_from").set_value("sections")
    at.selectbox(key="transfer_to").set_value(NEW_SET)
    at.button(key="transfer").click().run()
    assert not at.exception and not at.error
    db = store.open_workspace(workspace, create=False)
    card = report.transfer_report(db, "sections", NEW_SET, segment="source")
    assert card.suggestions > 0 and card.labels > 0
    sentence = texts(at)
    assert f"Of the {card.judgments} current judgments of 'sections'" in sentence
    assert f"{card.outcomes['carried']} carried over to 'windows'" in sentence
    by_grade = table(at, "grade", "carried")
    assert by_grade["total"].sum() == card.judgments == 612
    assert by_grade.set_index("grade").loc[3, "carried"] == card.by_grade.set_index(
        "grade").loc[3, "carried"]
    listed = table(at, "source_chunk", "share_of_judged")
    assert len(listed) == card.labels and listed["annotator"].str.endswith(" via sections").all()
    at.selectbox(key="report_segment").set_value("topic").run()
    segments = table(at, "segment", "carried")
    assert set(segments["segment"]) == {"hr", "it", "security", "product"}

    # Judge a suggestion: its old grades are hidden until then.
    at.session_state["annotator"] = "dana"
    at.run()
    assert "graded" not in texts(at)
    shown_query = next(m for m in at.markdown if shown(m.value).startswith("Query:"))
    at.button(key="suggest_grade_2").click().run()
    assert not at.exception and not at.error
    revealed = texts(at)
    assert "dana" not in revealed and "graded" in revealed and "of that text is in this chunk" \
        in revealed
    judged = db.conn.execute(
        "SELECT query_id, chunk_id, grade, origin FROM judgments WHERE annotator = 'dana'"
    ).fetchall()
    assert len(judged) == 1 and judged[0][2:] == (2, "person")
    query_text = db.conn.execute("SELECT text FROM queries WHERE id = ?",
                                 [judged[0][0]]).fetchone()[0]
    assert query_text in shown(shown_query.value)
    assert report.transfer_report(db, "sections", NEW_SET).suggestions_judged == 1

    # Compare the two chunk sets' scorecards: a BM25 run on the new set first.
    at.selectbox(key="baseline_set").set_value(NEW_SET)
    at.text_input(key="baseline_name").input("bm25-windows")
    at.button(key="make_baseline").click().run()
    assert not at.exception and not at.error
    at.selectbox(key="compare_old").set_value("bm25")
    at.selectbox(key="compare_new").set_value("bm25-windows").run()
    side = table(at, "old_low", "new_high").set_index("measure")
    assert list(side.index) == ["R@10", "nDCG@10", "RR"]
    assert (side["n"] == len(card.carried_queries)).all() and (side["n"] > 40).all()
    assert side[["old", "new"]].notna().all().all()
    # The versioning fields of a run are first-class: name its embedding model.
    at.selectbox(key="version_run").set_value("bm25").run()
    at.text_input(key="version_embedding_model_bm25").input("none (lexical)")
    at.button(key="save_run_version").click().run()
    assert not at.exception and not at.error
    runs = table(at, "name", "embedding_model").set_index("name")
    assert runs.loc["bm25", "embedding_model"] == "none (lexical)"
    assert runs.loc["bm25", "chunk_set"] == "sections"
    assert runs.loc["bm25-windows", "chunk_set"] == NEW_SET
    footing = table(at, "unit", "measure")
    assert set(footing["unit"]) == {"document", "span"}
    assert {"bm25", "bm25-windows"} <= set(footing.columns)
    db.close()


def test_an_unplaceable_chunk_is_named_and_nothing_is_imported(workspace: Path,
                                                             open_app) -> None:
    at = open_app("chunking")
    rows = [{"id": "fine", "doc_id": "leave", "text": "The leave year runs"},
            {"id": "made-up", "doc_id": "leave", "text": "Unlimited leave for everyone."}]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    at.file_uploader(key="chunking_set_0").set_value(("new.jsonl", data, "text/plain"))
    at.text_input(key="chunk_set_name").input("broken")
    at.button(key="import_chunk_set").click().run()
    assert not at.exception
    message = shown(at.error[0].value)
    assert "new.jsonl, line 2" in message and "'made-up'" in message
    assert "/tmp" not in message
    assert table(at, "name", "splitter")["name"].tolist() == ["sections"]
    assert at.file_uploader(key="chunking_set_0").value is not None  # kept for a retry


def test_hostile_names_and_texts_stay_text(workspace: Path, open_app) -> None:
    """Chunk set names, document titles, queries, chunks, annotators and grade names full of
    markup: the report, the suggestion card and the old grades it reveals render no link,
    image or HTML."""
    db = store.open_workspace(workspace, create=False)
    hostile.seed(db)
    doc = f"{hostile.CHUNKS[0]}-doc"
    text = "\n\n".join([hostile.TEXT] * 3)
    folder = workspace.parent
    (folder / "d.jsonl").write_text(json.dumps({"id": doc, "title": hostile.SHORT,
                                                "text": text}) + "\n")
    importers.import_documents(db, folder / "d.jsonl")
    (folder / "old.jsonl").write_text("".join(json.dumps({"id": c, "doc_id": doc}) + "\n"
                                              for c in hostile.CHUNKS))
    importers.import_chunk_set(db, folder / "old.jsonl", hostile.LINK, splitter=hostile.TEXT)
    cut = len(hostile.TEXT) + 2 + len(hostile.TEXT) // 2
    cut = text.rindex(" ", 0, cut)
    (folder / "new.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "n1", "doc_id": doc, "text": text[:cut]},
        {"id": "n2", "doc_id": doc, "text": text[cut:].strip()}]))
    importers.import_chunk_set(db, folder / "new.jsonl", hostile.IMAGE)
    # The tail is found at its first occurrence: n2 starts at 109, inside the first chunk,
    # whose answer straddles that start (its pair goes to an expert); the second chunk, which
    # n2 holds whole, is judged not relevant now.
    assert db.conn.execute("SELECT start FROM chunk_spans WHERE chunk_id = 'n2'").fetchone() == (
        109,)
    judgments.add_judgment(db, hostile.QUERY, hostile.CHUNKS[0], 3, hostile.ANNOTATORS[1],
                           evidence=[(100, 120)])
    judgments.add_judgment(db, hostile.QUERY, hostile.CHUNKS[1], 0, hostile.ANNOTATORS[2])
    queue_before = db.conn.execute("SELECT count(*) FROM label_queue").fetchone()[0]
    result = transfer.transfer_labels(db, hostile.LINK, hostile.IMAGE, by=hostile.ANNOTATORS[0])
    assert result.suggestions == 1 and result.labels > 0
    assert db.conn.execute("SELECT count(*) FROM label_queue").fetchone()[0] == queue_before + 1
    db.close()

    at = open_app()
    at.session_state["annotator"] = hostile.ANNOTATORS[2]
    walk = Walk(at)
    walk.page("chunking")
    at.selectbox(key="report_segment").set_value(hostile.ATTRIBUTE)
    walk.run("chunking: by a hostile segment")
    assert any(b.key == "suggest_grade_1" for b in at.button)
    at.button(key="suggest_grade_1").click()
    walk.run("chunking: judged")
    assert not walk.problems, walk.problems
    assert walk.shows_hostile("chunking") and walk.shows_hostile("chunking: judged")
    assert any("graded" in t and hostile.EVIL in t for t in walk.shown["chunking: judged"])
