"""What a judge sees around a pair: the query's narrative (imported, edited, on the card), the
chunk's neighbours in its document, the workspace guideline, and where the session stands."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from labeling.errors import InputError
from labeling.evaluation.inputs import locked_splits
from labeling.files import importers
from labeling.judging import guideline, queue, standing
from labeling.workspace import contents, judgments, query_store, roles

CHUNKS = [
    {"id": "leave-02", "title": "Leave: carry-over", "text": "Up to 5 days carry over.",
     "doc_id": "leave"},
    {"id": "leave-01", "title": "Leave: entitlement", "text": "26 days a year.", "doc_id": "leave"},
    {"id": "leave-03", "title": "Leave: sick days", "text": "Tell your manager.",
     "doc_id": "leave"},
    {"id": "lone", "title": "Alone", "text": "No document."},
]


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=CHUNKS, queries=[
        {"id": "q1", "text": "carry over leave", "narrative": "  Wants the rule for unused days. "},
        {"id": "q2", "text": "sick leave", "split": "test"},
    ])


def test_narratives_come_from_a_column_and_show_on_the_card(db, tmp_path: Path):
    assert query_store.narrative(db, "q1") == "Wants the rule for unused days."
    assert query_store.narrative(db, "q2") is None
    assert "narrative" not in query_store.attribute_names(db)  # not a segment attribute
    assert queue.card_for(db, "q1", "leave-01").narrative == "Wants the rule for unused days."
    path = tmp_path / "queries.csv"
    path.write_text("id,text,topic\nq1,carry over leave,hr\n")  # no narrative column: kept
    importers.import_queries(db, path)
    assert query_store.narrative(db, "q1") == "Wants the rule for unused days."
    path.write_text("id,text,description\nq2,sick leave,Needs who to tell and when.\n")
    importers.import_queries(db, path)
    assert query_store.narrative(db, "q2") == "Needs who to tell and when."
    beir = tmp_path / "queries.jsonl"
    beir.write_text('{"_id": "q3", "text": "x", "metadata": {"narrative": "From BEIR."}}\n')
    importers.import_queries(db, beir)
    assert query_store.narrative(db, "q3") == "From BEIR."
    with pytest.raises(InputError, match="narrative"):
        query_store.add_query(db, "y", attributes={"narrative": "no"})


def test_narratives_are_edited_on_the_queries_table_even_in_a_locked_split(db):
    locked_splits.lock_split(db, "owner", rule="default")
    table = query_store.queries_table(db)
    table["narrative"] = ["Rule for unused days, per country.", "Who to tell."]
    assert query_store.update_queries(db, table) == 2
    assert query_store.narrative(db, "q2") == "Who to tell."
    table.loc[1, "narrative"] = "  "
    assert query_store.update_queries(db, table) == 1
    assert query_store.narrative(db, "q2") is None
    table.loc[1, "source"] = "synthetic"  # but the locked query's source stays frozen
    with pytest.raises(InputError, match="locked"):
        query_store.update_queries(db, table)


def test_neighbours_follow_the_document_in_import_order(db):
    middle = contents.neighbours(db, "leave-01")
    assert (middle.doc_id, middle.position, middle.chunks) == ("leave", 2, 3)
    assert middle.title == "Leave: carry-over"  # the document's first chunk's title
    assert [c[0] for c in middle.before] == ["leave-02"]
    assert [c[0] for c in middle.after] == ["leave-03"]
    assert middle.after[0][2] == "Tell your manager."
    first = contents.neighbours(db, "leave-02", around=5)
    assert first.before == [] and [c[0] for c in first.after] == ["leave-01", "leave-03"]
    alone = contents.neighbours(db, "lone")
    assert (alone.doc_id, alone.chunks, alone.before, alone.after) == ("", 1, [], [])


def test_the_guideline_is_written_by_admins(db, make_workspace, fast_hashes):
    assert guideline.guideline(db) == ""
    guideline.set_guideline(db, "# Relevant\n\n| grade | when |\n|---|---|\n| 3 | all |", by="ada")
    assert guideline.guideline(db).startswith("# Relevant")
    assert guideline.saved_by(db).startswith("ada · ")
    with roles.acting_as(None):
        from labeling.workspace import accounts
        accounts.add_user(db, "ada", "admin", "ada-password-1")
        accounts.add_user(db, "bob", "annotator", "bob-password-1")
    with roles.acting_as("bob"), pytest.raises(roles.AccessDenied, match="judging guideline"):
        guideline.set_guideline(db, "mine now", by="bob")
    with roles.acting_as("ada"):
        guideline.set_guideline(db, "  ", by="ada")
    assert guideline.guideline(db) == ""


def _at(start: datetime, seconds: float) -> str:
    return (start + timedelta(seconds=seconds)).isoformat()


def test_standing_counts_corrections_disputes_and_the_hours_left(db):
    start = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    pairs = [("q1", "leave-01"), ("q1", "leave-02"), ("q1", "leave-03"), ("q2", "leave-03")]
    queue.set_overlap_share(db, 0.0)  # every queued pair needs one person
    queue.enqueue_pairs(db, pairs + [("q2", "leave-01"), ("q2", "lone")], reason="test")
    for i, (pair, grade) in enumerate(zip(pairs, [1, 2, 3, 0], strict=True)):
        judgments.add_judgment(db, *pair, grade, "ana", created_at=_at(start, 20 * i))
    judgments.add_judgment(db, *pairs[0], 2, "ana", created_at=_at(start, 70))  # her correction
    judgments.add_judgment(db, *pairs[1], 2, "bob", created_at=_at(start, 80))  # agrees
    judgments.add_judgment(db, *pairs[2], 1, "bob", created_at=_at(start, 90))  # disputes
    judgments.add_judgment(db, *pairs[3], 1, "lead", flags={"adjudicated": True},
                           created_at=_at(start, 100))  # overrules her 0
    judgments.add_judgment(db, *pairs[3], 3, "gold", origin="import", created_at=_at(start, 110))
    mine = standing.person_standing(db, "ana")
    assert (mine.pairs, mine.corrected, mine.disputed) == (4, 2, 1)
    assert mine.corrected_share == 0.5 and mine.disputed_share == 0.25
    assert mine.pace.seconds_per_card == 20.0 and mine.pace.judgments == 5
    assert mine.pace.per_hour == pytest.approx(5 / (70 / 3600))
    team = standing.team_standing(db)
    assert (team.open_pairs, team.votes_needed) == (2, 2)  # q2's other two pairs
    assert team.measured and team.seconds_per_card == 20.0  # ana's 20, 20, 20, 10; bob's 10
    assert team.hours_left == pytest.approx(2 * team.seconds_per_card / 3600)
    nobody = standing.person_standing(db, "zoe")
    assert (nobody.pairs, nobody.pace, nobody.corrected_share) == (0, None, None)
