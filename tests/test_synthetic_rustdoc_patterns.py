"""The offline generator against the rejects of issue 32's round-18 held-out sample, the Rust
standard library's API documentation (``benchmarks/synthetic_grading/round18/heldout``, graded
blind by an independent grader; development data since), passages read from the committed
sheet: a method's result as the subject ("What is the returned TcpStream?", six pages say it of
``try_clone``), a when-question ending on a preposition, and sentence adverbs that only make
sense next to the source sentence ("happily", "in particular", "on the other hand", "by
contrast", a closing "then").
"""

from __future__ import annotations

import pytest

from labeling.synthetic import offline
from labeling.synthetic.subject import title_parts
from tests import grading_sheets

RUSTDOC = "round18/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("net/struct.TcpStream-007-01-01", "What is the returned TcpStream?"),
    ("net/struct.UdpSocket-008-01-01", "What is the returned UdpSocket?"),
    ("os/unix/net/struct.UnixListener-005-01-01", "What is the returned UnixListener?"),
    ("primitive.never-001-05-02", "When was the fallback changed to?"),
    ("marker/trait.Unpin-001-01-02", "What does mem::replace happily move in particular?"),
    ("sync/atomic/enum.Ordering-001-01-01",
     "What do a store-load pair of Ordering::SeqCst operations synchronize on the other hand?"),
    ("cell/struct.RefCell-012-01-01", "How do I get mutable access to the underlying data then?"),
    ("path/struct.Path-033-01-01", "What will try_exists return by contrast?"),
])
def test_a_rejected_question_is_not_asked(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(RUSTDOC, chunk_id)


@pytest.mark.parametrize(("chunk_id", "accepted"), [
    ("os/fd/struct.BorrowedFd-001-01-01", "How do I obtain an OwnedFd?"),
    ("thread/struct.ThreadId-001-01-01", "What is a ThreadId?"),
])
def test_an_accepted_question_is_still_asked(chunk_id: str, accepted: str):
    assert accepted in grading_sheets.questions(RUSTDOC, chunk_id)


def test_a_qualified_name_is_not_split_at_its_double_colon():
    # the round-18 sheet's passage, titled as a qualified name; split at "::" the lead read
    # "What is :net::TcpStream::try_clone in std?"
    assert title_parts("Math::BigRat: new") == ("Math::BigRat", ":", " new")
    assert title_parts("std::collections::VecDeque") == ("std::collections::VecDeque", "", "")
    _, text = grading_sheets.passages(RUSTDOC)["net/struct.TcpStream-007-01-01"]
    asked = [c.question for c in offline.generate(
        "t", text, title="std::net::TcpStream::try_clone", max_per_chunk=0)]
    assert not [q for q in asked if " :" in q or "in std?" in q], asked
    titled = [c.question for c in offline.generate(
        "t", text, title="std::net::TcpStream: try_clone", max_per_chunk=0)]
    assert "What is try_clone in std::net::TcpStream?" in titled
