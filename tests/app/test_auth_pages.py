"""Sign-in in the app, and roles in every page: every write control a role cannot use is
disabled with the refusal as its tooltip, and when a page forgets to disable one (simulated by
making ``_auth.can`` say yes), the click is refused by the library, so the workspace does not
change. (Streamlit 1.67 itself discards a forged change of a disabled widget, so disabling is a
real barrier, not only a look.) Sessions: a sign-out, a password or a role change ends the
account's other sessions on their next run, even a click's callback that runs before the page;
a workspace without accounts is not served on a non-loopback address."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import pytest
from streamlit import config as streamlit_config

from labeling.evaluation.inputs import locked_splits, result_cache
from labeling.judging import pooling
from labeling.markdown import escape_markdown
from labeling.synthetic import batches
from labeling.workspace import accounts as account_admin
from labeling.workspace import contents, lockout, roles, sessions, store
from pages import _auth
from tests.markup import shown
from tests.tables import tables
from tests.workspaces import add_rows

PAGES = sorted(
    p.stem for p in (Path(__file__).resolve().parents[2] / "pages").glob("*.py")
    if not p.stem.startswith("_")
)
# Buttons that write; for a viewer each must be disabled (when the page shows it).
WRITE_BUTTONS = (
    "import_", "add_query", "save_queries", "assign_split", "pool_build", "overlap_save",
    "label_grade_", "adj_save", "rejudge_go", "review_accept", "review_reject", "batch_",
    "dash_enqueue", "dash_lock", "lock_",
)
ACCOUNTS = {"ada": "admin", "bob": "annotator", "vic": "viewer"}


@pytest.fixture(autouse=True)
def _cheap_hashes(fast_hashes) -> None:
    """Accounts are made by the dozen here: cheap argon2 parameters (tests/conftest.py)."""


@pytest.fixture
def accounts(workspace: Path) -> Path:
    """The app's workspace with ACCOUNTS (passwords ``<name>-password``)."""
    db = store.open_workspace(workspace)
    add_rows(db, accounts=ACCOUNTS)
    db.close()
    return workspace


def fingerprint(path: Path) -> str:
    db = store.open_workspace(path)
    digest = hashlib.sha256()
    for line in db.conn.iterdump():
        digest.update(line.encode())
    db.close()
    return digest.hexdigest()


def signed_in(open_app, name: str, page: str | None = None):
    """The app with ``name`` signed in through the form."""
    at = open_app()
    at.text_input(key=_auth.NAME_KEY).input(name)
    at.text_input(key=_auth.PASSWORD_KEY).input(f"{name}-password")
    at.button(key="sign_in_submit").click().run()
    assert at.session_state[_auth.USER_KEY] == name
    if page:
        at.switch_page(f"pages/{page}.py").run()
    return at


@pytest.fixture
def pages_forget_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page enables every widget, whatever the role: only the library stands guard."""
    monkeypatch.setattr(_auth, "can", lambda db, action: True)


def messages(at) -> str:
    return " | ".join(shown(e.value) for e in [*at.error, *at.warning, *at.success])


def test_without_accounts_there_is_no_sign_in(workspace, open_app):
    at = open_app("data")
    assert not at.exception
    assert not [b for b in at.button if b.key == "sign_in_submit"]
    assert not at.button(key="import_qrels").disabled
    assert not at.text_input(key="annotator_input").disabled


def test_with_accounts_every_page_asks_to_sign_in(accounts, open_app):
    at = open_app()
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, page
        assert at.title[0].value == "Sign in", page
        assert at.button(key="sign_in_submit")
        assert not tables(at) and not at.get("plotly_chart"), page  # nothing else shown


def test_a_wrong_password_fails(accounts, open_app):
    at = open_app()
    at.text_input(key=_auth.NAME_KEY).input("ada")
    at.text_input(key=_auth.PASSWORD_KEY).input("ada-passwort")
    at.button(key="sign_in_submit").click().run()
    assert "Wrong name or password." in messages(at)
    assert _auth.USER_KEY not in at.session_state
    assert at.title[0].value == "Sign in"
    assert at.text_input(key=_auth.PASSWORD_KEY).value == ""  # not kept in the session
    at.text_input(key=_auth.NAME_KEY).input("nobody")
    at.text_input(key=_auth.PASSWORD_KEY).input("ada-password")
    at.button(key="sign_in_submit").click().run()
    assert "Wrong name or password." in messages(at)


def attempt(at, name: str, password: str) -> None:
    at.text_input(key=_auth.NAME_KEY).input(name)
    at.text_input(key=_auth.PASSWORD_KEY).input(password)
    at.button(key="sign_in_submit").click().run()


def test_repeated_failures_pause_sign_in_in_every_session(accounts, open_app):
    at = open_app()
    for _ in range(lockout.ACCOUNT_LIMIT):
        attempt(at, "ada", "wrong-password")
    attempt(at, "ada", "ada-password")  # right, but too soon
    assert "Too many failed sign-ins for this name" in messages(at)
    assert _auth.USER_KEY not in at.session_state
    fresh = open_app()  # a new browser session: the count lives in the workspace
    attempt(fresh, "ada", "ada-password")
    assert "Too many failed sign-ins for this name" in messages(fresh)
    assert _auth.USER_KEY not in fresh.session_state
    assert signed_in(open_app, "bob")  # another name from the same address still may


def test_signed_in_user_is_the_annotator_and_can_sign_out(accounts, open_app):
    at = signed_in(open_app, "bob", "data")
    assert not at.exception
    assert "bob · annotator" in [t.value for t in at.sidebar.text]
    assert at.session_state["annotator"] == "bob"
    assert "annotator_input" not in [t.key for t in at.text_input]  # signed in: no name field
    at.button(key="sign_out").click().run()
    assert at.title[0].value == "Sign in"


def test_a_removed_account_is_signed_out(accounts, open_app):
    at = signed_in(open_app, "bob")
    db = store.open_workspace(accounts)
    account_admin.remove_user(db, "bob")
    db.close()
    at.run()
    assert at.title[0].value == "Sign in"
    assert "no longer exists" in messages(at)


@pytest.mark.parametrize("name", ["vic", "bob"])
def test_only_an_admin_imports(accounts, open_app, name, monkeypatch):
    role = ACCOUNTS[name]
    at = signed_in(open_app, name, "data")
    before = fingerprint(accounts)
    assert at.button(key="import_qrels").disabled
    monkeypatch.setattr(_auth, "can", lambda db, action: True)  # a page that forgot
    at.run()
    at.file_uploader(key="upload_qrels_0").set_value(("q.txt", b"q001 0 c001 1\n", "text/plain"))
    at.run()
    at.button(key="import_qrels").click().run()
    assert f"{name} is {'an' if role[0] == 'a' else 'a'} {role}: importing needs" in messages(at)
    assert fingerprint(accounts) == before


def test_an_admin_imports(accounts, open_app):
    at = signed_in(open_app, "ada", "data")
    before = contents.counts(store.open_workspace(accounts))["judgments"]
    assert not at.button(key="import_qrels").disabled
    at.file_uploader(key="upload_qrels_0").set_value(("q.txt", b"q001 0 c001 1\n", "text/plain"))
    at.run()
    at.button(key="import_qrels").click().run()
    assert "imported 1 qrels rows" in messages(at)
    assert contents.counts(store.open_workspace(accounts))["judgments"] == before + 1


# Every control that writes (or only feeds one write), by key prefix, with its action; and the
# controls that write nothing. A control in neither list fails the walk below: classify it.
CONTROL_ACTIONS = {
    "pool_build": "enqueue", "overlap_save": "set_overlap", "label_grade_": "judge",
    "label_cant_judge": "judge", "label_skip": "skip", "label_undo": "undo", "jbq_": "judge",
    "adj_save": "judge", "rejudge_go": "rejudge", "gen_button": "add_candidates",
    "review_accept": "accept", "review_reject": "reject", "batch_accept": "accept",
    "batch_reject": "reject", "dash_enqueue": "enqueue", "dash_judge_save": "judge",
    "dash_tag_save": "tag_failure", "dash_add_tag": "add_tag", "dash_save_history": "save_scores",
    "dash_lock": "lock", "dash_unlock": "unlock", "add_query": "add_query",
    "save_queries": "edit_queries", "queries_editor_": "edit_queries",
    "assign_split": "assign_split", "import_": "import", "upload_": "import",
    "set_save": "synthetic_settings", "set_refit": "refit_quality", "resume_": "add_candidates",
    "dash_decide_send": "enqueue", "split_documents": "import", "chunking_": "import",
    "save_run_version": "edit_runs", "make_baseline": "baseline",
    "suggest_grade_": "judge",
    "label_find_hit_": "judge", "dash_find_hit_": "judge", "grid_grade_": "judge",
    "review_reason_": "reject", "guideline_save": "set_guideline",
    "mj_conn_": "manage_connections", "gen_conn_": "manage_connections",
    "guide_set_defaults": "set_score_defaults",
    "lr_save": "manage_connections",  # running a live run: tests/app/test_live_runs_page.py
}
# Actions whose controls are not shown at all to the roles that may not do them (a form only
# admins see), rather than shown disabled.
HIDDEN_UNLESS_ALLOWED = {"manage_connections"}
READ_ONLY_CONTROLS = (
    "sign_out", "label_back", "review_previous", "review_next", "review_mode", "sim_", "guide_",
    "download_",
    "label_toggle_", "grid_next", "grid_previous", "grid_search", "grid_guideline",
)


def action_of(key: str) -> str | None:
    for prefix, action in CONTROL_ACTIONS.items():
        if key.startswith(prefix):
            return action
    assert key.startswith(READ_ONLY_CONTROLS), f"classify the control {key!r}"
    return None


def controls(at) -> list[tuple[str, object]]:
    """(key, proto) of every button, segmented control, file uploader and data editor shown."""
    found = [(b.key, b.proto) for b in at.button]
    found += [(g.key, g.proto) for g in at.get("button_group")]
    found += [(u.proto.id.rsplit("-", 1)[-1] if not u.key else u.key, u.proto)
              for u in at.get("file_uploader")]
    found += [(d.key, d.proto) for d in at.dataframe if d.proto.editing_mode]  # editors only
    return found


def walk_pages(at, workspace: Path):
    """Yield (page, control key, proto) for every page, every dashboard tab (History with the
    test split unlocked and locked) and both review views; the workspace needs a queue and
    review candidates to show their controls."""
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()
        views = [None]
        if page == "dashboard":
            views = ["Scorecard", "Coverage", "Compare", "Worst queries", "Failure tags",
                     "History", "History locked"]
        if page == "review":
            views = ["One at a time", "Table"]
        for view in views:
            if page == "dashboard":
                if view == "History locked":  # the owner locks it: Unlock shows
                    db = store.open_workspace(workspace)
                    locked_splits.lock_split(db, "owner", rule="default")
                    db.close()
                at.session_state["dash_tab"] = view.removesuffix(" locked")
                at.run()
                if view == "Worst queries":
                    at.selectbox(key="dash_drill_query").set_value("q01").run()
            if page == "review":
                at.segmented_control(key="review_mode").set_value(view).run()
            assert not at.exception, (page, view, at.exception)
            for key, proto in controls(at):
                yield page, key, proto


@pytest.fixture
def busy_workspace(accounts: Path) -> Path:
    """The accounts' workspace with a labeling queue and synthetic questions to review."""
    result_cache.clear_cache()
    db = store.open_workspace(accounts)
    pooling.build_pool(db, contents.run_names(db))
    batches.run(db, 2, seed=1)
    db.close()
    yield accounts
    result_cache.clear_cache()


@pytest.mark.parametrize("name", ["vic", "bob", "ada"])
def test_each_role_sees_what_it_may_do(busy_workspace, open_app, name):
    """Controls of actions the role may not do are disabled with the refusal naming the
    action as their tooltip; the others carry no refusal."""
    at = signed_in(open_app, name)
    db = store.open_workspace(busy_workspace)
    seen: dict[str, set[str]] = {"refused": set(), "allowed": set()}
    for page, key, proto in walk_pages(at, busy_workspace):
        action = action_of(key)
        if action is None:
            continue
        help_text = getattr(proto, "help", "")
        if roles.can(db, name, action):
            seen["allowed"].add(action)
            assert not help_text, (page, key, help_text)
            continue
        seen["refused"].add(action)
        assert proto.disabled, (name, page, key)
        if hasattr(proto, "help"):  # a data editor has no tooltip; its Save button has
            refusal = escape_markdown(f"{roles.refusal(db, name, action)}.")
            assert help_text == refusal, (page, key, help_text)
            assert roles.action_phrase(action) in help_text.replace("\\", "")
    db.close()
    admin_only = {"set_overlap", "import", "add_query", "edit_queries", "assign_split", "lock",
                  "unlock", "synthetic_settings", "set_guideline", "edit_runs", "baseline",
                  "set_score_defaults"}
    refused = {"vic": set(CONTROL_ACTIONS.values()), "bob": admin_only, "ada": set()}[name]
    hidden = HIDDEN_UNLESS_ALLOWED if name != "ada" else set()
    assert seen["refused"] == refused - hidden
    assert seen["allowed"] == set(CONTROL_ACTIONS.values()) - refused - hidden


def test_a_viewer_cannot_write_through_any_page(accounts, open_app, pages_forget_roles):
    at = signed_in(open_app, "vic")
    before = fingerprint(accounts)
    clicked, refused = 0, 0
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, at.exception)
        for _ in range(2):  # click every enabled button of the page at once, twice
            buttons = [b for b in at.button if b.key != "sign_out" and not b.disabled]
            for button in buttons:
                button.click()
            clicked += len(buttons)
            at.run()
            assert not at.exception, (page, at.exception)
            refused += "vic is a viewer" in messages(at)
        assert fingerprint(accounts) == before, page
    assert clicked > 20 and refused >= 3


# ---------------------------------------------------------------------------------------------
# Sessions


def handover_ticket(at) -> str | None:
    """The ticket in the page's cookie script (``_auth._cookie_script``), if one is shown."""
    for element in at.get("html"):
        found = re.search(r'"X-Scorecard-Ticket": "([A-Za-z0-9_-]+)"', element.proto.body)
        if found:
            return found.group(1)
    return None


def test_a_sign_in_hands_the_browser_a_ticket_for_its_cookie(accounts, open_app):
    at = signed_in(open_app, "bob")
    ticket = handover_ticket(at)
    assert ticket and ticket not in str(at.session_state[_auth.SESSION_KEY])
    assert _auth.SESSION_ROUTE in at.get("html")[0].proto.body
    db = store.open_workspace(accounts)
    token, _ = sessions.redeem_ticket(db, ticket)  # what the route does with it
    session = sessions.resume_session(db, token)  # what a reload does with the cookie
    assert session and session.account == "bob"
    assert session.id == at.session_state[_auth.SESSION_KEY]
    db.close()
    at.run()
    assert handover_ticket(at) is None  # redeemed: the script is gone


def test_a_sign_out_ends_the_other_sessions(accounts, open_app):
    first, second = signed_in(open_app, "bob"), signed_in(open_app, "bob", "data")
    other = signed_in(open_app, "ada")
    first.button(key="sign_out").click().run()
    assert first.title[0].value == "Sign in"
    second.run()  # its next interaction
    assert second.title[0].value == "Sign in"
    assert "Your session has ended" in messages(second)
    other.run()
    assert other.title[0].value != "Sign in"


@pytest.mark.parametrize("change", ["password", "role"])
def test_a_password_or_role_change_ends_the_sessions(accounts, open_app, change):
    at = signed_in(open_app, "bob", "data")
    db = store.open_workspace(accounts)
    if change == "password":
        account_admin.set_password(db, "bob", "a-new-password")
    else:
        account_admin.set_role(db, "bob", "viewer")
    db.close()
    at.run()
    assert at.title[0].value == "Sign in"
    assert "Your session has ended" in messages(at)


def test_an_ended_session_cannot_write_even_from_a_callback(accounts, open_app):
    """A click's callback runs before the page checks the session: the library's role check
    reads the session row itself, so the save is refused."""
    db = store.open_workspace(accounts)
    pooling.build_pool(db, contents.run_names(db))
    at = signed_in(open_app, "bob", "label")
    grade = at.button(key="label_grade_2")
    assert not grade.disabled
    sessions.end_sessions(db, "bob")  # e.g. bob signed out in another tab
    before = fingerprint(accounts)
    grade.click().run()
    assert fingerprint(accounts) == before
    assert at.title[0].value == "Sign in"
    db.close()


# ---------------------------------------------------------------------------------------------
# Where the app may be served


@pytest.fixture
def server_address():
    """``set(address)``: the ``server.address`` the app sees, as if passed to streamlit run."""
    before = streamlit_config.get_option("server.address")
    yield lambda address: streamlit_config.set_option("server.address", address)
    streamlit_config.set_option("server.address", before)


def test_the_app_is_configured_for_loopback():
    assert lockout.is_loopback(streamlit_config.get_option("server.address"))


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "", "192.168.1.4", "scorecard.example"])
def test_a_workspace_without_accounts_is_not_served_on_the_network(
    workspace, open_app, server_address, caplog, address
):
    server_address(address)
    caplog.set_level(logging.ERROR, logger="scorecard.app")
    for page in PAGES:
        at = open_app(page)
        assert not at.exception, page
        assert [t.value for t in at.title] == ["Not served on the network"], page
        assert "no accounts" in messages(at)
        assert not at.button and not tables(at) and not at.text_input, page
    assert any("refusing to serve a workspace without accounts" in r.message
               for r in caplog.records)


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "::1"])
def test_a_workspace_without_accounts_is_served_on_loopback(workspace, open_app,
                                                            server_address, address):
    server_address(address)
    at = open_app("data")
    assert at.title[0].value == "Data"
    assert not at.button(key="import_qrels").disabled


def test_a_workspace_with_accounts_may_be_served_on_the_network(accounts, open_app,
                                                                server_address):
    server_address("0.0.0.0")
    assert signed_in(open_app, "ada", "data").title[0].value == "Data"


def test_a_server_bound_to_every_interface_is_refused_whatever_the_setting(
    workspace, open_app, tmp_path, monkeypatch
):
    """As ``uvicorn app:app --host 0.0.0.0`` serves it: server.address still says loopback,
    the process's listening socket does not (a copy of /proc in the kernel's format, since
    test servers listen on loopback only)."""
    from labeling.workspace import reachable
    from tests.test_reachable import fake_proc, row

    assert lockout.is_loopback(streamlit_config.get_option("server.address"))
    proc = fake_proc(tmp_path, [row(0, "00000000:2135", "0A", 41)], [], [41])
    monkeypatch.setattr(reachable, "PROC", proc)
    at = open_app("label")
    assert [t.value for t in at.title] == ["Not served on the network"]
    assert "0.0.0.0 port 8501" in messages(at)
    assert not at.button and not at.text_input
    loopback = fake_proc(tmp_path / "lo", [row(0, "0100007F:2135", "0A", 42)], [], [42])
    monkeypatch.setattr(reachable, "PROC", loopback)
    assert open_app("label").title[0].value != "Not served on the network"


def test_bogus_tickets_at_the_session_route_do_not_wait_for_the_write_lock(workspace):
    """While another connection holds the write lock, wrong tickets are refused at once: the
    route reads before it writes (waiting would end in a busy error after 30 s)."""
    from starlette.requests import Request

    holder = store.open_workspace(workspace)
    holder.conn.execute("BEGIN IMMEDIATE")
    try:
        for attempt in range(20):
            request = Request({
                "type": "http", "method": "POST", "scheme": "http", "path": _auth.SESSION_ROUTE,
                "server": ("127.0.0.1", 8501), "query_string": b"", "headers": [
                    (_auth.TICKET_HEADER.lower().encode(), f"bogus-{attempt}".encode())]})
            assert _auth._session_endpoint(request).status_code == 403
    finally:
        holder.conn.execute("ROLLBACK")
        holder.close()


def test_sign_in_after_the_wal_was_deleted_says_so(accounts, open_app):
    """The -wal removed under the running app: the sign-in form shows one sentence."""
    import os

    at = open_app()
    os.unlink(f"{accounts}-wal")
    at.text_input(key=_auth.NAME_KEY).input("ada")
    at.text_input(key=_auth.PASSWORD_KEY).input("ada-password")
    at.button(key="sign_in_submit").click().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Sign in"]
    shown_errors = " ".join(shown(e.value) for e in at.error)
    assert f"the workspace file {accounts}-wal was deleted or replaced" in shown_errors
