"""A PostgreSQL full-text search as a retriever: ``websearch_to_tsquery`` over a text column,
ranked by ``ts_rank`` (ties by id), through psycopg (the ``postgres`` extra).

Conventions: the table, columns and text search config are plain SQL names checked by
``labeling.workspace.connections.check_postgres_options`` and quoted as identifiers here; the
query text, config and k are bound parameters, never spliced into the SQL. The password, when
there is one, comes from ``environ[key_env]``; each search opens its own connection (one per
thread) within ``deadline`` seconds, and a statement runs at most that long.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from labeling.model_calls.retrievers import Hits, RetrievalFailed

SEARCH = """
SELECT {id}::text, ts_rank(to_tsvector(%(config)s::regconfig, {text}), q)::float8 AS score
FROM {table}, websearch_to_tsquery(%(config)s::regconfig, %(query)s) AS q
WHERE to_tsvector(%(config)s::regconfig, {text}) @@ q
ORDER BY score DESC, {id}
LIMIT %(k)s
"""


def search_sql(options: Mapping[str, str]):
    """The ranking query for ``options`` (table, id_column, text_column), as psycopg SQL."""
    from psycopg import sql

    return sql.SQL(SEARCH).format(id=sql.Identifier(options["id_column"]),
                                  text=sql.Identifier(options["text_column"]),
                                  table=sql.Identifier(options["table"]))


@dataclass
class PostgresRetriever:
    """Full-text search of one table of the database at ``url`` (postgresql://...)."""

    url: str
    options: Mapping[str, str]
    password: str | None = None
    deadline: float = 10.0

    def search(self, query: str, k: int, params: Mapping[str, Any]) -> Hits:
        """The matching rows' (id, rank), best first; ``RetrievalFailed`` on any error."""
        try:
            import psycopg
        except ImportError as error:
            raise RetrievalFailed("PostgreSQL search needs psycopg: install the 'postgres' "
                                  "extra") from error
        config = str(params.get("config", self.options["config"]))
        try:
            with psycopg.connect(self.url, password=self.password,
                                 connect_timeout=max(1, int(self.deadline)),
                                 options=f"-c statement_timeout={int(self.deadline * 1000)}",
                                 autocommit=True) as conn:
                rows = conn.execute(search_sql(self.options),
                                    {"config": config, "query": query, "k": k}).fetchall()
        except psycopg.Error as error:
            raise RetrievalFailed(f"PostgreSQL: {str(error).strip()}") from error
        return [(str(doc), float(score)) for doc, score in rows]
