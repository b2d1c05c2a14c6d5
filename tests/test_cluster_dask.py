"""The Dask path on a local cluster (two worker processes, started once for the module) equals
the single-machine engine per query and in the means, on adversarial parts; a worker killed in
the middle of a job is replaced and the result is still exact; the command line and the
import of its values back into a workspace."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from cluster_data import (
    MEASURES,
    adversarial,
    assert_command_json,
    assert_same_as_the_engine,
    write_parts,
    write_qrels,
)
from fifo_fault import with_one_part_killed

from labeling.cluster.dask_engine import evaluate_on_dask, local_client
from labeling.cluster.parts import list_parts, read_labels
from labeling.commands.cli import main
from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.evaluation.views import drilldown

pytestmark = pytest.mark.slow  # starts a local Dask cluster (processes)


@pytest.fixture(scope="module")
def client():
    client = local_client(workers=2)
    yield client
    cluster = client.cluster
    client.close()
    cluster.close()


@pytest.mark.parametrize("kind", ["parquet", "trec"])
def test_parts_scored_on_dask_equal_the_engine(client, tmp_path, kind):
    qrels, run = adversarial(seed=3)
    folder = write_parts(run, tmp_path / kind, parts=5, kind=kind)
    if kind == "parquet":  # labels read by the workers, a partition per row group
        labels = [tmp_path / "qrels.parquet"]
        qrels.to_parquet(labels[0], index=False, row_group_size=40)
    else:
        labels = read_labels(write_qrels(qrels, tmp_path / "qrels.txt"))
    result = evaluate_on_dask(labels, list_parts(folder, "run"), MEASURES, client=client,
                              partitions=3)
    assert_same_as_the_engine(result, qrels, run)
    assert result.engine == "dask" and result.partitions == 3


def test_policies_on_dask(client, tmp_path):
    qrels, run = adversarial(seed=4)
    folder = write_parts(run, tmp_path / "p", parts=4, kind="parquet")
    parts = list_parts(folder, "run")
    for options in ({"judged_only": True}, {"missing": "skip"}):
        result = evaluate_on_dask(qrels, parts, MEASURES, client=client, **options)
        assert_same_as_the_engine(result, qrels, run, **options)


def test_a_worker_killed_mid_job_is_replaced_and_the_result_is_exact(client, tmp_path):
    qrels, run = adversarial(seed=5)
    folder = write_parts(run, tmp_path / "t", parts=4, kind="trec")
    result = with_one_part_killed(folder / "part-001.trec", lambda: evaluate_on_dask(
        qrels, list_parts(folder, "run"), MEASURES, client=client))
    assert_same_as_the_engine(result, qrels, run)


def test_command_line_and_import_back_for_the_drill_down(client, tmp_path, capsys,
                                                          make_workspace):
    qrels, run = adversarial(seed=6)
    folder = write_parts(run, tmp_path / "run", parts=3, kind="parquet")
    labels = write_qrels(qrels, tmp_path / "qrels.txt")
    address = client.scheduler.address
    values_file, top = tmp_path / "values.parquet", tmp_path / "top"
    status = main(["evaluate", "--engine", "dask", "--scheduler", address, str(labels),
                   str(folder), "-m", "nDCG@10", "-m", "RR", "--format", "json", "--per-query",
                   "--per-query-out", str(values_file), "--top-out", str(top), "--top-k", "5"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    values = assert_command_json(out, qrels, run, ["nDCG@10", "RR"])

    path = make_workspace.path()
    assert main(["import", str(path), "values", str(values_file), "--run-name", "huge",
                 "--top", str(top)]) == 0
    from labeling.workspace.store import open_workspace

    db = open_workspace(path)
    result_cache.clear_cache()
    controls = Controls("huge", measures=("nDCG@10", "RR"))
    shown = scoring.per_query(db, controls)
    pd.testing.assert_frame_equal(shown.sort_index(), values[["nDCG@10", "RR"]],
                                  check_exact=False, rtol=0, atol=1e-12, check_names=False,
                                  check_index_type=False)
    assert "Scored outside the workspace by dask" in scoring.values_note(db, "huge")
    count = scoring.query_count(db, controls)  # answered: the queries with top rows
    assert (count.evaluated, count.returned_nothing) == (len(values), out["returned_nothing"])
    query = str(values.index[0])
    ranked, _ = drilldown.drill_down(db, controls, query)
    mine = run.loc[run["query_id"] == query].sort_values(["score", "doc_id"],
                                                        ascending=[False, False])
    assert ranked["chunk_id"].tolist() == mine["doc_id"].head(5).tolist()
    with pytest.raises(Exception, match="not among them"):
        scoring.per_query(db, Controls("huge", measures=("P@5",)))
