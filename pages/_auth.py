"""Sign-in for the app: off while the workspace has no accounts, required once it has one.

``sign_in(db)`` runs at the start of every page (from ``_common.page_setup``). Signed in, the
sidebar shows the account and its role and the annotator name is the account name. Every
write of ``labeling`` checks the role itself (``labeling.auth``): importing this module
installs the resolver that tells it who the current browser session is. Pages use
``can(db, action)`` only to disable widgets a role cannot use.
"""

from __future__ import annotations

import time

import sqlite_utils
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from labeling import auth
from labeling.markdown import escape_markdown

USER_KEY = "auth_user"
NAME_KEY = "sign_in_name"
PASSWORD_KEY = "sign_in_password"
FAILURES_KEY = "sign_in_failures"
MESSAGE_KEY = "sign_in_message"
MAX_FAILURES = 5  # then a pause before the next attempt, per browser session
PAUSE_SECONDS = 30


def _session_actor() -> str | None:
    """The actor of the running script: its signed-in user, ``""`` when none; ``None`` (the
    trusted owner) outside a browser session."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return str(st.session_state.get(USER_KEY) or auth.ANONYMOUS)


auth.set_actor_resolver(_session_actor)


def user() -> str | None:
    """The signed-in account name of this session, or None."""
    return st.session_state.get(USER_KEY) or None


def can(db: sqlite_utils.Database, action: str) -> bool:
    """Whether this session may do ``action`` (``labeling.auth.PERMISSIONS``) now."""
    return auth.can(db, auth.current_actor(), action)


def sign_in(db: sqlite_utils.Database) -> None:
    """Ask for a name and password (and stop the page) when the workspace has accounts and
    this session is not signed in; otherwise show who is signed in, in the sidebar."""
    from pages._common import ANNOTATOR_KEY  # _common imports this module

    auth.set_actor_resolver(_session_actor)  # again: cheap, and nothing can have unset it
    state = st.session_state
    if not auth.accounts_enabled(db):
        state.pop(USER_KEY, None)
        return
    name = user()
    role = auth.role_of(db, name)
    if name and role is None:  # the account was removed since sign-in
        state.pop(USER_KEY, None)
        state[MESSAGE_KEY] = f"The account {name} no longer exists."
        name = None
    if name:
        state[ANNOTATOR_KEY] = name  # labels are recorded under the account name
        with st.sidebar:
            st.caption("Signed in")
            st.text(f"{name} · {role}")
            st.button("Sign out", key="sign_out", on_click=_sign_out)
        return
    _form(db)
    st.stop()


def _form(db: sqlite_utils.Database) -> None:
    st.title("Sign in")
    st.caption("This workspace has accounts. Sign in to see and label it.")
    column, _ = st.columns([2, 3])
    with column, st.form("sign_in_form", enter_to_submit=True):
        st.text_input("Name", key=NAME_KEY, autocomplete="username")
        st.text_input("Password", key=PASSWORD_KEY, type="password",
                      autocomplete="current-password")
        st.form_submit_button("Sign in", key="sign_in_submit", type="primary",
                              on_click=_check, args=(db,))
    message = st.session_state.pop(MESSAGE_KEY, None)
    if message:
        st.error(escape_markdown(message))  # it can quote a name


def _check(db: sqlite_utils.Database) -> None:
    state = st.session_state
    name = str(state.get(NAME_KEY) or "").strip()
    password = str(state.get(PASSWORD_KEY) or "")
    state[PASSWORD_KEY] = ""  # never kept in the session
    failures, last = state.get(FAILURES_KEY, (0, 0.0))
    wait = PAUSE_SECONDS - (time.monotonic() - last)
    if failures >= MAX_FAILURES and wait > 0:
        state[MESSAGE_KEY] = f"Too many failed attempts: try again in {wait:.0f} s."
        return
    role = auth.authenticate(db, name, password)
    if role is None:
        state[FAILURES_KEY] = (failures + 1, time.monotonic())
        state[MESSAGE_KEY] = "Wrong name or password."
        return
    state[FAILURES_KEY] = (0, 0.0)
    state[USER_KEY] = name


def _sign_out() -> None:
    from pages._common import ANNOTATOR_KEY

    st.session_state.pop(USER_KEY, None)
    st.session_state[ANNOTATOR_KEY] = ""
