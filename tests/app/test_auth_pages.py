"""Sign-in in the app, and roles in every page: a viewer's write widgets are disabled, and
when a page forgets to disable one (simulated by making ``_auth.can`` say yes), the click is
refused by the library, so the workspace does not change. (Streamlit 1.67 itself discards a
forged change of a disabled widget, so disabling is a real barrier, not only a look.)"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from labeling import auth, store
from pages import _auth
from tests.markup import shown

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
def fast_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth, "_HASHER", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    auth._dummy_hash.cache_clear()


@pytest.fixture
def accounts(workspace: Path) -> Path:
    db = store.open_workspace(workspace)
    for name, role in ACCOUNTS.items():
        auth.add_user(db, name, role, f"{name}-password")
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
        assert not at.dataframe and not at.get("plotly_chart"), page  # nothing else shown


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


def test_repeated_failures_pause_sign_in(accounts, open_app):
    at = open_app()
    for _ in range(_auth.MAX_FAILURES):
        at.text_input(key=_auth.NAME_KEY).input("ada")
        at.text_input(key=_auth.PASSWORD_KEY).input("wrong-password")
        at.button(key="sign_in_submit").click().run()
    at.text_input(key=_auth.PASSWORD_KEY).input("ada-password")  # right, but too soon
    at.button(key="sign_in_submit").click().run()
    assert "Too many failed attempts" in messages(at)
    assert _auth.USER_KEY not in at.session_state


def test_signed_in_user_is_the_annotator_and_can_sign_out(accounts, open_app):
    at = signed_in(open_app, "bob", "data")
    assert not at.exception
    assert "bob · annotator" in [t.value for t in at.sidebar.text]
    assert at.session_state["annotator"] == "bob"
    assert at.text_input(key="annotator_input").value == "bob"
    assert at.text_input(key="annotator_input").disabled
    at.button(key="sign_out").click().run()
    assert at.title[0].value == "Sign in"


def test_a_removed_account_is_signed_out(accounts, open_app):
    at = signed_in(open_app, "bob")
    db = store.open_workspace(accounts)
    auth.remove_user(db, "bob")
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
    before = store.counts(store.open_workspace(accounts))["judgments"]
    assert not at.button(key="import_qrels").disabled
    at.file_uploader(key="upload_qrels_0").set_value(("q.txt", b"q001 0 c001 1\n", "text/plain"))
    at.run()
    at.button(key="import_qrels").click().run()
    assert "imported 1 qrels rows" in messages(at)
    assert store.counts(store.open_workspace(accounts))["judgments"] == before + 1


def test_a_viewer_sees_write_buttons_disabled(accounts, open_app):
    at = signed_in(open_app, "vic")
    checked = 0
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, at.exception)
        for button in at.button:
            if button.key and button.key.startswith(WRITE_BUTTONS):
                assert button.disabled, (page, button.key)
                checked += 1
    assert checked >= 8


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
