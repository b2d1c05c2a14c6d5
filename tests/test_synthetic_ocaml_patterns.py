"""The offline generator against the rejects of issue 32's round-36 held-out sample, the OCaml
standard library's reference (``benchmarks/synthetic_grading/round36/heldout``, graded blind by
an independent grader; development data since), passages read from the committed sheets: an
argument named ``i`` written as the pronoun "I" ("What does index_from s I c return?"), as the
option ``-i`` of a manual page was ("the -I option of openssl-asn1parse", round 1).
"""

from __future__ import annotations

import pytest

from tests import grading_sheets


@pytest.mark.parametrize(("folder", "chunk_id", "written", "kept"), [
    ("round36/heldout", "ocaml/Stdlib.Bytes-33-01", "index_from s I c", "index_from s i c"),
    ("round36/heldout", "ocaml/Stdlib.String-34-01", "index_from s I c", "index_from s i c"),
    ("round1", "openssl-asn1parse.1ssl-02", "-I option", "-i option"),
])
def test_a_lowercase_i_of_the_passage_keeps_its_case(folder: str, chunk_id: str, written: str,
                                                     kept: str):
    asked = grading_sheets.questions(folder, chunk_id)
    assert not any(written in q for q in asked), asked
    assert any(kept in q for q in asked), asked
