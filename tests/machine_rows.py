"""Rows for machine-judge tests: passages quoted from CPython 3.11's standard-library docstrings
(``textwrap.dedent``, ``shutil.copytree``, ``os.makedirs``, ``glob.glob``; Python Software
Foundation License), questions about them, two runs and a person's labels.

``narrative`` is a query attribute here: the judge's prompt uses it when a workspace has no
``queries.narrative`` column.
"""

from __future__ import annotations

CHUNKS = [
    {"id": "dedent", "doc_id": "textwrap", "title": "textwrap.dedent",
     "text": "Remove any common leading whitespace from every line in `text`. This can be "
             "used to make triple-quoted strings line up with the left edge of the display, "
             "while still presenting them in the source code in indented form. Note that tabs "
             "and spaces are both treated as whitespace, but they are not equal: the lines "
             '"  hello" and "\\thello" are considered to have no common leading whitespace.'},
    {"id": "copytree", "doc_id": "shutil", "title": "shutil.copytree",
     "text": "Recursively copy a directory tree and return the destination directory. If "
             "exception(s) occur, an Error is raised with a list of reasons. If the optional "
             "symlinks flag is true, symbolic links in the source tree result in symbolic links "
             "in the destination tree."},
    {"id": "makedirs", "doc_id": "os", "title": "os.makedirs",
     "text": "Super-mkdir; create a leaf directory and all intermediate ones. Works like mkdir, "
             "except that any intermediate path segment (not just the rightmost) will be "
             "created if it does not exist. If the target directory already exists, raise an "
             "OSError if exist_ok is False."},
    {"id": "glob", "doc_id": "glob", "title": "glob.glob",
     "text": "Return a list of paths matching a pathname pattern. The pattern may contain "
             "simple shell-style wildcards a la fnmatch. Unlike fnmatch, filenames starting "
             "with a dot are special cases that are not matched by '*' and '?' patterns by "
             "default."},
]

QUERIES = [
    {"id": "q-indent", "text": "remove common leading whitespace from lines",
     "topic": "text", "narrative": "The person has an indented triple-quoted string and wants "
                                   "its lines moved to the left edge."},
    {"id": "q-tree", "text": "copy a directory tree recursively", "topic": "files",
     "narrative": "Wants a whole folder with its subfolders copied, symbolic links kept."},
    {"id": "q-mkdir", "text": "create intermediate directory path", "topic": "files"},
    {"id": "q-glob", "text": "list paths matching a wildcard pattern", "topic": "files"},
]

RUNS = {
    "lexical": [(q["id"], c["id"], float(10 - i - 3 * (q["id"][2:5] != c["id"][:3])))
                for q in QUERIES for i, c in enumerate(CHUNKS)],
    "dense": [(q["id"], c["id"], float(i + 1)) for q in QUERIES for i, c in enumerate(CHUNKS)],
}

PAIRS = [(q["id"], c["id"]) for q in QUERIES for c in CHUNKS]
