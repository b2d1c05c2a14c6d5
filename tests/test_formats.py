"""Readers and writers in labeling.files.formats: round trips, detection, exact error lines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from labeling.errors import InputError
from labeling.files.formats import (
    detect_format,
    iter_qrels_batches,
    iter_record_batches,
    iter_run_batches,
    read_beir,
    read_qrels,
    read_records,
    read_run,
    write_beir,
    write_records,
    write_trec_qrels,
    write_trec_run,
)


def put(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def error(fn, *args) -> InputError:
    with pytest.raises(InputError) as info:
        fn(*args)
    return info.value


QRELS = pd.DataFrame(
    {
        "query_id": pd.Series(["q1", "q1", "q2", "q10"], dtype="str"),
        "doc_id": pd.Series(["d1", "d2", "d1", "é3"], dtype="str"),
        "relevance": np.array([2, 0, -1, 1], dtype=np.int64),
    }
)


def run_frame() -> pd.DataFrame:
    # Already in trec_eval order: score desc, ties by doc id desc.
    return pd.DataFrame(
        {
            "query_id": pd.Series(["q1", "q1", "q1", "q2"], dtype="str"),
            "doc_id": pd.Series(["d9", "d2", "d10", "x"], dtype="str"),
            "score": np.array([0.1 + 0.2, 0.25, 0.25, -1e-300]),
            "rank": pd.array([1, 2, 3, 1], dtype="Int64"),
            "tag": pd.Series(["scorecard"] * 4, dtype="str"),
        }
    )


# --- round trips -------------------------------------------------------------------------------


def test_trec_qrels_round_trip(tmp_path):
    write_trec_qrels(QRELS, tmp_path / "q.txt")
    assert (tmp_path / "q.txt").read_text().splitlines()[0] == "q1 0 d1 2"
    pdt.assert_frame_equal(read_qrels(tmp_path / "q.txt"), QRELS)


def test_trec_run_round_trip_is_exact(tmp_path):
    write_trec_run(run_frame(), tmp_path / "r.txt")
    back = read_run(tmp_path / "r.txt")
    pdt.assert_frame_equal(back, run_frame())
    assert back["score"].iloc[0] == 0.1 + 0.2


def test_trec_run_writer_ranks_by_score_then_doc_id_descending(tmp_path):
    shuffled = run_frame().iloc[[3, 2, 0, 1]].drop(columns=["rank", "tag"])
    write_trec_run(shuffled, tmp_path / "r.txt", tag="bm25")
    lines = (tmp_path / "r.txt").read_text().splitlines()
    assert lines == [
        "q2 Q0 x 1 -1e-300 bm25",
        "q1 Q0 d9 1 0.30000000000000004 bm25",
        "q1 Q0 d2 2 0.25 bm25",
        "q1 Q0 d10 3 0.25 bm25",
    ]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".tsv"])
def test_tabular_qrels_and_run_round_trip(tmp_path, suffix):
    write_records(QRELS, tmp_path / f"q{suffix}")
    pdt.assert_frame_equal(read_qrels(tmp_path / f"q{suffix}"), QRELS)
    run = run_frame().drop(columns=["tag"])
    write_records(run, tmp_path / f"r{suffix}")
    pdt.assert_frame_equal(read_run(tmp_path / f"r{suffix}"), run)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_records_round_trip_keeps_every_column(tmp_path, suffix):
    chunks = pd.DataFrame(
        {
            "id": pd.Series(["c1", "c2", "007"], dtype="str"),
            "text": pd.Series(['a, "quoted"\nline', "naïve ☃", "x"], dtype="str"),
            "page": np.array([1, 2, 3], dtype=np.int64),
            "weight": np.array([0.5, 1.25, 3.0]),
        }
    )
    write_records(chunks, tmp_path / f"c{suffix}")
    pdt.assert_frame_equal(read_records(tmp_path / f"c{suffix}"), chunks)


def test_records_accept_underscore_id_and_integer_ids(tmp_path):
    path = put(tmp_path, "c.jsonl", '{"_id": 7, "text": "a"}\n{"_id": "b", "text": "c"}\n')
    frame = read_records(path)
    assert list(frame.columns) == ["id", "text"]
    assert frame["id"].tolist() == ["7", "b"]


def test_beir_round_trip(tmp_path):
    corpus = pd.DataFrame(
        {
            "id": pd.Series(["d1", "d2"], dtype="str"),
            "title": pd.Series(["T", ""], dtype="str"),
            "text": pd.Series(["one", "two"], dtype="str"),
            "url": pd.Series(["http://a", "http://b"], dtype="str"),
        }
    )
    queries = pd.DataFrame(
        {"id": pd.Series(["q1"], dtype="str"), "text": pd.Series(["what?"], dtype="str")}
    )
    qrels = pd.DataFrame(
        {
            "query_id": pd.Series(["q1", "q1"], dtype="str"),
            "doc_id": pd.Series(["d1", "d1"], dtype="str"),
            "relevance": np.array([1, 2], dtype=np.int64),
            "split": pd.Series(["dev", "test"], dtype="str"),
        }
    )
    write_beir(tmp_path / "b", corpus, queries, qrels)
    assert (tmp_path / "b/qrels/dev.tsv").read_text() == "query-id\tcorpus-id\tscore\nq1\td1\t1\n"
    data = read_beir(tmp_path / "b")
    pdt.assert_frame_equal(data.corpus, corpus)
    pdt.assert_frame_equal(data.queries, queries)
    pdt.assert_frame_equal(data.qrels, qrels)


# --- detection and tolerated variations -------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("\n\nq1 0 d1 1\n", "trec_qrels"),
        ("q1\tQ0\td1\t1\t2.5\trun\n", "trec_run"),
        ('{"query_id": "q1", "doc_id": "d1", "score": 1}\n', "jsonl"),
        ("query_id,doc_id,relevance\nq1,d1,1\n", "csv"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\n", "tsv"),
    ],
)
def test_detect_by_content_not_name(tmp_path, content, expected):
    assert detect_format(put(tmp_path, "data.txt", content)) == expected


def test_bom_crlf_tabs_and_blank_lines(tmp_path):
    content = "\ufeffq1 0 d1 1\r\n\r\nq1\t0  d2 \t 0\r\n  \nq2 0 d1 3"
    frame = read_qrels(put(tmp_path, "q.txt", content))
    assert frame["doc_id"].tolist() == ["d1", "d2", "d1"]
    assert frame["relevance"].tolist() == [1, 0, 3]
    csv_frame = read_qrels(put(tmp_path, "q.csv", "\ufeffqid,docid,grade\r\nq1,d1,2\r\n"))
    assert csv_frame.iloc[0].tolist() == ["q1", "d1", 2]


def test_run_with_only_rank_gets_negative_rank_scores(tmp_path):
    frame = read_run(put(tmp_path, "r.csv", "query_id,chunk_id,rank\nq,a,1\nq,b,2\n"))
    assert frame["score"].tolist() == [-1.0, -2.0]
    assert frame["rank"].tolist() == [1, 2]


def test_integer_valued_relevance_is_accepted(tmp_path):
    assert read_qrels(put(tmp_path, "q.txt", "q 0 d 2.0\n"))["relevance"].tolist() == [2]


# --- errors: file, line and problem ----------------------------------------------------------

TREC_RUN_OK = "q1 Q0 d1 1 2.5 t\n"


@pytest.mark.parametrize(
    ("name", "content", "reader", "message"),
    [
        ("q.txt", b"", read_qrels, "q.txt: file is empty"),
        ("q.txt", b"q 0 a 1\nq 0 b \xff1\n", read_qrels, "line 2: invalid UTF-8"),
        ("q.txt", b"q 0 a 1\n\nq 0 b\x00 1\n", read_qrels, "line 3: NUL byte"),
        (
            "q.txt",
            "q 0 a 1\n\nq 0 b\n",
            read_qrels,
            "q.txt, line 3: expected 4 fields (query iter doc relevance), found 3",
        ),
        ("q.txt", "q 0 a 1\nq 0 b x\n", read_qrels, "line 2: relevance is not a number: 'x'"),
        ("q.txt", "q 0 a 1\nq 0 b 1.5\n", read_qrels, "line 2: relevance must be an integer"),
        (
            "q.txt",
            "q 0 a 1\nq 0 b 1\n\nq 0 a 0\n",
            read_qrels,
            "line 4: duplicate judgement for query 'q', doc 'a' (first on line 1)",
        ),
        (
            "r.txt",
            TREC_RUN_OK + "q1 Q0 d2 2 abc t\n",
            read_run,
            "line 2: score is not a number: 'abc'",
        ),
        ("r.txt", TREC_RUN_OK * 1 + "q1 Q0 d2 2 nan t\n", read_run, "line 2: score must be finite"),
        ("r.txt", TREC_RUN_OK + "q1 Q0 d2 2 -inf t\n", read_run, "line 2: score must be finite"),
        ("r.txt", TREC_RUN_OK + "q1 Q0 d2 2 1 t x\n", read_run, "line 2: expected 6 fields"),
        ("r.txt", TREC_RUN_OK + "q1 Q0  d2 2 1\n", read_run, "line 2: expected 6 fields"),
        (
            "r.txt",
            TREC_RUN_OK + "q2 Q0 d1 1 1 t\nq1 Q0 d1 3 1.0 t\n",
            read_run,
            "r.txt, line 3: duplicate result for query 'q1', doc 'd1' (first on line 1)",
        ),
        (
            "r.jsonl",
            '{"query_id": "q", "doc_id": "a", "score": 1}\n\n{"query_id": "q", "doc_id": \n',
            read_run,
            "r.jsonl, line 3: invalid JSON",
        ),
        (
            "r.jsonl",
            '{"query_id": "q", "doc_id": "a", "score": 1}\n{"query_id": "q", "doc_id": "a", '
            '"score": 2}\n',
            read_run,
            "line 2: duplicate result for query_id 'q', doc_id 'a' (first on line 1)",
        ),
        (
            "r.csv",
            "query_id,doc_id\nq,a\n",
            read_run,
            "r.csv, line 1: missing required column 'score'",
        ),
        ("q.csv", "qid,docid\nq,a\n", read_qrels, "line 1: missing required column 'relevance'"),
        ("q.csv", "qid,docid,label\nq,a,1\n\nq,b,high\n", read_qrels, "line 4: relevance must"),
        ("q.csv", 'qid,docid,label\nq,"a\nb",1\nq,c\n', read_qrels, "line 4: expected 3 fields"),
        (
            "c.csv",
            'id,text\na,"x\ny"\nb,z\na,"w\nv"\n',
            read_records,
            "line 5: duplicate id for id 'a' (first on line 2)",
        ),
        ("r.csv", "qid,docid,score\nq,a,inf\n", read_run, "line 2: score must be a finite"),
        ("c.jsonl", '{"id": "a"}\n[1]\n', read_records, "line 2: expected a JSON object"),
        ("c.csv", "id,text\na,x\na,y\n", read_records, "line 3: duplicate id for id 'a'"),
        ("c.csv", "name,text\na,x\n", read_records, "line 1: missing required column 'id'"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, name, content, reader, message):
    err = error(reader, put(tmp_path, name, content))
    assert message in str(err)
    assert str(err).startswith(str(tmp_path / name))


def test_wrong_trec_kind_is_reported(tmp_path):
    err = error(read_run, put(tmp_path, "q.txt", "q 0 d 1\n"))
    assert "expected a run file but this looks like trec qrels" in str(err)


def test_writers_refuse_whitespace_ids(tmp_path):
    bad = QRELS.assign(doc_id=["d1", "d 2", "d3", "d4"])
    assert "doc_id 'd 2' (row 2)" in str(error(write_trec_qrels, bad, tmp_path / "q.txt"))
    run = run_frame().assign(score=[1.0, float("nan"), 0.0, 1.0])
    assert "score must be a finite number" in str(error(write_trec_run, run, tmp_path / "r.txt"))


# --- streaming ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 300_000
    queries = np.repeat(np.arange(3_000), 100)
    docs = np.arange(n)
    scores = rng.random(n)
    path = tmp_path_factory.mktemp("big") / "run.txt"
    rows = zip(queries.tolist(), docs.tolist(), scores.tolist(), strict=True)
    lines = [f"q{q} Q0 d{d} {i % 100 + 1} {s!r} tag\n" for i, (q, d, s) in enumerate(rows)]
    lines[250_000] = "\n" + lines[250_000]  # a blank line shifts later line numbers
    path.write_text("".join(lines))
    return path


def test_streaming_batches_concatenate_to_the_whole_read(big_run):
    whole = read_run(big_run)
    assert len(whole) == 300_000
    batches = list(iter_run_batches(big_run, batch_rows=70_000))
    assert [len(b) for b in batches] == [70_000] * 4 + [20_000]
    pdt.assert_frame_equal(pd.concat(batches, ignore_index=True), whole)


def test_streaming_error_has_the_physical_line(tmp_path, big_run):
    lines = big_run.read_text().split("\n")
    lines[280_000] = "q1 Q0 dx 1 oops tag"
    path = put(tmp_path, "bad.txt", "\n".join(lines))
    message = "line 280001: score is not a number: 'oops'"
    assert message in str(error(lambda p: list(iter_run_batches(p, batch_rows=50_000)), path))
    assert message in str(error(read_run, path))


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_streaming_tabular(tmp_path, suffix):
    qrels = pd.DataFrame(
        {
            "query_id": pd.Series([f"q{i // 7}" for i in range(1_000)], dtype="str"),
            "doc_id": pd.Series([f"d{i}" for i in range(1_000)], dtype="str"),
            "relevance": np.arange(1_000, dtype=np.int64) % 3,
        }
    )
    write_records(qrels, tmp_path / f"q{suffix}")
    batches = list(iter_qrels_batches(tmp_path / f"q{suffix}", batch_rows=300))
    assert [len(b) for b in batches] == [300, 300, 300, 100]
    pdt.assert_frame_equal(pd.concat(batches, ignore_index=True), qrels)
    records = qrels.rename(columns={"query_id": "id"})
    records["id"] = records["doc_id"]
    write_records(records, tmp_path / f"c{suffix}")
    got = pd.concat(iter_record_batches(tmp_path / f"c{suffix}", batch_rows=400), ignore_index=True)
    pdt.assert_frame_equal(got, records)


def test_jsonl_nested_metadata_survives(tmp_path):
    path = put(tmp_path, "c.jsonl", json.dumps({"_id": "a", "metadata": {"k": [1, 2]}}) + "\n")
    assert read_records(path)["metadata"].iloc[0] == {"k": [1, 2]}


def test_streaming_csv_error_line_counts_earlier_batches(tmp_path):
    body = "".join(f"q,d{i},1\n" for i in range(999)) + "q,dx,high\n"
    path = put(tmp_path, "q.csv", "qid,docid,grade\n" + body)
    err = error(lambda p: list(iter_qrels_batches(p, batch_rows=300)), path)
    assert "line 1001: relevance must be an integer, found 'high'" in str(err)


@pytest.mark.parametrize(
    "line",
    [
        "q2  d1 1 2.5 run",  # Q0 missing: a doubled space would pass for an empty Q0 field
        " q2 Q0 d1 1 2.5",  # tag missing: a leading space would pass for an empty query id
    ],
)
def test_an_empty_field_is_not_a_field(tmp_path, line):
    path = tmp_path / "r.txt"
    path.write_text("q1 Q0 d1 1 2.5 run\n" + line + "\n")
    err = error(read_run, path)
    assert err.line == 2 and "expected 6 fields" in str(err)


# --- quotes left open ----------------------------------------------------------------------------


def whole_and_streamed(reader, streamer):
    """Both ways a file is read: whole, and in batches of 2 rows."""
    return [reader, lambda p: list(streamer(p, batch_rows=2))]


@pytest.mark.parametrize("read", whole_and_streamed(read_records, iter_record_batches))
@pytest.mark.parametrize(
    ("row", "broken", "message"),
    [
        # No quote after it: the value would run to the end of the file.
        ("c{i},text {i}", 'c5,"never closed', "a quote opened on this line is never closed"),
        # The next row's opening quote closes it, and that row's text follows the quote.
        ('c{i},"text {i}, quoted"', 'c5,"left open', "is not closed before line 8"),
    ],
)
def test_a_quote_left_open_names_the_line_it_opened_on(tmp_path, read, row, broken, message):
    lines = ["id,text"] + [row.format(i=i) for i in range(10)]
    lines[6] = broken
    err = error(read, put(tmp_path, "c.csv", "\n".join(lines) + "\n"))
    assert err.line == 7 and message in err.problem, str(err)


@pytest.mark.parametrize("read", whole_and_streamed(read_qrels, iter_qrels_batches))
def test_a_quote_left_open_in_tsv_qrels(tmp_path, read):
    path = put(tmp_path, "q.tsv", 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t"d2\t1\nq2\td3\t0\n')
    err = error(read, path)
    assert err.line == 3 and "never closed" in err.problem


@pytest.mark.parametrize("read", whole_and_streamed(read_records, iter_record_batches))
def test_sound_quoting_still_reads(tmp_path, read):
    content = (
        'id,text\nc1,"two\nlines"\nc2,5" screen\nc3,"say ""hi"", twice"\n'
        'c4,"a, b\n\nc, after a blank line"\nc5,plain\n'
    )
    frames = read(put(tmp_path, "c.csv", content))
    frame = frames if isinstance(frames, pd.DataFrame) else pd.concat(frames, ignore_index=True)
    assert frame["text"].tolist() == [
        "two\nlines", '5" screen', 'say "hi", twice', "a, b\n\nc, after a blank line", "plain"
    ]


def test_a_stray_quote_after_a_closing_quote_on_one_line(tmp_path):
    err = error(read_records, put(tmp_path, "c.csv", 'id,text\nc1,"a"b\nc2,"x\ny"\n'))
    assert err.line == 2 and "text follows the closing quote" in err.problem


# --- JSON booleans -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reader", "rows", "line", "message"),
    [
        (read_qrels, [{"qid": "q", "docid": "a", "grade": True}], 1, "found the boolean true"),
        (
            read_qrels,
            [{"qid": "q", "docid": "a", "grade": 1}, {"qid": "q", "docid": "b", "grade": False}],
            2,
            "relevance must be an integer, found the boolean false",
        ),
        (
            lambda p: list(iter_qrels_batches(p, batch_rows=1)),
            [{"qid": "q", "docid": "a", "grade": 2}, {"qid": "q", "docid": "b", "grade": True}],
            2,
            "found the boolean true",
        ),
        (read_run, [{"qid": "q", "docid": "a", "score": False}], 1, "score must be a finite"),
        (read_run, [{"qid": "q", "docid": "a", "rank": True}], 1, "rank must be an integer"),
    ],
)
def test_json_booleans_are_not_numbers(tmp_path, reader, rows, line, message):
    path = put(tmp_path, "x.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    err = error(reader, path)
    assert err.line == line and message in err.problem, str(err)


# --- ids a TREC file could not hold ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("reader", "name", "content", "line", "shown"),
    [
        (read_qrels, "q.txt", "q1 0 d1 1\nq1 0 d\u00a02 1\n", 2, "doc_id 'd\\xa02'"),
        (read_qrels, "q.txt", "q\x1f1 0 d1 1\n", 1, "U+001F"),
        (read_run, "r.txt", TREC_RUN_OK + "q1 Q0 d\u20282 2 1 t\n", 2, "U+2028"),
        (
            lambda p: list(iter_run_batches(p, batch_rows=1)),
            "r.txt",
            TREC_RUN_OK * 3 + "q1 Q0 d\x0c2 2 1 t\n",
            4,
            "U+000C",
        ),
        (read_qrels, "q.csv", "qid,docid,label\nq,a b,1\n", 2, "a space"),
        (read_run, "r.jsonl", '{"qid": "q\\r", "docid": "a", "score": 1}\n', 1, "carriage"),
        (read_records, "c.csv", "id,text\nok,x\n\n\"two\twords\",y\n", 4, "a tab"),
        (read_records, "c.jsonl", '{"id": "a", "doc_id": "d 1"}\n', 1, "doc_id 'd 1'"),
    ],
)
def test_ids_with_whitespace_or_controls_are_refused(tmp_path, reader, name, content, line, shown):
    err = error(reader, put(tmp_path, name, content))
    assert err.line == line, str(err)
    assert shown in err.problem and "whitespace, control or invisible formatting" in err.problem


def test_ids_in_any_script_are_fine(tmp_path):
    frame = read_qrels(put(tmp_path, "q.txt", "é1 0 文書-2 1\nمرحبا 0 d 1\n"))
    assert frame["doc_id"].tolist() == ["文書-2", "d"]
    assert frame["query_id"].tolist() == ["é1", "مرحبا"]  # right-to-left text, no bidi control


# --- a damaged first TREC line ----------------------------------------------------------


@pytest.mark.parametrize(
    ("reader", "content", "message"),
    [
        (read_qrels, "q1 0 d1\nq1 0 d2 1\n", "line 1: expected 4 fields (query iter doc rel"),
        (read_qrels, "q1\t0\td1\tyes\n", "line 1: relevance is not a number: 'yes'"),
        (read_run, "q1 Q0 d1 1 2.5\n", "line 1: expected 6 fields (query Q0 doc rank score tag), "
         "found 5; missing: tag"),
        (read_run, "q1 Q0 d1 one 2.5 t\n", "line 1: rank is not a number: 'one'"),
    ],
)
def test_a_damaged_first_trec_line_names_the_line_and_field(tmp_path, reader, content, message):
    assert message in str(error(reader, put(tmp_path, "x.txt", content)))


def test_a_header_with_a_column_name_is_still_a_header(tmp_path):
    err = error(read_qrels, put(tmp_path, "q.tsv", "query\tdoc\tscore\nq1\td1\t1\n"))
    assert "missing required column 'query_id'" in err.problem and err.line == 1
