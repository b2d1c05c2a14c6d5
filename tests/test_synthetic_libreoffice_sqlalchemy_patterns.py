"""The offline generator against the rejects of issue 32's rounds 53 and 54, LibreOffice 7.4's
help and SQLAlchemy 1.4's documentation (``benchmarks/synthetic_grading/round53/heldout`` and
``round54/heldout``, graded blind by independent graders; development data since), passages read
from the committed sheets:

- a function's signature followed by its arguments' descriptions ("REPT("Text"; Number)" then
  "Text is the text to be repeated."): "What does REPT() do?" answered by what an argument is
  (42 of LibreOffice's 89 rejects: "span describes a parameter, not what the function does");
- what a documentation generator leaves beside a name: a permalink mark ("What is
  pool_timeout=30¶ in SQLAlchemy Engine Configuration?") or a Sphinx entry's object type read
  into the subject ("What do attribute sqlalchemy.orm.ORMExecuteState.load_options return?").
"""

from __future__ import annotations

import pytest

from labeling.synthetic.passage import argument_names
from tests import grading_sheets

LIBREOFFICE = "round53/heldout"
SQLALCHEMY = "round54/heldout"


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("libreoffice/scalc/01/04060110-32-01", "What does REPT() do?"),
    ("libreoffice/scalc/01/04060104-06-01", "What does IFNA() do?"),
    ("libreoffice/scalc/01/04060103-13-01", "What does ISPMT() do?"),
    ("libreoffice/scalc/01/func_numbervalue-01-01", "What does NUMBERVALUE() do?"),
])
def test_an_argument_description_is_not_what_the_function_does(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(LIBREOFFICE, chunk_id)


def test_argument_names_of_a_signature_line():
    assert argument_names('REPT("Text"; Number)') == ("Text", "Number")
    assert argument_names("def f(a: int = 3, *rest)") == ("a", "rest")
    assert argument_names("int open(const char *path, int flags)") == ("path", "flags")


@pytest.mark.parametrize(("chunk_id", "rejected"), [
    ("sqlalchemy/core/engines-13-15",
     "What is pool_timeout=30¶ in SQLAlchemy Engine Configuration?"),
    ("sqlalchemy/core/engines-13-11",
     "What is max_overflow=10¶ in SQLAlchemy Engine Configuration?"),
    ("sqlalchemy/orm/session_api-02-10",
     "What do attribute sqlalchemy.orm.ORMExecuteState.load_options return?"),
    ("sqlalchemy/orm/internals-01-14",
     "What do attribute sqlalchemy.orm.InstanceState.attrs return?"),
])
def test_a_generator_mark_is_not_part_of_a_name(chunk_id: str, rejected: str):
    assert rejected not in grading_sheets.questions(SQLALCHEMY, chunk_id)
