"""The offline generator against the reject patterns of issue 32, found on text it was never
tuned on: CPython 3.11.7 docstrings as ``pydoc.getdoc`` returns them on this machine (the
object is named above each passage), titled as a module page would title them
("tarfile: TarFile.extract").

Patterns: a parameter or task without its API, the wrong subject (a pronoun resolved to the
module), behaviour turned into advice, markup and quote artifacts, unnatural templates, labels
read as terms, comparisons the passage does not make, broken keyword queries, and a keyword
form offered for every question whose subject is named (so the form mix can be honoured).
"""

from __future__ import annotations

import re

from labeling.synthetic import keywords, offline


def questions(text: str, title: str | None) -> list[str]:
    return [c.question for c in offline.generate("c", text, title=title, max_per_chunk=0)]


# queue.Queue.get (CPython 3.11.7, pydoc.getdoc).
QUEUE_GET = (
    "Remove and return an item from the queue.\n\nIf optional args 'block' is true and "
    "'timeout' is None (the default),\nblock if necessary until an item is available. If "
    "'timeout' is\na non-negative number, it blocks at most 'timeout' seconds and raises\nthe "
    "Empty exception if no item was available within that time.\nOtherwise ('block' is false), "
    "return an item if one is immediately\navailable, else raise the Empty exception "
    "('timeout' is ignored\nin that case)."
)
# collections.Counter.most_common.
MOST_COMMON = (
    "List the n most common elements and their counts from the most\ncommon to the least.  If "
    "n is None, then list all element counts.\n\n>>> Counter('abracadabra').most_common(3)\n"
    "[('a', 5), ('b', 2), ('r', 2)]"
)
# tarfile.TarFile.extract.
TAR_EXTRACT = (
    "Extract a member from the archive to the current working directory,\nusing its full name. "
    "Its file information is extracted as accurately\nas possible. `member' may be a filename "
    "or a TarInfo object. You can\nspecify a different directory using `path'. File attributes "
    "(owner,\nmtime, mode) are set unless `set_attrs' is False. If `numeric_owner`\nis True, "
    "only the numbers for user/group names are used and not\nthe names.\n\nThe `filter` "
    "function will be called before extraction.\nIt can return a changed TarInfo or None to "
    "skip the member.\nString names of common filters are accepted."
)
# smtplib.SMTP.expn.
SMTP_EXPN = "SMTP 'expn' command -- expands a mailing list."
# os.statvfs_result.
STATVFS_RESULT = (
    "statvfs_result: Result from statvfs or fstatvfs.\n\nThis object may be accessed either as "
    "a tuple of\n  (bsize, frsize, blocks, bfree, bavail, files, ffree, favail, flag, namemax),"
    "\nor via the attributes f_bsize, f_frsize, f_blocks, f_bfree, and so on.\n\nSee os.statvfs "
    "for more information."
)
# os.stat_result.
STAT_RESULT = (
    "stat_result: Result from stat, fstat, or lstat.\n\nThis object may be accessed either as a "
    "tuple of\n  (mode, ino, dev, nlink, uid, gid, size, atime, mtime, ctime)\nor via the "
    "attributes st_mode, st_ino, st_dev, st_nlink, st_uid, and so on.\n\nPosix/windows: If your "
    "platform supports st_blksize, st_blocks, st_rdev,\nor st_flags, they are available as "
    "attributes only.\n\nSee os.stat for more information."
)
# ipaddress.ip_address.
IP_ADDRESS = (
    "Take an IP string/int and return an object of the correct type.\n\nArgs:\n    address: A "
    "string or integer, the IP address.  Either IPv4 or\n      IPv6 addresses may be supplied; "
    "integers less than 2**32 will\n      be considered to be IPv4 by default.\n\nReturns:\n    "
    "An IPv4Address or IPv6Address object.\n\nRaises:\n    ValueError: if the *address* passed "
    "isn't either a v4 or a v6\n      address"
)
# multiprocessing.managers.SharedMemoryManager.
SHARED_MEMORY_MANAGER = (
    "Like SyncManager but uses SharedMemoryServer instead of Server.\n\nIt provides methods for "
    "creating and returning SharedMemory instances\nand for creating a list-like object "
    "(ShareableList) backed by shared\nmemory.  It also provides methods that create and return "
    "Proxy Objects\nthat support synchronization across processes (i.e. multi-process-safe\n"
    "locks and semaphores)."
)
# posix.link.
POSIX_LINK = (
    "Create a hard link to a file.\n\nIf either src_dir_fd or dst_dir_fd is not None, it should "
    "be a file\n  descriptor open to a directory, and the respective path string (src or dst)\n"
    "  should be relative; the path will then be relative to that directory.\nIf "
    "follow_symlinks is False, and the last element of src is a symbolic\n  link, link will "
    "create a link to the symbolic link itself instead of the\n  file the link points to.\n"
    "src_dir_fd, dst_dir_fd, and follow_symlinks may not be implemented on your\n  platform.  "
    "If they are unavailable, using them will raise a\n  NotImplementedError."
)
# pthread_mutexattr_setrobust(3), RETURN VALUE (man-db 2.11, 80 columns), as in
# tests/test_synthetic_patterns.py.
ROBUST = (
    "RETURN VALUE\n"
    "On success, these functions return 0.  On error, they return a positive\n"
    "error number.\n"
)


def test_a_parameter_condition_is_not_asked_without_its_api():
    """"What should I do if optional args block is true and timeout is None?" names neither
    Queue.get nor a reader's situation."""
    for text, title in ((QUEUE_GET, "queue: Queue.get"), (MOST_COMMON, "collections: Counter")):
        asked = questions(text, title)
        assert not [q for q in asked if q.startswith("What should I do if")], asked


def test_a_task_without_its_api_is_not_asked():
    """"What can I specify?" (answer: a different directory using `path') names no API."""
    asked = questions(TAR_EXTRACT, "tarfile: TarFile.extract")
    assert not [q for q in asked if re.fullmatch(r"What (can|should|do) I \w+\?", q)], asked


def test_a_pronoun_is_not_resolved_to_the_module():
    """"It can return a changed TarInfo": "it" is the filter function, not tarfile."""
    asked = questions(TAR_EXTRACT, "tarfile: TarFile.extract")
    assert not [q for q in asked if re.search(r"\btarfile (return|can)\b", q)], asked
    for text, title in ((SHARED_MEMORY_MANAGER, "multiprocessing.managers: SharedMemoryManager"),
                        (POSIX_LINK, "posix: link")):
        asked = questions(text, title)
        assert not [q for q in asked if re.search(r"\b(multiprocessing\.managers|posix) "
                                                   r"(provide|are|is|do)", q)], asked


def test_behaviour_is_not_turned_into_advice():
    """"If n is None, then list all element counts" is what most_common() does."""
    asked = questions(MOST_COMMON, "collections: Counter.most_common")
    assert not [q for q in asked if "should I" in q], asked


def test_markup_and_quote_artifacts_are_not_copied_into_questions():
    asked = questions(SMTP_EXPN, "smtplib: SMTP.expn")
    assert not [q for q in asked if re.search(r" -- |['`*]", q)], asked
    asked = questions(IP_ADDRESS, "ipaddress: ip_address")
    assert not [q for q in asked if "valueerror" in q], asked  # a name lowercased


def test_a_code_name_with_a_description_is_not_a_key_value_template():
    """"statvfs_result: Result from ..." names the object: not "What is the statvfs_result in
    os?"."""
    for text, title in ((STATVFS_RESULT, "os: statvfs_result"), (STAT_RESULT, "os: stat_result")):
        asked = questions(text, title)
        assert not [q for q in asked if re.match(r"What is the \S+ in \w+\?", q)], asked


def test_docstring_section_labels_are_not_terms():
    """"Args:", "Raises:" and their entries are labels, not things to define in a module."""
    asked = questions(IP_ADDRESS, "ipaddress: ip_address")
    assert not [q for q in asked if re.search(r"\b(address|valueerror|args|raises) in "
                                              r"ipaddress\b", q, re.I)], asked
    asked = questions(STAT_RESULT, "os: stat_result")
    assert not [q for q in asked if "posix/windows" in q.lower()], asked


def test_a_comparison_needs_the_passage_to_contrast_the_two_things():
    """"Like SyncManager but uses SharedMemoryServer instead of Server" contrasts neither
    SyncManager with SharedMemoryServer; posix.link's "instead of" contrasts two links, not
    two parameters."""
    for text, title in ((SHARED_MEMORY_MANAGER, "multiprocessing.managers: SharedMemoryManager"),
                        (POSIX_LINK, "posix: link")):
        asked = questions(text, title)
        assert not [q for q in asked if q.startswith("What is the difference")], asked


def test_keyword_queries_read_like_search_box_text():
    """No subject repeated ("posix.stat_result stat_result"), no punctuation fragments, no
    lone modifier ("tarfile.bltn_open dependent")."""
    for text, title in ((STAT_RESULT, "posix.stat_result"), (STATVFS_RESULT, "os.statvfs_result"),
                        (IP_ADDRESS, "ipaddress"), (ROBUST, "pthread_mutexattr_setrobust(3)")):
        for cand in offline.generate("c", text, title=title, max_per_chunk=0):
            if cand.form != "keyword":
                continue
            words = cand.question.split()
            assert 2 <= len(words) <= 6, cand.question
            assert not any(w.startswith((".", "(")) or "/" in w for w in words), cand.question
            bare = [w.split(".")[-1].rstrip("()").lower() for w in words]
            assert len(set(bare)) == len(bare), cand.question


def test_a_named_prose_question_is_offered_as_a_keyword_query_too():
    """The mix asks for keyword queries: a question whose subject is named has one, so the
    form mix can be honoured beyond definition lists."""
    cands = offline.generate("c", ROBUST, title="pthread_mutexattr_setrobust(3): Return Value",
                             max_per_chunk=0)
    keywords = [c.question for c in cands if c.form == "keyword"]
    assert "pthread_mutexattr_setrobust return value on error" in keywords, [
        c.question for c in cands]


def test_a_keyword_query_does_not_repeat_its_subject_or_keep_fragments():
    """The question of os.stat_result's NAME line read as a key ("What is the stat_result in
    posix.stat_result?") and posix.WEXITSTATUS's ("What does posix .WEXITSTATUS() return?")."""
    assert keywords.keyword_for("What is the stat_result in posix.stat_result?") is None
    assert keywords.keyword_for("What does posix .WEXITSTATUS() return?") is None


# GNU Info manuals of /usr/share/info as benchmarks/synthetic_corpora.py cuts them (coreutils
# 9.1 "Day of week items", findutils 4.9 "Formatting Flags", libtasn1 4.19 "ASN.1 field
# functions", coreutils "who invocation"). Graded in round3's first held-out sample, so they
# are development text now.
DAY_OF_WEEK = (
    '29.6 Day of week items\n'
    '\n'
    '\n'
    'The explicit mention of a day of the week will forward the date (only if\n'
    'necessary) to reach that day of the week in the future.\n'
    '\n'
    '   Days of the week may be spelled out in full: ‘Sunday’, ‘Monday’,\n'
    '‘Tuesday’, ‘Wednesday’, ‘Thursday’, ‘Friday’ or ‘Saturday’.  Days may be\n'
    'abbreviated to their first three letters, optionally followed by a\n'
    'period.  The special abbreviations ‘Tues’ for ‘Tuesday’, ‘Wednes’ for\n'
    '‘Wednesday’ and ‘Thur’ or ‘Thurs’ for ‘Thursday’ are also allowed.\n'
    '\n'
    '   A number may precede a day of the week item to move forward\n'
    'supplementary weeks.  It is best used in expression like ‘third monday’.\n'
    'In this context, ‘last DAY’ or ‘next DAY’ is also acceptable; they move\n'
    'one week before or after the day that DAY by itself would represent.\n'
    '\n'
    '   A comma following a day of the week item is ignored.'
)
FORMATTING_FLAGS = (
    '3.2.4 Formatting Flags\n'
    '\n'
    '\n'
    "The '%m' and '%d' directives support the '#', '0' and '+' flags, but the\n"
    'other directives do not, even if they print numbers.  Numeric directives\n'
    'that do not support these flags include\n'
    '\n'
    "   'G', 'U', 'b', 'D', 'k' and 'n'.\n"
    '\n'
    "   All fields support the format flag '-', which makes fields\n"
    'left-aligned.  That is, if the field width is greater than the actual\n'
    'contents of the field, the requisite number of spaces are printed after\n'
    'the field content instead of before it.'
)
ASN1_READ_VALUE = (
    'asn1_read_value\n'
    '\n'
    '\n'
    ' -- Function: int asn1_read_value (asn1_node_const ROOT, const char *\n'
    '          NAME, void * IVALUE, int * LEN)\n'
    '     ROOT: pointer to a structure.\n'
    '\n'
    '     NAME: the name of the element inside a structure that you want to\n'
    '     read.\n'
    '\n'
    "     IVALUE: vector that will contain the element's content, must be a\n"
    "     pointer to memory cells already allocated (may be 'NULL' ).\n"
    '\n'
    '     LEN: number of bytes of *value: value[0]..value[len-1].  Initialy\n'
    '     holds the sizeof value.\n'
    '\n'
)
WHO_PROCESS = '‘-p’\n‘--process’\n     List active processes spawned by init.\n\n'


def test_a_subject_without_evidence_is_not_asked_about():
    """"What may a number precede?", "What do all fields support?": nothing named."""
    assert questions(DAY_OF_WEEK, "coreutils: Day of week items") == []
    assert not [q for q in questions(FORMATTING_FLAGS, "find: Formatting Flags")
                if q.startswith("What do all fields")]


def test_a_parameter_of_the_signature_above_is_not_a_term():
    asked = questions(ASN1_READ_VALUE, "libtasn1: ASN.1 field functions")
    assert not [q for q in asked if re.match(r"What is (the )?(ROOT|NAME|IVALUE|LEN)\b", q, re.I)
                ], asked


def test_two_labels_of_one_option_are_not_a_subject():
    asked = questions(WHO_PROCESS, "coreutils: who invocation")
    assert not [q for q in asked if "-p --process" in q], asked


# /usr/share/doc READMEs as benchmarks/synthetic_corpora.py cuts them (libffi8 README.md,
# apt README.md, libcommons-cli-java README.md, zutty README.org), graded in round3's second
# held-out sample, so they are development text now.
LIBFFI_HISTORY = '    1.16 Feb-11-1998\n        Richard Henderson produces Alpha port.\n\n'
APT_RESOLVER = (
    '### Dependency resolution\n'
    '\n'
    'APT works in its internal resolver in two stages: First all packages are visited\n'
    'and marked for installation, keep back or removal. Option `Debug::pkgDepCache::Marker`\n'
    'shows this. This also decides which packages are to be installed to satisfy '
    'dependencies,\n'
    'which can be seen by `Debug::pkgDepCache::AutoInstall`. After this is done, we might\n'
    'be in a situation in which two packages want to be installed, but only one of '
    'them can be.\n'
    'It is the job of the `pkgProblemResolver` to decide which of two packages '
    "'wins' and can\n"
    'therefore decide what has to happen. You can see the contenders as well as '
    'their fight and\n'
    'the resulting resolution with `Debug::pkgProblemResolver`.\n'
    '\n'
)
COMMONS_CLI = (
    'Apache Commons CLI provides a simple API for presenting, processing and '
    'validating a Command Line Interface.\n'
    '\n'
)
ZUTTY = (
    'In addition, Zutty adds a unique feature for real power users of the\n'
    'terminal: rectangular selection. '
)


def test_a_name_of_several_capitalised_words_keeps_its_capitals():
    asked = questions(LIBFFI_HISTORY, "libffi8: README.md")
    assert not [q for q in asked if "richard Henderson" in q], asked
    asked = questions(COMMONS_CLI, "libcommons-cli-java: README.md")
    assert not [q for q in asked if "apache Commons" in q], asked


def test_a_preposition_is_not_left_behind_twice():
    asked = questions(APT_RESOLVER, "apt: README.md")
    assert not [q for q in asked if q.endswith(" in?") and " in " in q], asked


def test_a_linking_phrase_is_not_copied_into_a_question():
    asked = questions(ZUTTY, "zutty: README.org")
    assert not [q for q in asked if "in addition" in q.lower()], asked
