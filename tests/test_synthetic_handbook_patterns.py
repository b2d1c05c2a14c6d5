"""The offline generator against the rejects of issue 32's round-52 held-out sample, The Debian
Administrator's Handbook (``benchmarks/synthetic_grading/round52/heldout``, graded blind by an
independent grader; development data since), and the same patterns in earlier held-out samples,
passages read from the committed sheets:

- a sidebar's label read as a C library error, its title as the error's description ("EXTRA
  Generating a signed archive" -> "What is EXTRA in Debian?"): only the C library's error names
  (``ENOENT``, ``EXDEV``) open an error's entry;
- a definition asked of a judgement, not a term ("What is a good entry point?", "What is a
  better alternative?", "What is a typical usage?": 0 of 15 accepted over twelve kinds) when
  nothing in the question says of what.
"""

from __future__ import annotations

import pytest

from labeling.synthetic.lines import is_errno, term_split
from tests import grading_sheets

HANDBOOK = "round52/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("handbook/sect.setup-apt-package-repository-01-04", "What is EXTRA in Debian?"),
    ("handbook/network-services-03-03",
     "What is EXTRA in Debian Handbook Chapter 11. Network Services?"),
    ("handbook/workstation-02-03", "What is EXTRA in Debian Handbook Chapter 13. Workstation?"),
])
def test_a_sidebar_label_is_not_an_error_name(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(HANDBOOK, chunk_id)


def test_an_error_entry_opens_with_a_c_library_error_name():
    assert term_split("ENOENT No such file or directory") == ("ENOENT",
                                                             "No such file or directory")
    assert term_split("EXTRA Generating a signed archive") is None
    assert is_errno("EXDEV") and not is_errno("EXTRA")


@pytest.mark.parametrize(("folder", "chunk_id", "rejected"), [
    (HANDBOOK, "handbook/advanced-administration-10-04", "What is a good entry point?"),
    (HANDBOOK, "handbook/sect.dhcp-03-01", "What is a nice feature?"),
    (HANDBOOK, "handbook/sect.searching-packages-01-02",
     "What is a slightly more successful searching pattern?"),
    ("round46/heldout", "gimp/gimp-tool-heal-01-01", "What is a typical usage?"),
    ("round47/heldout", "lilypond/notation/guitar-01-01", "What is a better alternative?"),
])
def test_a_judgement_is_not_asked_as_a_term(folder: str, chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(folder, chunk_id)
