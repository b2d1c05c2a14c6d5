"""The offline generator against a reject of issue 32's round-26 held-out sample, the Apache
HTTP Server's module reference (``benchmarks/synthetic_grading/round26/heldout``, graded blind
by an independent grader; development data since), passages read from the committed sheet:
"Set the time to keep idle connections alive" read as a way to keep them alive, answered "the
time" (the quantity set for the infinitive, not a means to it).
"""

from __future__ import annotations

import pytest

from tests import grading_sheets

APACHE = "round26/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("apache/mod_socache_redis-01-01",
     "How do I keep idle connections with the Redis server(s) alive?"),
    ("apache/mod_socache_memcache-01-01",
     "How do I keep idle connections with the memcache server(s) alive?"),
])
def test_a_quantity_set_for_a_goal_is_no_way_to_it(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(APACHE, chunk_id)


def test_a_means_to_a_goal_is_still_asked():
    """"Use X to Y" with X a means still gives its how-to (accepted as written in round 22)."""
    assert "How do I connect to a Unix domain socket server?" in grading_sheets.questions(
        "round22/heldout", "nodejs/net-90-03")
