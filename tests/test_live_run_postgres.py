"""A live run against a real PostgreSQL server started on loopback (issue 31, Done-when 1): the
demo's chunks in a table, the ``postgres_fts`` preset's run equals the ranking psycopg returns
for the same full-text query, it is stored as a run and scored."""

from __future__ import annotations

import os

import psycopg
import pytest

from labeling.commands.cli import main
from labeling.files.live_runs import live_run
from labeling.judging.consensus import run_frame
from labeling.workspace import connections
from tests.postgres_server import PostgresServer, binaries

# In CI (.ci/run installs PostgreSQL) a missing server fails the test instead of skipping it.
pytestmark = pytest.mark.skipif(binaries() is None and not os.environ.get("CI"),
                                reason="PostgreSQL is not installed here (.ci/run installs it)")

OWN_QUERY = """
SELECT id, ts_rank(to_tsvector('english', text), websearch_to_tsquery('english', %s))::float8
FROM chunks WHERE to_tsvector('english', text) @@ websearch_to_tsquery('english', %s)
ORDER BY 2 DESC, id LIMIT %s
"""


@pytest.fixture(scope="module")
def postgres():
    server = PostgresServer()
    yield server
    server.close()


@pytest.fixture
def demo(make_workspace, postgres):
    db = make_workspace("demo")
    chunks = db.conn.execute("SELECT id, coalesce(text, '') FROM chunks WHERE placeholder = 0"
                             ).fetchall()
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS chunks")
        conn.execute("CREATE TABLE chunks (id text PRIMARY KEY, text text NOT NULL)")
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO chunks VALUES (%s, %s)", chunks)
    return db


def test_a_live_run_equals_postgres_own_ranking_and_is_scored(demo, postgres, capsys):
    connection = connections.save_connection(demo, connections.POSTGRES, "pg", postgres.url,
                                             "", "", 10_000, options={})
    result = live_run(demo, connection, "pg-fts", k=10, threads=2)
    assert not result.incomplete and result.unknown_hits == 0
    run = run_frame(demo, "pg-fts")
    queries = demo.conn.execute("SELECT id, text FROM queries WHERE placeholder = 0").fetchall()
    answered = 0
    with psycopg.connect(postgres.url) as conn:
        for query_id, text in queries:
            own = conn.execute(OWN_QUERY, [text, text, 10]).fetchall()
            got = run[run["query_id"] == query_id]
            assert list(zip(got["doc_id"], got["score"], strict=True)) == own, query_id
            answered += bool(own)
    assert answered >= 10  # the comparison is not between empty lists (all words must match)
    path = demo.conn.execute("PRAGMA database_list").fetchone()[2]
    assert main(["evaluate", "--db", path, "--run", "pg-fts", "-m", "nDCG@10"]) == 0
    assert "nDCG@10" in capsys.readouterr().out


def test_hostile_query_text_is_a_parameter_not_sql(demo, postgres):
    connection = connections.save_connection(demo, connections.POSTGRES, "pg", postgres.url,
                                             "", "", 10_000, options={})
    demo.conn.execute("UPDATE queries SET text = ? WHERE rowid = (SELECT min(rowid) FROM"
                      " queries)", ["'); DROP TABLE chunks; --"])
    demo.conn.commit()
    assert not live_run(demo, connection, "pg-hostile", k=5).incomplete
    with psycopg.connect(postgres.url) as conn:
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] > 0


def test_a_password_in_the_address_or_an_odd_table_name_is_refused(demo, postgres):
    with pytest.raises(Exception, match="password comes from the environment"):
        connections.save_connection(demo, connections.POSTGRES, "pg",
                                    "postgresql://u:secret@127.0.0.1/db", "", "", 10)
    with pytest.raises(Exception, match="plain SQL name"):
        connections.save_connection(demo, connections.POSTGRES, "pg", postgres.url, "", "", 10,
                                    options={"table": "chunks; drop"})
