"""Issue 26 case 11: the Overview's "Judgments" count says what it is made of (people's,
machine, transferred), and its "Chunks" count which chunk sets, on the demo re-chunked."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from labeling.workspace import store
from tests.app.conftest import APP, TIMEOUT
from tests.workspaces import rechunk


def test_the_judgments_count_names_its_origins(make_workspace, monkeypatch) -> None:
    path = make_workspace.path("demo")
    db = store.open_workspace(path, create=False)
    try:
        rechunk(db)
        origins = dict(db.conn.execute("SELECT origin, count(*) FROM judgments GROUP BY origin"))
        per_set = dict(db.conn.execute(
            "SELECT chunk_set, count(*) FROM chunk_set_members GROUP BY chunk_set"))
    finally:
        db.close()
    assert set(origins) == {"person", "transferred"}
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    shown = next(m for m in at.metric if m.label == "Judgments").value
    assert shown == f"{sum(origins.values()):,}"
    note = next(c.value.replace("\\", "") for c in at.caption if c.value.startswith("Judgments"))
    assert (f"{origins['person']:,} by people, {origins['transferred']:,} transferred from "
            "another chunk set") in note
    chunks = next(c.value.replace("\\", "") for c in at.caption if c.value.startswith("Chunks"))
    assert f"by chunk set: sections {per_set['sections']:,}, small {per_set['small']:,}" in chunks
