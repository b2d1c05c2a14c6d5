"""Sign-in for the app: off while the workspace has no accounts, required once it has one.

``sign_in(db)`` runs at the start of every page (from ``_common.page_setup``), so every run
checks this browser session against the workspace: a session revoked elsewhere (a sign-out in
another tab, a password or role change) is signed out on its next run. Every write of
``labeling`` checks the role itself (``labeling.workspace.roles``): importing this module installs
the
resolver that tells it which account the current browser session is, read from its session row
at the time of the write. Pages use ``can(db, action)`` and ``refusal_help(db, action)`` only to
disable the widgets a role cannot use, with the reason as their tooltip.

How a sign-in outlives a reload: the sign-in (over Streamlit's websocket, which cannot set a
cookie) opens a session row and keeps a one-time ticket in server memory. The page then runs a
small script that POSTs the ticket to ``SESSION_ROUTE`` (served by ``app.py`` next to the app);
that request answers with the session token as an HttpOnly, SameSite=Strict cookie (Secure over
HTTPS), so page scripts never see the token. A new tab or a reload sends the cookie with its
websocket request (``st.context.cookies``), and ``sign_in`` resumes the session from it. After a
sign-out (or a dead cookie), the page asks the same route with DELETE to drop the cookie; the
route drops only a cookie whose session has ended.

Without accounts the app serves only this machine: when the process listens on a non-loopback
address (its bound sockets, however it is served) or ``server.address`` is not loopback, every
page shows why it refuses and stops (see ``labeling.workspace.reachable``).
"""

from __future__ import annotations

import json
import logging
import time

import sqlite_utils
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from labeling import describe_failure, escape_inline, escape_markdown
from labeling.workspace import lockout, roles, sessions, store
from labeling.workspace import reachable as reachable_from
from pages._workspace import get_db, workspace_path

# The annotator name labels are recorded under; a sign-in sets it to the account name.
ANNOTATOR_KEY = "annotator"
USER_KEY = "auth_user"
SESSION_KEY = "auth_session"  # the id of this browser session's session row
TICKET_KEY = "auth_ticket"  # the one-time ticket until the browser traded it for its cookie
FORGET_COOKIE_KEY = "auth_forget_cookie"
NAME_KEY = "sign_in_name"
PASSWORD_KEY = "sign_in_password"
MESSAGE_KEY = "sign_in_message"
SESSION_ROUTE = "/api/scorecard/session"
TICKET_HEADER = "X-Scorecard-Ticket"

log = logging.getLogger("scorecard.app")


def _session_actor(db: sqlite_utils.Database) -> str | None:
    """The actor of the running script: the account of its live session, ``""`` when none;
    ``None`` (the trusted owner) outside a browser session."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    session_id = st.session_state.get(SESSION_KEY)
    return sessions.session_account(db, session_id) or roles.ANONYMOUS


roles.set_actor_resolver(_session_actor)


def user() -> str | None:
    """The signed-in account name of this session, or None."""
    return st.session_state.get(USER_KEY) or None


def can(db: sqlite_utils.Database, action: str) -> bool:
    """Whether this session may do ``action`` (``labeling.workspace.roles.ACTIONS``) now."""
    return roles.can(db, roles.current_actor(db), action)


def refusal_help(db: sqlite_utils.Database, action: str) -> str | None:
    """Why this session may not do ``action``, as a widget tooltip (Markdown, so the sentence is
    escaped: it can quote an account name); None when it may."""
    sentence = roles.refusal(db, roles.current_actor(db), action)
    return None if sentence is None else escape_markdown(sentence + ".")


def sign_in(db: sqlite_utils.Database) -> None:
    """Ask for a name and password (and stop the page) when the workspace has accounts and
    this session is not signed in; otherwise show who is signed in, in the sidebar. Without
    accounts, stop the page when the server listens beyond this machine."""
    roles.set_actor_resolver(_session_actor)  # again: cheap, and nothing can have unset it
    state = st.session_state
    if not roles.accounts_enabled(db):
        _forget_session()
        _refuse_network_without_accounts()
        return
    name = _live_account(db) or _resume_from_cookie(db)
    if name:
        state[ANNOTATOR_KEY] = name  # labels are recorded under the account name
        with st.sidebar:
            st.caption("Signed in")
            st.text(f"{name} · {roles.role_of(db, name)}")
            st.button("Sign out", key="sign_out", on_click=_sign_out)
            _hand_over_cookie(db)
        return
    _form()
    st.stop()


def _refuse_network_without_accounts() -> None:
    reachable = reachable_from.network_addresses(st.get_option("server.address"))
    if not reachable:
        return
    shown = ", ".join(reachable)
    log.error(
        "refusing to serve a workspace without accounts on %s: add an admin account "
        "(scorecard user add DB NAME --role admin) or serve on 127.0.0.1", shown,
    )
    st.title("Not served on the network")
    st.error(
        escape_markdown(
            f"This workspace has no accounts, so anyone who can reach the server could change "
            f"it. The server listens on {shown}, which other machines can reach. Add an admin "
            "account first (scorecard user add DB NAME --role admin) and reload, or serve on "
            "127.0.0.1 only."
        )
    )
    st.stop()


def _live_account(db: sqlite_utils.Database) -> str | None:
    """The account of this browser session's session while it is live. A session that ended
    since the last run is forgotten here, with a message for the sign-in form."""
    state = st.session_state
    session_id = state.get(SESSION_KEY)
    if session_id is None:
        return None
    account = sessions.session_account(db, session_id)
    if account:
        state[USER_KEY] = account
        return account
    name = state.get(USER_KEY)
    _forget_session()
    state[FORGET_COOKIE_KEY] = True
    state[MESSAGE_KEY] = (
        f"The account {escape_inline(name)} no longer exists." if roles.role_of(db, name) is None
        else "Your session has ended (a sign-out, or a change of password or role). "
        "Sign in again."
    )
    return None


def _resume_from_cookie(db: sqlite_utils.Database) -> str | None:
    """Sign this browser session in from the session cookie its page load sent, if live."""
    token = _cookie(sessions.cookie_name(db))
    if not token:
        return None
    session = sessions.resume_session(db, token)
    if session is None:
        st.session_state[FORGET_COOKIE_KEY] = True
        return None
    st.session_state[SESSION_KEY] = session.id
    st.session_state[USER_KEY] = session.account
    return session.account


def _cookie(name: str) -> str | None:
    value = st.context.cookies.get(name)
    return value if isinstance(value, str) else None  # AppTest's context is a mock


def _client_address() -> str | None:
    """The client's IP address; None for loopback (Streamlit gives none) and in AppTest."""
    address = st.context.ip_address
    return address if isinstance(address, str) and address else None


def _forget_session() -> None:
    for key in (USER_KEY, SESSION_KEY, TICKET_KEY):
        st.session_state.pop(key, None)


def _cookie_script(method: str, ticket: str | None = None) -> None:
    """Run one request to ``SESSION_ROUTE`` from the page (it sets or drops the cookie)."""
    headers = {TICKET_HEADER: ticket} if ticket else {}
    options = {"method": method, "credentials": "same-origin", "headers": headers}
    # Only our own constants and the ticket (URL-safe base64) go into the script.
    st.html(
        f"<script>fetch({json.dumps(session_route())}, {json.dumps(options)});</script>",
        unsafe_allow_javascript=True, width="content",
    )


def _hand_over_cookie(db: sqlite_utils.Database) -> None:
    """While the session's ticket is unredeemed, have the browser trade it for the cookie."""
    state = st.session_state
    ticket = state.get(TICKET_KEY)
    if not ticket:
        return
    if sessions.ticket_open(db, state[SESSION_KEY]):
        _cookie_script("POST", ticket)
    else:
        state.pop(TICKET_KEY, None)


def _form() -> None:
    st.title("Sign in")
    st.caption("This workspace has accounts. Sign in to see and label it.")
    column, _ = st.columns([2, 3])
    with column, st.form("sign_in_form", enter_to_submit=True):
        st.text_input("Name", key=NAME_KEY, autocomplete="username")
        st.text_input("Password", key=PASSWORD_KEY, type="password",
                      autocomplete="current-password")
        st.form_submit_button("Sign in", key="sign_in_submit", type="primary", on_click=_check)
    message = st.session_state.pop(MESSAGE_KEY, None)  # our sentences; a name in it escaped
    if message:
        st.error(escape_markdown(message))  # it can quote a name
    if st.session_state.pop(FORGET_COOKIE_KEY, False):
        _cookie_script("DELETE")


def _check() -> None:
    state = st.session_state
    name = str(state.get(NAME_KEY) or "").strip()
    password = str(state.get(PASSWORD_KEY) or "")
    state[PASSWORD_KEY] = ""  # never kept in the session
    db = get_db()
    address = _client_address()
    try:
        lockout.sign_in(db, name, password, address)
        session, ticket = sessions.start_session(db, name, address)
    except Exception as error:  # a refusal, or a workspace that fails: one sentence either way
        sentence, reference = describe_failure(error)
        if reference is not None:
            log.error("sign-in failed (reference %s)", reference, exc_info=error)
        state[MESSAGE_KEY] = sentence
        return
    state[USER_KEY] = name
    state[SESSION_KEY] = session.id
    state[TICKET_KEY] = ticket


def _sign_out() -> None:
    """End every session of the account (all tabs and browsers) and drop this one's cookie."""
    name = user()
    if name:
        sessions.end_sessions(get_db(), name)
    _forget_session()
    st.session_state[ANNOTATOR_KEY] = ""
    st.session_state[FORGET_COOKIE_KEY] = True


# ---------------------------------------------------------------------------------------------
# The cookie route (served by app.py next to the Streamlit app)


def session_route() -> str:
    """``SESSION_ROUTE`` under the configured ``server.baseUrlPath``."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}{SESSION_ROUTE}" if base else SESSION_ROUTE


def routes() -> list:
    """The HTTP routes the app adds to Streamlit's server."""
    from starlette.routing import Route

    return [Route(session_route(), _session_endpoint, methods=["POST", "DELETE"])]


def _session_endpoint(request):
    """POST with a ticket header: answer with the session cookie. DELETE: drop the cookie if
    its session has ended. A plain function: Starlette runs it in a worker thread, so waiting
    for the workspace's write lock never blocks the server.

    No cross-site request can abuse either: a ticket is unguessable and single-use, and DELETE
    drops only a dead cookie.
    """
    from starlette.responses import Response

    path = workspace_path()
    if not path.is_file():
        return Response(status_code=404)
    db = store.open_workspace(path, create=False)
    try:
        name = sessions.cookie_name(db)
        attributes = {"path": "/", "secure": request.url.scheme == "https", "httponly": True,
                      "samesite": "strict"}
        response = Response(status_code=204)
        if request.method == "POST":
            redeemed = sessions.redeem_ticket(db, request.headers.get(TICKET_HEADER, ""))
            if redeemed is None:
                return Response(status_code=403)
            token, expires_at = redeemed
            response.set_cookie(name, token, max_age=int(expires_at - time.time()), **attributes)
        elif sessions.resume_session(db, request.cookies.get(name)) is None:
            response.delete_cookie(name, **attributes)
        return response
    finally:
        db.close()
