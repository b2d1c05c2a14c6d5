"""Accounts and roles: hashes not passwords, sign-in, and the role check at every write."""

from __future__ import annotations

import ast
import concurrent.futures
import hashlib
import importlib
import importlib.util
import inspect
import io
import json
import pkgutil
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from argon2 import PasswordHasher

import labeling
from labeling import evidence_marks
from labeling.commands.cli import main
from labeling.errors import InputError, ScorecardError
from labeling.evaluation.inputs import locked_splits, score_defaults
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.planning import tuning
from labeling.evaluation.scores import judged_coverage, score_history
from labeling.evaluation.views import deciding_pairs, drilldown, failure_tags
from labeling.files import baseline, chunk_uploads, uploads
from labeling.files import importers as imports
from labeling.judging import agreement, corpus_search, guideline, pooling, queue
from labeling.machine_judging import audit_sample, judge_prompts, machine_judge
from labeling.model_calls.chat import ChatClient
from labeling.rechunking import splitter, transfer
from labeling.synthetic import batches, quality_model, review
from labeling.synthetic import importers as synthetic_imports
from labeling.synthetic import settings as synthetic_settings
from labeling.synthetic.candidate import Candidate
from labeling.workspace import (
    accounts,
    chunk_sets,
    connections,
    contents,
    grading,
    judgments,
    lockout,
    query_store,
    roles,
    sessions,
    store,
)
from labeling.workspace.evidence import attach_evidence

PASSWORDS = {"ada": "ada-secret-1", "bob": "bob-secret-2", "vic": "vic-secret-3"}
ROLES = {"ada": "admin", "bob": "annotator", "vic": "viewer"}


@pytest.fixture(autouse=True)
def _cheap_hashes(fast_hashes) -> None:
    """Accounts are made by the dozen here: cheap argon2 parameters (tests/conftest.py)."""


@pytest.fixture
def db(make_workspace):
    """A demo copy with an admin (ada), an annotator (bob) and a viewer (vic)."""
    return make_workspace("demo", accounts={n: (role, PASSWORDS[n]) for n, role in ROLES.items()})


def fingerprint(db) -> str:
    """A digest of every row of every table (what 'nothing changed' means)."""
    digest = hashlib.sha256()
    for line in db.conn.iterdump():
        digest.update(line.encode())
    return digest.hexdigest()


def pair(db) -> tuple[str, str]:
    q, c = db.conn.execute(
        "SELECT query_id, chunk_id FROM run_results ORDER BY query_id, chunk_id LIMIT 1"
    ).fetchone()
    return q, c


# ---------------------------------------------------------------------------------------------
# Passwords and sign-in


def test_passwords_are_stored_only_as_salted_hashes(db):
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
    raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    for password in PASSWORDS.values():
        assert password.encode() not in raw
        assert password.encode("utf-16-le") not in raw
    hashes = [r[0] for r in db.conn.execute("SELECT password_hash FROM users")]
    assert all(h.startswith("$argon2id$") for h in hashes)
    # salted: the same password twice gives two different hashes
    assert accounts.hash_password("same-password") != accounts.hash_password("same-password")
    assert all("password" not in user for user in accounts.list_users(db))


def test_sign_in_needs_the_right_password(db):
    assert accounts.authenticate(db, "ada", PASSWORDS["ada"]) == "admin"
    assert accounts.authenticate(db, " bob ", PASSWORDS["bob"]) == "annotator"
    assert accounts.authenticate(db, "ada", PASSWORDS["bob"]) is None
    assert accounts.authenticate(db, "ada", PASSWORDS["ada"].upper()) is None
    assert accounts.authenticate(db, "ada", "") is None
    assert accounts.authenticate(db, "nobody", PASSWORDS["ada"]) is None
    assert accounts.authenticate(db, "", "") is None


def test_account_input_is_checked(db):
    with pytest.raises(InputError, match="at least 8"):
        accounts.add_user(db, "eve", "viewer", "short")
    with pytest.raises(InputError, match="role must be"):
        accounts.add_user(db, "eve", "superuser", "long-enough-1")
    with pytest.raises(InputError, match="account name"):
        accounts.add_user(db, "<script>", "viewer", "long-enough-1")
    with pytest.raises(InputError, match="already exists"):
        accounts.add_user(db, "ada", "viewer", "long-enough-1")
    with pytest.raises(InputError, match="no account"):
        accounts.set_role(db, "eve", "viewer")


def test_the_last_admin_stays_until_the_last_account_goes(db):
    with pytest.raises(InputError, match="last admin"):
        accounts.set_role(db, "ada", "viewer")
    with pytest.raises(InputError, match="last admin"):
        accounts.remove_user(db, "ada")
    accounts.set_role(db, "bob", "admin")
    accounts.set_role(db, "ada", "viewer")
    for name in ("ada", "vic", "bob"):
        accounts.remove_user(db, name)
    assert not roles.accounts_enabled(db)


# ---------------------------------------------------------------------------------------------
# Sign-in attempts: counted in the workspace, per name and per address, with doubling pauses

T0 = 1_800_000_000.0  # a fixed clock: every pause below is arithmetic, nothing sleeps


def attempt(db, name: str, password: str, address: str | None = "10.0.0.7", now: float = T0):
    """The role, or the refusal's sentence."""
    try:
        return lockout.sign_in(db, name, password, address, now=now)
    except lockout.SignInRefused as refused:
        return str(refused)


def test_pauses_double_from_the_limit_up_to_the_cap():
    limit = lockout.ACCOUNT_LIMIT
    assert [lockout.pause_after(n, limit) for n in range(1, limit)] == [0.0] * (limit - 1)
    first = lockout.FIRST_PAUSE_SECONDS
    assert [lockout.pause_after(limit + i, limit) for i in range(4)] == [
        first, 2 * first, 4 * first, 8 * first
    ]
    assert lockout.pause_after(limit + 50, limit) == lockout.MAX_PAUSE_SECONDS
    assert lockout.pause_after(10**6, limit) == lockout.MAX_PAUSE_SECONDS


def sign_in_pause(db, name: str, address: str | None, *, now: float) -> float:
    """Seconds until ``name`` may try to sign in from ``address`` again (0.0: now)."""
    until = db.conn.execute(
        "SELECT max(paused_until) FROM sign_in_failures"
        " WHERE (scope = 'account' AND key = ?) OR (scope = 'address' AND key = ?)",
        [name, address or lockout.LOCAL_ADDRESS],
    ).fetchone()[0]
    return max(0.0, (until or 0.0) - now)


def test_failed_sign_ins_pause_the_name_and_survive_a_new_connection(db):
    for _ in range(lockout.ACCOUNT_LIMIT):
        assert attempt(db, "ada", "wrong-password") == "Wrong name or password."
    # The right password, too soon: refused without being checked.
    assert attempt(db, "ada", PASSWORDS["ada"]) == (
        "Too many failed sign-ins for this name: try again in 60 s."
    )
    # A reload or a new browser session is a new connection to the same file.
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    again = store.open_workspace(path)
    assert "try again in 50 s" in attempt(again, "ada", PASSWORDS["ada"], now=T0 + 10)
    assert sign_in_pause(again, "ada", "10.0.0.8", now=T0 + 10) == 50.0
    # Another name from the same address is not paused (the address limit is higher).
    assert attempt(again, "bob", PASSWORDS["bob"], now=T0 + 10) == "annotator"
    # After the pause the right password works and the name's count starts again.
    assert attempt(again, "ada", PASSWORDS["ada"], now=T0 + 60) == "admin"
    assert attempt(again, "ada", "wrong-password", now=T0 + 61) == "Wrong name or password."
    assert sign_in_pause(again, "ada", None, now=T0 + 61) == 0.0


def test_each_further_failure_doubles_the_pause(db):
    now = T0
    for _ in range(lockout.ACCOUNT_LIMIT):
        attempt(db, "ada", "wrong-password", now=now)
    pauses = []
    for _ in range(6):
        pause = sign_in_pause(db, "ada", None, now=now)
        pauses.append(pause)
        now += pause
        assert attempt(db, "ada", "wrong-password", now=now) == "Wrong name or password."
    assert pauses == [60.0, 120.0, 240.0, 480.0, 900.0, 900.0]
    assert sign_in_pause(db, "ada", None, now=now) == lockout.MAX_PAUSE_SECONDS


def test_unknown_names_are_paused_alike(db):
    """A pause says nothing about whether an account exists."""
    for name in ("ada", "nobody"):
        for _ in range(lockout.ACCOUNT_LIMIT):
            assert attempt(db, name, "wrong-password") == "Wrong name or password."
        assert "for this name" in attempt(db, name, "wrong-password")


def test_one_address_is_paused_after_many_names(db):
    names = [f"user{i}" for i in range(lockout.ADDRESS_LIMIT)]
    for name in names:
        assert attempt(db, name, "wrong-password") == "Wrong name or password."
    assert attempt(db, "ada", PASSWORDS["ada"]) == (
        "Too many failed sign-ins from this address: try again in 60 s."
    )
    assert attempt(db, "ada", PASSWORDS["ada"], address="10.0.0.8") == "admin"
    assert attempt(db, "bob", PASSWORDS["bob"], address=None) == "annotator"  # loopback


def test_a_quiet_hour_forgets_the_count(db):
    for _ in range(lockout.ACCOUNT_LIMIT - 1):
        attempt(db, "ada", "wrong-password")
    later = T0 + lockout.FORGET_SECONDS
    for _ in range(lockout.ACCOUNT_LIMIT - 1):
        assert attempt(db, "ada", "wrong-password", now=later) == "Wrong name or password."
    assert sign_in_pause(db, "ada", None, now=later) == 0.0
    rows = db.conn.execute("SELECT count(*) FROM sign_in_failures").fetchone()[0]
    assert rows == 2  # this name and this address; nothing else accumulates


def test_parallel_attempts_get_no_more_guesses(db):
    """Ten sessions guessing at once (one connection each): the attempts are counted before
    the passwords are checked, so exactly the limit of them is checked."""
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    handles = [store.open_workspace(path) for _ in range(10)]
    start = threading.Barrier(len(handles))

    def guess(handle):
        start.wait(timeout=60)  # all ten start together, or the test fails (BrokenBarrierError)
        return attempt(handle, "ada", "wrong-password")

    with concurrent.futures.ThreadPoolExecutor(len(handles)) as pool:
        answers = list(pool.map(guess, handles))
    assert answers.count("Wrong name or password.") == lockout.ACCOUNT_LIMIT
    assert sum("Too many failed sign-ins" in a for a in answers) == 10 - lockout.ACCOUNT_LIMIT


# ---------------------------------------------------------------------------------------------
# Sessions: signed, expiring tokens checked against the workspace


def open_session(db, name: str = "bob", now: float = T0) -> tuple[sessions.Session, str]:
    """A session of ``name`` and its cookie token (the ticket traded as the browser would)."""
    session, ticket = sessions.start_session(db, name, "10.0.0.7", now=now)
    token, expires = sessions.redeem_ticket(db, ticket, now=now + 1)
    assert expires == session.expires_at
    return session, token


def test_a_ticket_is_traded_once_for_a_token_that_resumes_the_session(db):
    session, ticket = sessions.start_session(db, "bob", None, now=T0)
    assert sessions.ticket_open(db, session.id, now=T0 + 1)
    assert sessions.redeem_ticket(db, ticket, now=T0 + sessions.TICKET_SECONDS) is None  # too late
    session, ticket = sessions.start_session(db, "bob", None, now=T0)
    token, _ = sessions.redeem_ticket(db, ticket, now=T0 + 1)
    assert sessions.redeem_ticket(db, ticket, now=T0 + 2) is None  # only once
    assert not sessions.ticket_open(db, session.id, now=T0 + 2)
    assert sessions.redeem_ticket(db, "made-up-ticket", now=T0 + 2) is None
    resumed = sessions.resume_session(db, token, now=T0 + 3)
    assert resumed == sessions.Session(session.id, "bob", session.expires_at)
    assert sessions.session_account(db, session.id, now=T0 + 3) == "bob"
    # A server restart: a new connection verifies it with the stored signing key.
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    assert sessions.resume_session(store.open_workspace(path), token, now=T0 + 3) == resumed


def test_a_wrong_ticket_never_takes_the_write_lock(db):
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    for attempt in range(20):
        assert sessions.redeem_ticket(db, f"bogus-{attempt}", now=T0) is None
    assert sessions.redeem_ticket(db, "", now=T0) is None
    assert [s for s in statements if s.startswith("BEGIN")] == []
    _, ticket = sessions.start_session(db, "bob", None, now=T0)
    statements.clear()
    assert sessions.redeem_ticket(db, ticket, now=T0 + 1) is not None  # a real one still works
    assert [s for s in statements if s.startswith("BEGIN")] == ["BEGIN IMMEDIATE"]
    db.conn.set_trace_callback(None)


def test_tokens_are_stored_only_as_hashes(db):
    _, token = open_session(db)
    dump = "\n".join(db.conn.iterdump())
    assert token not in dump and token.rsplit(".", 1)[1] not in dump
    assert hashlib.sha256(token.encode()).hexdigest() in dump


def test_a_token_expires(db):
    session, token = open_session(db)
    assert session.expires_at - T0 == pytest.approx(sessions.SESSION_SECONDS, abs=1)
    assert sessions.resume_session(db, token, now=session.expires_at - 1)
    assert sessions.resume_session(db, token, now=session.expires_at) is None
    assert sessions.session_account(db, session.id, now=session.expires_at) is None


def _swap(text: str, index: int) -> str:
    return text[:index] + ("A" if text[index] != "A" else "B") + text[index + 1:]


def test_a_tampered_token_does_not_verify(db, make_workspace):
    session, token = open_session(db)
    version, session_id, expires, nonce, signature = token.split(".")
    other, _ = open_session(db, "ada")
    forged = [
        _swap(token, len(token) - 1),  # the signature
        ".".join([version, str(other.id), expires, nonce, signature]),  # another session
        ".".join([version, session_id, str(int(expires) + 3600), nonce, signature]),  # longer
        ".".join([version, session_id, expires, _swap(nonce, 0), signature]),
        ".".join(["v0", session_id, expires, nonce, signature]),
        token + ".x", token.replace(".", ""), "", None,
    ]
    for bad in forged:
        assert sessions.resume_session(db, bad, now=T0 + 1) is None, bad
    # Signed by another workspace's key (right format, right id): refused.
    other_db = make_workspace("demo")
    # No function changes a workspace's key: a copy of the same template gets a new one here.
    other_db.conn.execute("UPDATE signing_key SET secret = randomblob(32)")
    accounts.add_user(other_db, "bob", "annotator", PASSWORDS["bob"])
    _, foreign = open_session(other_db)
    assert sessions.cookie_name(other_db) != sessions.cookie_name(db)
    assert sessions.resume_session(db, foreign, now=T0 + 1) is None
    assert sessions.resume_session(db, token, now=T0 + 1)  # the genuine one still works


def test_a_sign_out_ends_every_session_of_the_account(db):
    first, first_token = open_session(db)
    second, second_token = open_session(db)
    other, other_token = open_session(db, "ada")
    assert sessions.end_sessions(db, "bob", now=T0 + 5) == 2
    for session, token in ((first, first_token), (second, second_token)):
        assert sessions.resume_session(db, token, now=T0 + 6) is None
        assert sessions.session_account(db, session.id, now=T0 + 6) is None
    assert sessions.resume_session(db, other_token, now=T0 + 6).account == "ada"


def test_a_password_change_ends_the_sessions(db):
    session, token = open_session(db, now=time.time())
    other, _ = open_session(db, "ada", now=time.time())
    accounts.set_password(db, "bob", "a-new-password")
    assert sessions.resume_session(db, token) is None
    assert sessions.session_account(db, session.id) is None
    assert sessions.session_account(db, other.id) == "ada"


def test_a_role_change_ends_the_sessions_and_the_same_role_does_not(db):
    session, _ = open_session(db, now=time.time())
    accounts.set_role(db, "bob", "annotator")  # no change
    assert sessions.session_account(db, session.id) == "bob"
    accounts.set_role(db, "bob", "viewer")
    assert sessions.session_account(db, session.id) is None


def test_a_removed_account_loses_its_sessions(db):
    _, token = open_session(db, now=time.time())
    accounts.remove_user(db, "bob")
    assert sessions.resume_session(db, token) is None
    assert db.conn.execute("SELECT count(*) FROM sessions WHERE account = 'bob'").fetchone() == (0,)


def test_a_stronger_hash_on_sign_in_keeps_the_sessions(db, monkeypatch):
    session, _ = open_session(db, now=time.time())
    monkeypatch.setattr(accounts, "_HASHER", PasswordHasher(time_cost=2, memory_cost=16,
                                                        parallelism=1))
    old_hash = db.conn.execute("SELECT password_hash FROM users WHERE name = 'bob'").fetchone()
    assert lockout.sign_in(db, "bob", PASSWORDS["bob"], None) == "annotator"
    assert db.conn.execute("SELECT password_hash FROM users WHERE name = 'bob'").fetchone() != (
        old_hash
    )
    assert sessions.session_account(db, session.id) == "bob"


def test_an_ended_session_is_anonymous_to_the_role_check(db):
    """The app's resolver maps a browser session to its session row's account: once the row
    is revoked, that session's writes are refused like a signed-out visitor's."""
    session, _ = open_session(db, now=time.time())
    q, c = pair(db)
    previous = roles._resolver
    roles.set_actor_resolver(lambda handle: sessions.session_account(handle, session.id) or "")
    try:
        judgments.add_judgment(db, q, c, 1, "bob")
        sessions.end_sessions(db, "bob")
        with pytest.raises(roles.AccessDenied, match="nobody is signed in: saving a judgment"):
            judgments.add_judgment(db, q, c, 2, "bob")
    finally:
        roles.set_actor_resolver(previous)


@pytest.mark.parametrize(("address", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("::ffff:127.0.0.1", True), ("", False), (None, False),
    ("0.0.0.0", False), ("::", False), ("192.168.1.4", False), ("scorecard.example", False),
])
def test_loopback_addresses(address, loopback):
    assert lockout.is_loopback(address) is loopback


# ---------------------------------------------------------------------------------------------
# The role check


def test_sign_in_is_off_without_accounts(make_workspace):
    db = make_workspace("demo")
    q, c = pair(db)
    with roles.acting_as(roles.ANONYMOUS):
        judgments.add_judgment(db, q, c, 1, "someone")
        query_store.add_query(db, "a new query")


def test_owner_is_trusted_and_anonymous_is_refused(db):
    q, c = pair(db)
    judgments.add_judgment(db, q, c, 1, "script")  # no actor: the file owner
    before = fingerprint(db)
    for actor in (roles.ANONYMOUS, "nobody"):
        with roles.acting_as(actor), pytest.raises(roles.AccessDenied, match="needs an account"):
            judgments.add_judgment(db, q, c, 1, "x")
    assert fingerprint(db) == before


def test_annotator_judges_but_cannot_import_edit_or_manage(db, tmp_path):
    q, c = pair(db)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"{q} 0 {c} 1\n")
    with roles.acting_as("bob"):
        judgments.add_judgment(db, q, c, 2, "bob")
        before = fingerprint(db)
        with pytest.raises(roles.AccessDenied, match="bob is an annotator: importing needs"):
            imports.import_qrels(db, qrels)
        with pytest.raises(roles.AccessDenied):
            uploads.import_bytes(db, "qrels", "q.txt", qrels.read_bytes(), annotator="b")
        with pytest.raises(roles.AccessDenied):
            query_store.assign_split(db, 0.5, 1)
        with pytest.raises(roles.AccessDenied, match="managing accounts"):
            accounts.add_user(db, "eve", "admin", "long-enough-1")
        with pytest.raises(roles.AccessDenied, match="locking the test split needs"):
            locked_splits.lock_split(db, "bob", rule="default")
        with pytest.raises(roles.AccessDenied):
            locked_splits.unlock_split(db)
        assert fingerprint(db) == before
    with roles.acting_as("ada"):
        assert imports.import_qrels(db, qrels).rows == 1


def test_role_changes_and_removals_apply_to_the_next_write(db):
    q, c = pair(db)
    with roles.acting_as("bob"):
        judgments.add_judgment(db, q, c, 1, "bob")
        with pytest.raises(roles.AccessDenied):  # nobody promotes themselves
            accounts.set_role(db, "bob", "admin")
    accounts.set_role(db, "bob", "viewer")
    with roles.acting_as("bob"), pytest.raises(roles.AccessDenied, match="bob is a viewer"):
        judgments.add_judgment(db, q, c, 1, "bob")
    accounts.remove_user(db, "bob")
    with roles.acting_as("bob"), pytest.raises(roles.AccessDenied, match="no account 'bob'"):
        judgments.add_judgment(db, q, c, 1, "bob")


def test_the_app_resolver_supplies_the_actor(db):
    q, c = pair(db)
    previous = roles._resolver  # the app's, when an AppTest ran in this process
    roles.set_actor_resolver(lambda db: "vic")
    try:
        with pytest.raises(roles.AccessDenied):
            judgments.add_judgment(db, q, c, 1, "vic")
        with roles.acting_as(None):  # an explicit actor wins over the resolver
            judgments.add_judgment(db, q, c, 1, "owner")
    finally:
        roles.set_actor_resolver(previous)


# ---------------------------------------------------------------------------------------------
# A viewer cannot write through any public function


def _write_calls(db, tmp_path: Path) -> dict[str, object]:
    """Every public write of ``labeling``, called with valid arguments."""
    q, c = pair(db)
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text('{"id": "new-c", "text": "t"}\n')
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": "new-q", "text": "t"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"{q} 0 {c} 1\n")
    run = tmp_path / "run.txt"
    run.write_text(f"{q} Q0 {c} 1 1.5 x\n")
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "b1", "text": "t"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "bq1", "text": "t"}\n')
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nbq1\tb1\t1\n")
    table = query_store.queries_table(db).head(1).assign(split="test")
    values = tmp_path / "values.parquet"  # per-query values of a run scored on a cluster
    pd.DataFrame({"query_id": [q], "P@5": [0.2]}).to_parquet(values, index=False)
    with roles.acting_as(None):  # a judgment saved a moment ago, its answer picked next
        relevant = judgments.add_judgment(db, q, c, 2, "ev-owner")
    answer = evidence_marks.placed_chunk(db, c).sentences()[:1]
    calls = {
        "judgments.add_judgment": lambda: judgments.add_judgment(db, q, c, 1, "vic"),
        "evidence.attach_evidence": lambda: attach_evidence(db, relevant, answer, "ev-owner"),
        "grading.set_scale": lambda: grading.set_scale(db, grading.GRADED_SCALE),
        "grading.set_default_relevance": lambda: grading.set_default_relevance(db, 2),
        "score_defaults.set_score_defaults":
            lambda: score_defaults.set_score_defaults(db, ["R@5"], by="vic"),
        "importers.records.import_chunks": lambda: imports.import_chunks(db, chunks),
        "importers.records.import_queries": lambda: imports.import_queries(db, queries),
        "importers.qrels.import_qrels": lambda: imports.import_qrels(db, qrels),
        "importers.runs.import_run": lambda: imports.import_run(db, run, "new-run"),
        "importers.beir.import_beir": lambda: imports.import_beir(db, beir),
        "importers.values.import_values": lambda: imports.import_values(db, values, "scored"),
        "query_store.add_query": lambda: query_store.add_query(db, "new query"),
        "query_store.update_queries": lambda: query_store.update_queries(db, table),
        "query_store.assign_split": lambda: query_store.assign_split(db, 0.5, 3),
        "uploads.import_bytes": lambda: uploads.import_bytes(
            db, "run", "r.txt", run.read_bytes(), run_name="r2"
        ),
        "baseline.bm25_run": lambda: baseline.bm25_run(db, run_name="bm25-new", k=5),
        "accounts.add_user": lambda: accounts.add_user(db, "eve", "admin", "long-enough-1"),
        "accounts.remove_user": lambda: accounts.remove_user(db, "bob"),
        "accounts.set_role": lambda: accounts.set_role(db, "vic", "admin"),
        "accounts.set_password": lambda: accounts.set_password(db, "ada", "long-enough-1"),
    }
    calls.update(_feature_write_calls(db, q, c))
    calls.update(_chunking_write_calls(db, tmp_path))
    return calls


def _chunking_write_calls(db, tmp_path: Path) -> dict[str, object]:
    """The writes of documents, chunk sets and label transfers (the demo has documents)."""
    text = db.conn.execute("SELECT text FROM documents WHERE id = 'leave'").fetchone()[0]
    piece = text[text.index("## "):][:200]
    documents = tmp_path / "documents.jsonl"
    documents.write_text(json.dumps({"id": "new-doc", "text": "A new document."}) + "\n")
    chunks = tmp_path / "chunk-set.jsonl"
    chunks.write_text(json.dumps({"id": "set-c1", "doc_id": "leave", "text": piece}) + "\n")
    with roles.acting_as(None):  # the owner prepares a chunk set to transfer labels to
        splitter.rechunk_documents(db, "prepared", 900)
    run = contents.run_names(db)[0]
    return {
        "importers.documents.import_documents": lambda: imports.import_documents(db, documents),
        "importers.chunk_sets.import_chunk_set": lambda: imports.import_chunk_set(
            db, chunks, "new-set"),
        "chunk_uploads.import_documents_bytes": lambda: chunk_uploads.import_documents_bytes(
            db, [("up.md", b"# Up\n\nUploaded.\n")]),
        "chunk_uploads.import_chunk_set_bytes": lambda: chunk_uploads.import_chunk_set_bytes(
            db, "c.jsonl", chunks.read_bytes(), "uploaded-set"),
        "rechunking.splitter.rechunk_documents": lambda: splitter.rechunk_documents(
            db, "rechunked", 700),
        "rechunking.transfer.transfer_labels": lambda: transfer.transfer_labels(
            db, "sections", "prepared"),
        "chunk_sets.set_run_versioning": lambda: chunk_sets.set_run_versioning(
            db, run, embedding_model="e5"),
    }


def _feature_write_calls(db, q: str, c: str) -> dict[str, object]:
    """The writes of the labeling queue, the dashboard and synthetic review."""
    calls: dict[str, object] = {}
    with roles.acting_as(None):  # the owner prepares a judgment to undo
        judgment = queue.save_judgment(db, q, c, 1, "vic")
    calls.update({
        "queue.enqueue_pairs": lambda: queue.enqueue_pairs(db, [(q, c)], reason="t"),
        "queue.set_overlap_share": lambda: queue.set_overlap_share(db, 0.3),
        "queue.save_judgment": lambda: queue.save_judgment(db, q, c, 2, "vic"),
        "queue.skip": lambda: queue.skip(db, q, c, "vic"),
        "queue.undo": lambda: queue.undo(db, judgment, "vic"),
        "queue.rejudge": lambda: queue.rejudge(db, query_id=q, requested_by="vic"),
        "queue.cant_judge": lambda: queue.cant_judge(db, q, c, "vic", "unclear"),
        "pooling.build_pool": lambda: pooling.build_pool(db, contents.run_names(db)),
        "agreement.adjudicate": lambda: agreement.adjudicate(db, q, c, 2, "vic"),
        "corpus_search.judge_found": lambda: corpus_search.judge_found(
            db, q, c, 2, "vic", search_text="found"),
        "guideline.set_guideline": lambda: guideline.set_guideline(db, "Grade 3: all of it."),
    })
    run = contents.run_names(db)[0]
    with roles.acting_as(None):
        failure_tags.add_failure_tag(db, "prepared-tag")
    calls.update({
        "drilldown.judge": lambda: drilldown.judge(db, q, c, 1, "vic"),
        "failure_tags.add_failure_tag": lambda: failure_tags.add_failure_tag(db, "new-tag"),
        "failure_tags.tag_failure": lambda: failure_tags.tag_failure(
            db, q, run, ["prepared-tag"], "vic"
        ),
        "locked_splits.lock_split": lambda: locked_splits.lock_split(db, "vic", rule="default"),
        "locked_splits.unlock_split": lambda: locked_splits.unlock_split(db),
        "score_history.save_snapshot": lambda: score_history.save_snapshot(
            db, Controls(run, ("P@5",))),
        "judged_coverage.send_unjudged_to_queue": lambda: judged_coverage.send_unjudged_to_queue(
            db, [(q, c)]
        ),
    })
    def candidate(text: str) -> Candidate:
        return Candidate(chunk_id=c, question=text, generator="offline")

    with roles.acting_as(None):
        ids = review.add_candidates(db, [candidate(f"Prepared question {i}?") for i in (1, 2)])
    calls.update({
        "synthetic.review.add_candidates": lambda: review.add_candidates(
            db, [candidate("What is new?")]
        ),
        "synthetic.review.accept": lambda: review.accept(db, ids[0], "vic"),
        "synthetic.review.accept_many": lambda: review.accept_many(db, ids, "vic"),
        "synthetic.review.reject": lambda: review.reject(db, ids[1], "vic", "off topic"),
        "synthetic.review.reject_many": lambda: review.reject_many(
            db, ids, "vic", "off topic"
        ),
        "synthetic.batches.run": lambda: batches.run(db, 2, seed=1),
        "synthetic.settings.set_settings": lambda: synthetic_settings.set_settings(
            db, {"quality_floor": 0.5}
        ),
        "synthetic.quality_model.refit": lambda: quality_model.refit(db),
        "synthetic.quality_model.rescore": lambda: quality_model.rescore(
            db, quality_model.DEFAULT_WEIGHTS
        ),
    })
    text = db.conn.execute("SELECT text FROM chunks WHERE id = ?", [c]).fetchone()[0]
    folder = Path(tempfile.mkdtemp())
    llama = folder / "llama.json"
    llama.write_text(json.dumps({
        "queries": {"n1": "What is new here?"}, "corpus": {"d1": text},
        "relevant_docs": {"n1": ["d1"]},
    }))
    ragas = folder / "ragas.jsonl"
    ragas.write_text(json.dumps({"user_input": "What is new?", "reference_contexts": [text]}))
    calls["synthetic.importers.import_llamaindex"] = lambda: synthetic_imports.import_llamaindex(
        db, llama
    )
    calls["synthetic.importers.import_ragas"] = lambda: synthetic_imports.import_ragas(db, ragas)
    calls.update(_machine_and_budget_write_calls(db, q, c, run))
    return calls


def _machine_and_budget_write_calls(db, q: str, c: str, run: str) -> dict[str, object]:
    """The writes of machine judges, audit samples and the pairs that decide a comparison."""
    judge = machine_judge.Judge("tiny-model", judge_prompts.load_prompt("v1"))
    with roles.acting_as(None):
        batch = machine_judge.start_batch(db, judge, [(q, c)], "prepared")
    # Nothing listens on port 9: the owner's call fails to connect, a viewer's never starts.
    client = ChatClient("http://127.0.0.1:9/v1", "tiny-model", retries=0, timeout=0.5)
    other = [name for name in contents.run_names(db) if name != run][0]
    server = ("http://127.0.0.1:9/v1", "tiny-model", "", 10)
    with roles.acting_as(None):
        connections.save_connection(db, connections.MODEL_SERVER, "kept", *server)
    return {
        "connections.save_connection": lambda: connections.save_connection(
            db, connections.MODEL_SERVER, "new", *server),
        "connections.remove_connection": lambda: connections.remove_connection(
            db, connections.MODEL_SERVER, "kept"),
        "machine_judge.start_batch": lambda: machine_judge.start_batch(db, judge, [(q, c)], "t"),
        "machine_judge.run_batch": lambda: machine_judge.run_batch(db, batch, client),
        "audit_sample.draw_audit": lambda: audit_sample.draw_audit(
            db, judge.name, 1.0, runs=[run], relevance=1),
        "deciding_pairs.send_deciding_pairs": lambda: deciding_pairs.send_deciding_pairs(
            db, Controls(run, ("P@5",)), other, "P@5"),
        "tuning.queue_new_results": lambda: tuning.queue_new_results(db, run),
    }


def test_a_viewer_cannot_write_through_any_function(db, tmp_path):
    calls = _write_calls(db, tmp_path)
    before = fingerprint(db)
    with roles.acting_as("vic"):
        for name, call in calls.items():
            with pytest.raises(roles.AccessDenied, match="vic is a viewer"):
                call()
            assert fingerprint(db) == before, name


# What a refusal names, by write function; the others must name some action's phrase too.
REFUSAL_PHRASES = {
    "judgments.add_judgment": "saving a judgment",
    "score_history.save_snapshot": "saving scores to the history",
    "importers.qrels.import_qrels": "importing",
    "importers.values.import_values": "importing",
    "uploads.import_bytes": "importing",
    "queue.skip": "skipping a pair",
    "queue.undo": "undoing a judgment",
    "queue.rejudge": "sending pairs back to the labeling queue",
    "queue.set_overlap_share": "changing the overlap share",
    "grading.set_default_relevance": "changing the workspace's default relevance threshold",
    "score_defaults.set_score_defaults": "changing the dashboard's default measures",
    "pooling.build_pool": "adding pairs to the labeling queue",
    "judged_coverage.send_unjudged_to_queue": "adding pairs to the labeling queue",
    "failure_tags.add_failure_tag": "adding a failure tag",
    "failure_tags.tag_failure": "tagging why a query failed",
    "locked_splits.lock_split": "locking the test split",
    "locked_splits.unlock_split": "unlocking the test split",
    "query_store.add_query": "adding a query",
    "query_store.update_queries": "editing queries",
    "query_store.assign_split": "assigning the dev/test split",
    "baseline.bm25_run": "adding a baseline run",
    "synthetic.review.accept": "accepting synthetic questions",
    "synthetic.review.reject_many": "rejecting synthetic questions",
    "synthetic.batches.run": "adding synthetic questions",
    "accounts.add_user": "managing accounts",
    "importers.documents.import_documents": "importing",
    "importers.chunk_sets.import_chunk_set": "importing",
    "rechunking.transfer.transfer_labels": "transferring labels to another chunk set",
    "chunk_sets.set_run_versioning": "editing a run's fields",
}
GENERIC = {"grading.set_scale"}  # the grade scale: the command line's, "changing the workspace"


def test_a_refusal_names_the_action_refused(db, tmp_path):
    phrases = {phrase for phrase, _ in roles.ACTIONS.values()}
    calls = _write_calls(db, tmp_path)
    assert set(REFUSAL_PHRASES) | GENERIC <= set(calls)
    with roles.acting_as("vic"):
        for name, call in calls.items():
            with pytest.raises(roles.AccessDenied) as refused:
                call()
            said = str(refused.value).removeprefix("vic is a viewer: ").split(" needs ")[0]
            assert said in phrases, (name, said)
            if name in REFUSAL_PHRASES:
                assert said == REFUSAL_PHRASES[name], name
            assert (said == "changing the workspace") == (name in GENERIC), (name, said)
    assert roles.refusal(db, "bob", "import") == (
        "bob is an annotator: importing needs the role admin"
    )
    assert roles.refusal(db, "bob", "judge") is None


# The owner's calls the workspace refuses for a reason other than the role, with the refusal:
# an earlier call in `_write_calls` used up what they need (accept before accept_many), or the
# demo has too little for them. Any other error, and any other refusal, fails the test.
OWNER_REFUSALS = {
    "synthetic.review.accept_many": "candidate [0-9]+ is already accepted",
    "synthetic.review.reject_many": "candidate [0-9]+ is already accepted",
    "synthetic.quality_model.refit": "learning the quality weights needs 30 decided candidates",
    "audit_sample.draw_audit": "the machine judge 'tiny-model@v1' has no labels to audit",
}


def test_the_owner_can_do_every_write(db, tmp_path):
    calls = _write_calls(db, tmp_path)
    assert set(OWNER_REFUSALS) <= set(calls)
    for name, call in calls.items():
        if name not in OWNER_REFUSALS:
            call()  # any error at all fails the test, with its own message
            continue
        with pytest.raises(ScorecardError, match=OWNER_REFUSALS[name]) as refused:
            call()
        assert not isinstance(refused.value, roles.AccessDenied), name


# Write functions of `labeling` are found by what they call: anything reaching the database
# through these names. A new one must be added to `_write_calls` above.
WRITE_MARKERS = {"write_transaction", "add_judgment", "import_transaction"}
LAYER_PACKAGES = {"workspace", "files", "judging", "evaluation", "report", "teaching", "metrics",
                  "machine_judging"}
NOT_PUBLIC_WRITES = {
    "store.write_transaction", "importers.transaction.import_transaction",
    "grading.init_workspace", "demo.build_demo",
    "accounts.authenticate",  # re-hashes the signer's own password on sign-in, as the owner
    # Sign-in bookkeeping (attempt counts, session rows), done as the owner for whoever signs
    # in: anyone may try; the tests below check what each does.
    "lockout.sign_in", "sessions.start_session", "sessions.redeem_ticket", "sessions.end_sessions",
}


def test_every_public_write_function_is_covered(db, tmp_path):
    covered = set(_write_calls(db, tmp_path))
    calls_of: dict[str, set[str]] = {}
    for module_info in pkgutil.walk_packages(labeling.__path__, "labeling."):
        if ".commands." in module_info.name or module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        short = module_info.name.removeprefix("labeling.")
        layer, _, rest = short.partition(".")
        if layer in LAYER_PACKAGES and rest:  # "judging.queue" is called "queue" here
            short = rest
        if layer == "evaluation" and "." in rest:  # and "evaluation.views.drilldown" "drilldown"
            short = rest.partition(".")[2]
        for name, function in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(function):
                continue
            if function.__module__ != module_info.name:
                continue
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
            called = {
                node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
                for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
            }
            calls_of[f"{short}.{name}"] = called
    writers = set(WRITE_MARKERS)
    for _ in range(len(calls_of) + 1):  # a function calling a write function writes too
        found = {f for f, called in calls_of.items() if called & writers}
        names = WRITE_MARKERS | {f.rsplit(".", 1)[1] for f in found}
        if names == writers:  # each round adds a function or stops: at most one per function
            break
        writers = names
    missing = found - covered - NOT_PUBLIC_WRITES
    assert not missing, f"write functions without a role test (add them to _write_calls): {missing}"


# ---------------------------------------------------------------------------------------------
# Command line


def test_the_command_line_offers_the_roles_the_workspace_knows():
    from labeling.commands.access import ROLE_NAMES

    assert ROLE_NAMES == roles.ROLES


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def _cli(capsys, monkeypatch):
    """Run ``scorecard ARGS`` in this process with ``stdin`` as its standard input."""

    def run(*args: str, stdin: str = "") -> Done:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out = capsys.readouterr()
        return Done(code, out.out, out.err)

    return run


def test_cli_manages_accounts(make_workspace, _cli):
    path = make_workspace.path("demo")
    done = _cli("user", "add", str(path), "amy", "--role", "admin", "--password-stdin",
                stdin="amy-password\n")
    assert done.returncode == 0, done.stderr
    assert "sign-in is on" in done.stdout
    done = _cli("user", "add", str(path), "ann", "--role", "annotator", "--password-stdin",
                stdin="ann-password\r\n")
    assert done.returncode == 0, done.stderr
    db = store.open_workspace(path)
    assert accounts.authenticate(db, "ann", "ann-password") == "annotator"
    assert _cli("user", "role", str(path), "ann", "viewer").returncode == 0
    assert roles.role_of(db, "ann") == "viewer"
    done = _cli("user", "remove", str(path), "amy")
    assert done.returncode == 2 and "last admin" in done.stderr
    listing = _cli("user", "list", str(path)).stdout
    assert "amy\tadmin" in listing and "ann\tviewer" in listing and "password" not in listing
    assert _cli("user", "remove", str(path), "ann").returncode == 0
    done = _cli("user", "remove", str(path), "amy")
    assert done.returncode == 0 and "sign-in is off" in done.stdout
    done = _cli("user", "add", str(path), "x", "--role", "viewer", "--password-stdin",
                stdin="short\n")
    assert done.returncode == 2 and "at least 8" in done.stderr
    done = _cli("user", "add", str(path), "x", "--role", "viewer")  # stdin is not a terminal
    assert done.returncode == 2 and "--password-stdin" in done.stderr
    assert not _cli("user", "list", str(path)).stdout


def test_cli_backup(make_workspace, tmp_path, _cli):
    path = make_workspace.path("demo")
    out = tmp_path / "copy.db"
    done = _cli("backup", str(path), str(out))
    assert done.returncode == 0, done.stderr
    assert "backed up to" in done.stdout
    copy = store.open_workspace(out, create=False)
    assert contents.counts(copy) == contents.counts(store.open_workspace(path))
    again = _cli("backup", str(path), str(out))
    assert again.returncode == 2 and "exists" in again.stderr
    assert _cli("backup", str(path), str(out), "--overwrite").returncode == 0
    assert _cli("backup", str(path), str(path), "--overwrite").returncode == 2
    assert not list(tmp_path.glob(".copy.db.partial*"))



def test_only_an_admin_saves_under_another_persons_name(db):
    q, c = pair(db)
    before = fingerprint(db)
    with roles.acting_as("bob"):
        with pytest.raises(roles.AccessDenied, match="bob cannot save a judgment under the name"):
            judgments.add_judgment(db, q, c, 3, "ada")
        with pytest.raises(roles.AccessDenied, match="only an admin"):  # not as a "machine"
            judgments.add_judgment(db, q, c, 3, "ada", origin="machine")
        assert fingerprint(db) == before
        judgments.add_judgment(db, q, c, 1, "bob")
        judgments.add_judgment(db, q, c, 1, "model-x", origin="machine")  # not a person
    with roles.acting_as("ada"):
        judgments.add_judgment(db, q, c, 2, "bob")  # an admin may (adjudication, imports)
    saved = [(r["annotator"], r["grade"]) for r in judgments.judgment_history(db, q, c)[-3:]]
    assert saved == [("bob", 1), ("model-x", 1), ("bob", 2)]
