"""Model servers on the pages (issue 25): an admin stores one through a form; an annotator only
picks one by name, and whatever they put in the session, the server contacts no other host;
what a server says in an error reply reaches admins only."""

from __future__ import annotations

import pytest

from labeling.workspace import connections, store
from pages import _auth
from tests.markup import shown
from tests.tables import tables
from tests.workspaces import add_rows

ACCOUNTS = {"ada": "admin", "bob": "annotator"}
SECRET = b"internal secret: db_password=hunter2"

pytestmark = pytest.mark.usefixtures("fresh_result_cache", "fast_hashes")


@pytest.fixture
def servers(chat_servers):
    """The team's server and one nobody configured."""
    return chat_servers(), chat_servers()


@pytest.fixture
def team_workspace(workspace, servers):
    db = store.open_workspace(workspace)
    add_rows(db, accounts=ACCOUNTS)
    connections.save_connection(db, connections.MODEL_SERVER, "team", servers[0].url, "tiny",
                                "", 50)
    db.close()
    return workspace


def _signed_in(open_app, name: str):
    at = open_app()
    at.text_input(key=_auth.NAME_KEY).input(name)
    at.text_input(key=_auth.PASSWORD_KEY).input(f"{name}-password")
    at.button(key="sign_in_submit").click().run()
    at.switch_page("pages/machine_judges.py").run()
    assert not at.exception
    return at


def _messages(at) -> str:
    return " | ".join(shown(m.value) for m in [*at.success, *at.warning, *at.error, *at.info])


def test_an_annotator_picks_a_server_and_cannot_reach_another_host(team_workspace, servers,
                                                                    open_app):
    team, other = servers
    at = _signed_in(open_app, "bob")
    keys = {w.key or "" for w in at.text_input}
    assert not [k for k in keys if "url" in k or k.startswith("mj_conn")], keys  # no form
    assert at.selectbox(key="mj_connection").options == ["team"]
    # Whatever the session holds (a forged address and model), the run goes to the picked one.
    at.session_state["mj_base_url"] = other.url
    at.session_state["mj_model"] = "tiny"
    at.session_state["mj_conn_url"] = other.url
    at.multiselect(key="mj_runs").set_value(["bm25"]).run()
    at.number_input(key="mj_k").set_value(1).run()
    at.button(key="mj_run").click().run()
    assert not at.exception
    assert "pair(s) labeled" in _messages(at)
    assert len(team.requests) > 0
    assert other.requests == []  # the unconfigured host was never contacted


@pytest.mark.parametrize(("name", "sees_body"), [("bob", False), ("ada", True)])
def test_an_error_body_is_shown_to_admins_only(team_workspace, servers, open_app, name,
                                               sees_body):
    team, _ = servers
    team.error_body = SECRET
    team.script = ["badrequest"] * 3
    at = _signed_in(open_app, name)
    at.multiselect(key="mj_runs").set_value(["bm25"]).run()
    at.number_input(key="mj_k").set_value(1).run()
    at.number_input(key="mj_cap").set_value(3).run()
    at.button(key="mj_run").click().run()
    assert not at.exception
    shown_text = _messages(at) + " ".join(str(t.to_dict()) for t in tables(at))
    assert "HTTP 400 from the model server 'team'" in shown_text
    assert ("db_password=hunter2" in shown_text) is sees_body
    db = store.open_workspace(team_workspace)
    assert "hunter2" not in "\n".join(db.conn.iterdump())  # never stored
    db.close()


def test_an_admin_stores_a_server_through_the_form(team_workspace, servers, open_app):
    at = _signed_in(open_app, "ada")
    at.text_input(key="mj_conn_name").input("second")
    at.text_input(key="mj_conn_url").input(servers[1].url)
    at.text_input(key="mj_conn_model").input("tiny")
    at.text_input(key="mj_conn_key_env").input("sk-this-is-a-key")
    at.button(key="mj_conn_save").click().run()
    assert "never the key itself" in _messages(at)
    at.text_input(key="mj_conn_key_env").input("TEAM_KEY")
    at.button(key="mj_conn_save").click().run()
    assert "Stored the model server second" in _messages(at)
    assert at.selectbox(key="mj_connection").options == ["second", "team"]
