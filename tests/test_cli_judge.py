"""``scorecard judge DB ...`` end to end on a copy of the demo, against a local chat server: a
batch, the cache on a second run, an audit, the estimates, agreement, and a report that names
its label source."""

from __future__ import annotations

import json

import pytest

from labeling.commands import LABEL_SOURCES
from labeling.commands.cli import main
from labeling.judging import label_sources, queue
from labeling.machine_judging import audit_sample
from labeling.workspace.store import open_workspace
from tests.chat_server import ChatServer
from tests.markup import shown


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


def test_label_source_choices_match_the_library():
    assert LABEL_SOURCES == tuple(label_sources.LABEL_SOURCES)


@pytest.mark.slow  # a whole judge, audit, estimate and report session: seconds
def test_judge_audit_estimate_and_report(make_workspace, server, capsys, tmp_path):
    path = make_workspace.path("demo")
    base = ["judge", str(path)]
    server_options = ["--base-url", server.url, "--model", "tiny"]
    assert main([*base, "run", *server_options, "--runs", "bm25,fusion", "--plan"]) == 0
    out = capsys.readouterr().out
    assert "tiny@v2: 405 pairs (top 10 of bm25, fusion); 0 cached" in out and server.requests == []
    assert main([*base, "run", *server_options, "--runs", "bm25,fusion"]) == 0
    out = capsys.readouterr().out
    assert "405 pair(s) labeled (0 from the cache" in out and len(server.requests) == 405
    assert main([*base, "run", *server_options, "--runs", "bm25,fusion"]) == 0
    out = capsys.readouterr().out
    assert "405 from the cache, 405 unchanged" in out and len(server.requests) == 405
    assert main([*base, "batches"]) == 0
    assert "top 10 of bm25, fusion" in capsys.readouterr().out

    # The demo's people have labeled most of these pairs: 25 are the machine's alone.
    assert main([*base, "audit", "--judge", "tiny@v2", "--budget", "10", "--runs",
                 "bm25,fusion", "--segment", "topic"]) == 0
    assert "10 pair(s) to verify among 25 machine-only pair(s)" in capsys.readouterr().out
    db = open_workspace(path, create=False)
    pairs = audit_sample.sample_pairs(db, 1)
    for row in pairs.loc[pairs["sampled"] & ~pairs["known"]].itertuples():
        queue.save_judgment(db, row.query_id, row.chunk_id,
                            max(0, int(row.machine_grade) - 1), "carol")
    db.close()

    assert main([*base, "estimate", "--sample", "1", "--run", "bm25", "-m", "P@10",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["estimate"] for r in rows} == {"people only", "machine only", "prediction-powered"}
    assert main([*base, "estimate", "--sample", "1", "--run", "fusion", "--baseline", "bm25",
                 "-m", "nDCG@10", "--segment", "topic"]) == 0
    out = capsys.readouterr().out
    assert "prediction-powered: 95% interval for the mean over all queries like these, " \
        "correcting for the judge's error." in out
    assert "machine only: 95% interval — sampling of queries only, ignores the judge's " \
        "error." in out
    assert "worth (human labels): how many audited people's labels" in out
    header, first = out.splitlines()[:2]
    worth = first.split()[-1]  # the last column: rounded to a whole number of labels
    assert header.split()[-3:] == ["worth", "(human", "labels)"]
    assert worth == "n/a" or worth.isdigit()

    assert main([*base, "agreement", "--judge", "tiny@v2", "--runs", "bm25,bm25-title,fusion",
                 "-m", "P@10"]) == 0
    out = capsys.readouterr().out
    assert "tiny@v2 against people on" in out and "Kendall tau of the run rankings" in out

    card = tmp_path / "card.md"
    assert main(["report", str(path), "--run", "bm25", "--out", str(card),
                 "--label-source", "people+machine", "--judge", "tiny@v2"]) == 0
    assert "labels: people, with a machine judge's label" in capsys.readouterr().out
    text = shown(card.read_text(encoding="utf-8"))
    assert "Labels: people, with a machine judge's label where no person has judged the pair" \
        in text
    assert "audit sample 1:" in text and "pairs verified by people" in text
    assert "kappa" in text
    data = tmp_path / "card.json"
    assert main(["report", str(path), "--run", "bm25", "--out", str(data),
                 "--label-source", "machine", "--judge", "tiny@v2"]) == 0
    card_data = json.loads(data.read_text(encoding="utf-8"))
    assert (card_data["label_source"], card_data["judge"]) == ("machine", "tiny@v2")
    [assisting] = card_data["machine_assistance"]
    assert assisting["audit"] == {"id": 1, "drawn": 10, "judged": 10}  # the size asked
    assert assisting["pairs_compared"] > 300 and -1 <= assisting["kappa"] <= 1
    assert "--label-source machine --judge tiny@v2" in card_data["gate_example"]
    # Issue 30 (6): a report on machine labels leads with the corrected estimate.
    corrected = card_data["corrected"]
    assert (corrected["audit_sample"], corrected["pairs_audited"]) == (1, 10)
    assert {r["measure"] for r in corrected["estimates"]} >= {"R@10"}
    assert all(0 <= r["ci_low"] <= r["mean"] <= r["ci_high"] <= 1
               for r in corrected["estimates"])
    card = tmp_path / "machine.md"
    assert main(["report", str(path), "--run", "bm25", "--out", str(card),
                 "--label-source", "machine", "--judge", "tiny@v2"]) == 0
    assert "people audited 10 of the 10 pairs drawn" in capsys.readouterr().out
    text = shown(card.read_text(encoding="utf-8"))
    assert text.startswith("Retrieval scorecard: bm25Corrected by the audit of tiny@v2 "
                           "(audit sample 1: people audited 10 of the 10 pairs drawn): R@10 ")
    headline = text.index("correcting for the judge's error")
    assert text.index("95% interval for the mean over all queries like these") < headline
    assert headline < text.index("ignore the judge's error") < text.index("bm25 on ")
    assert "no record" not in text  # the batch recorded where its pairs came from


def test_errors_are_one_sentence(make_workspace, capsys, monkeypatch):
    path = make_workspace.path("demo")
    monkeypatch.delenv("SCORECARD_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("SCORECARD_LLM_MODEL", raising=False)
    assert main(["judge", str(path), "run", "--runs", "bm25"]) == 2
    assert "name the model with --model or SCORECARD_LLM_MODEL" in capsys.readouterr().err
    assert main(["judge", str(path), "run", "--model", "m", "--runs", "bm25"]) == 2
    assert "name the server with --connection, --base-url" in capsys.readouterr().err
    assert main(["judge", str(path), "audit", "--judge", "none@v1", "--budget", "5",
                 "--runs", "bm25"]) == 2
    assert "no labels to audit" in capsys.readouterr().err


def test_the_pair_set_options(make_workspace, capsys):
    from labeling.machine_judging import machine_pairs

    path = make_workspace.path("demo")
    assert main(["judge", str(path), "run", "--base-url", "http://127.0.0.1:1/v1", "--model",
                 "m", "--runs", "bm25", "--k", "20", "--unjudged", "--segment", "topic=hr,it",
                 "--plan"]) == 0
    db = open_workspace(path, create=False)
    pairs, said = machine_pairs.pair_set(db, "unjudged", ["bm25"], 20,
                                         segment=("topic", ["hr", "it"]))
    db.close()
    assert said == "unjudged top 20 of bm25, topic in hr, it" and pairs
    assert f"m@v2: {len(pairs)} pairs ({said})" in capsys.readouterr().out
    assert main(["judge", str(path), "run", "--model", "m", "--runs", "bm25", "--segment",
                 "topic"]) == 2
    assert "--segment is ATTRIBUTE=VALUE" in capsys.readouterr().err
