"""Issue 32: the keyword and how-to forms from real passages (sources named per passage)."""

from __future__ import annotations

from labeling.synthetic import forms, keywords, offline, screens

# gzip(1) 1.12, OPTIONS, as benchmarks/manpage_corpus.py renders it (MANWIDTH=80).
GZIP_KEEP = (
    "-k --keep\n"
    "       Keep (don't delete) input files during compression or decompres‐\n"
    "       sion.\n"
)
# CPython 3.11, Lib/heapq.py: nlargest, as help() shows it.
NLARGEST = (
    "nlargest(n, iterable, key=None)\n"
    "    Find the n largest elements in a dataset.\n\n"
    "    Equivalent to:  sorted(iterable, key=key, reverse=True)[:n]\n"
)
# git-branch(1) 2.39, OPTIONS: a task whose words hold a placeholder.
GIT_UPSTREAM = (
    "-u <upstream>, --set-upstream-to=<upstream>\n"
    "       Set up <branchname>'s tracking information so <upstream> is consid‐\n"
    "       ered <branchname>'s upstream branch.\n"
)


def by_form(text: str, title: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cand in offline.generate("c", text, title=title, max_per_chunk=0):
        out.setdefault(cand.form, []).append(cand.question)
    return out


def test_an_option_gets_a_search_box_query_and_a_how_to_naming_the_command():
    found = by_form(GZIP_KEEP, "gzip(1): Options")
    assert "gzip --keep option" in found["keyword"], found
    assert any(q.startswith("How do I keep") and q.endswith("with gzip?")
               for q in found["how-to"]), found


def test_a_function_description_becomes_a_how_to_naming_its_module():
    found = by_form(NLARGEST, "heapq: nlargest")
    assert "How do I find the n largest elements in a dataset with heapq?" in found["how-to"]
    assert "heapq find n largest elements in dataset" not in found.get("keyword", [])  # 7 words


def test_a_placeholder_never_reaches_a_keyword_query():
    found = by_form(GIT_UPSTREAM, "git-branch(1): Options")
    assert not any("<" in q for q in found.get("keyword", [])), found


def test_keyword_templates_read_like_search_box_text():
    """The examples of issue 32, and fragments the old shortening wrote that must not come
    back ("posix .WEXITSTATUS() return", "ipaddress returns")."""
    assert keywords.keyword_for("What does numeric_owner do in tarfile?") == (
        "tarfile numeric_owner")
    assert keywords.keyword_for("What does the error EINVAL mean?") == "EINVAL error meaning"
    assert keywords.keyword_for("When does open() fail with EACCES?") == "open EACCES error"
    assert keywords.keyword_for("How many modes of operation does shuf have?") == (
        "shuf modes of operation")
    assert keywords.keyword_for("What does the subprocess.killed property indicate?") == (
        "subprocess.killed property")
    assert keywords.keyword_for("What does the --expert flag override in gpg?") is None
    assert keywords.keyword_for("What does ipaddress return?") is None  # not code-like
    assert keywords.keyword_for("What is TYPE in gnupg?") is None  # a placeholder, not a name
    assert keywords.keyword_for("What is the default value for STRING?") is None
    assert keywords.keyword_for("What does uniq print by default?") is None  # no template


def test_misread_questions_are_screened():
    """Questions the generator wrote on the development samples of round 4 (GNU Info: diffutils
    "Line Group Formats", the Tao quoted in the texinfo manual; Node.js 20 HTML docs:
    process.memoryUsage)."""
    assert screens.misread("What is The Named?")
    assert screens.misread("Where is the result // in the latter case?")
    assert screens.misread("What do returns an object describing the memory usage of the "
                           "Node.js process?")
    assert not screens.misread("What does the --keep option of gzip do?")
    assert not screens.misread("What does ls list by default?")


# valgrind 3.19 manual, "Using and understanding the Valgrind core: Advanced Topics", and
# Node.js 20 "Process" (the HTML manuals of /usr/share/doc, round 4's development sample).
VALGRIND_CORE = ("The Valgrind core provides a built-in gdbserver implementation,\n"
                 "which is activated using --vgdb=yes\nor --vgdb=full.\n")
EXEC_ARGV = ("The process.execArgv property returns the set of Node.js-specific command-line\n"
             "options passed when the Node.js process was launched.\n")
BBV = "BBV also counts the fldcw instruction.  This instruction is used on x86 machines.\n"


def test_a_blank_is_asked_only_about_a_name_as_code_writes_it():
    assert "What does the Valgrind core provide?" not in by_form(
        VALGRIND_CORE, "valgrind: 3. Using and understanding the Valgrind core: Advanced Topics"
    ).get("what-why", [])
    assert "What does the process.execArgv property return?" in by_form(
        EXEC_ARGV, "nodejs: Process | Node.js v20.20.2 Documentation")["what-why"]
    assert not any("also" in q for qs in by_form(BBV, "valgrind: 13. BBV").values()
                   for q in qs)


# Node.js 20 "Process" (process.stderr), GNU findutils 4.9 "Cleaning Up" (round 4's development
# samples: a comparison the passage does not make, an answer that points at an example).
STDERR = ("process.stderr differs from other Node.js streams in important ways. See\n"
          "note on process I/O for more information.\n")
EMACS = ("   To remove old Emacs backup and auto-save files, you can use a command\n"
         "like the following.  It is especially important in this case to use\n"
         "null-terminated file names.\n")


def test_no_comparison_with_a_name_that_only_qualifies_and_no_pointing_answer():
    found = by_form(STDERR, "nodejs: Process | Node.js v20.20.2 Documentation")
    assert not found.get("comparison"), found
    found = by_form(EMACS, "find: Cleaning Up")
    assert not any("Emacs" in q for qs in found.values() for q in qs), found
    assert screens.misread("What does adding the --verbose show?")


# Questions the generator wrote for graded samples (benchmarks/synthetic_grading, rounds named).
SHAPED = [
    ("What does Reader.ReadString return?", "returns"),  # round 28, Go bufio
    ("What does sys.info() return?", "returns"),  # round 30, R base
    ("What is RawContent used for?", "purpose"),  # round 28, Go encoding/asn1
    ("What does Array#drop do?", "behaviour"),  # round 29, Ruby
    ("What does seek/4 in SWI-Prolog do?", "behaviour"),  # round 32
    ("What is AUTH in Go net/smtp?", "fact"),  # round 28
    ("What does RNG stand for?", "fact"),  # round 30
    ("What happens if the queue is empty?", "fact"),
    ("What is the difference between Rem64 and Div64?", "comparison"),  # round 28
    ("Reader.ReadString return value", "keyword"),
]


def test_the_shape_says_what_a_question_asks_for():
    assert [forms.shape(q) for q, _ in SHAPED] == [shape for _, shape in SHAPED]


def test_a_question_has_the_feature_of_its_shape_and_no_other():
    for question, shape in SHAPED:
        values = forms.shape_features(question)
        on = [name for name, value in values.items() if value == 1.0]
        assert on == ([] if shape == "fact" else [forms.SHAPE_FEATURES[shape]]), question
        assert set(values) == set(forms.SHAPE_FEATURES.values())

