"""The reader widget: a cookieless frame that shows only published answers, honestly says
why there is none, and stops at once when an editor pauses it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from web_helpers import (
    DRAFT,
    HELD_QUESTION,
    JSON,
    OUTSIDE_QUESTION,
    OWN,
    PASSWORD,
    QUESTION,
    WebUser,
    Widget,
)

from evidence_desk.desk import Desk
from evidence_desk.server.widget import HELD, OUTSIDE, PAUSED, REVIEWED, safe_url
from evidence_desk.store.accounts import User


@pytest.fixture
def widget(server: TestClient, app: FastAPI) -> Callable[[], Widget]:
    return lambda: Widget(app)


@pytest.fixture
def editor_user(web_desk: Desk) -> User:
    return web_desk.workspace.people.add("desk-editor", PASSWORD, editor=True)


def run_count(desk: Desk) -> int:
    return len(desk.runs(limit=10_000))


def test_only_the_widget_may_be_framed(server: TestClient, widget: Callable[[], Widget]) -> None:
    frame = server.get("/widget")
    assert "frame-ancestors *" in frame.headers["content-security-policy"]
    assert "x-frame-options" not in frame.headers
    assert frame.headers["cache-control"] == "no-store"  # it holds a session's token
    home = server.get("/")
    assert "frame-ancestors 'none'" in home.headers["content-security-policy"]
    assert home.headers["x-frame-options"] == "DENY"
    page = frame.text
    assert '<html lang="en">' in page and "<main" in page
    assert '<label for="w-question">' in page and 'name="widget_token"' in page
    assert 'href="/static/app.css"' not in page  # its own small page, not the workspace's
    assert "style=" not in page and "<script>" not in page


def test_a_published_answer_through_the_json_api(widget: Callable[[], Widget]) -> None:
    w = widget()
    run = w.wait(w.ask(QUESTION))
    assert run["status"] == "published"  # shown once its receipt is stored
    assert run["state"] in ("running", "published")
    assert run["text"] and run["message"] is None
    cites = {v for s in run["sentences"] for k, v in s if k == "cite"}
    assert cites and cites <= {s["id"] for s in run["sources"]}
    assert set(run["sources"][0]) == {"id", "title", "date", "url", "publisher"}


def test_asking_without_javascript_shows_the_run_in_the_response(
    widget: Callable[[], Widget],
) -> None:
    w = widget()
    r = w.form("/widget/ask", {"question": QUESTION})
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    assert 'class="w-run w-published"' in r.text
    assert '<h3 class="w-sources-h">Sources</h3>' in r.text
    assert 'target="_blank" rel="noopener noreferrer"' in r.text
    assert w.token not in r.url.path


def test_a_held_answer_shows_the_standards_desk_never_the_draft(
    widget: Callable[[], Widget],
) -> None:
    w = widget()
    run_id = w.ask(HELD_QUESTION)
    run = w.wait(run_id)
    assert run["status"] == "held"
    assert run["message"] == HELD
    assert run["text"] is None and run["sentences"] == [] and run["sources"] == []
    assert DRAFT not in w.run(run_id).text
    page = w.form(f"/widget/runs/{run_id}", {})
    assert page.status_code == 200
    assert HELD in page.text and DRAFT not in page.text
    assert "Check again" in page.text


def test_outside_coverage_says_so_and_what_is_covered(widget: Callable[[], Widget]) -> None:
    w = widget()
    run = w.wait(w.ask(OUTSIDE_QUESTION))
    assert run["status"] == "outside"
    assert run["message"] == OUTSIDE
    assert run["coverage_note"].startswith("The archive holds 7 dated documents")
    assert run["text"] is None


def test_an_editors_approval_appears_in_the_widget(
    widget: Callable[[], Widget], web_desk: Desk, editor_user: User
) -> None:
    w = widget()
    run_id = w.ask(HELD_QUESTION)
    assert w.wait(run_id)["status"] == "held"
    web_desk.workspace.approve(editor_user, run_id, "checked by hand")
    run = w.wait(run_id, until=("published",))
    assert run["message"] == REVIEWED
    assert run["text"] and run["sources"]


def test_the_kill_switch_pauses_the_widget_and_only_the_widget(
    widget: Callable[[], Widget],
    reader: Callable[[], WebUser],
    web_desk: Desk,
    editor_user: User,
) -> None:
    w = widget()
    earlier = w.ask(QUESTION)
    w.wait(earlier)
    ws = web_desk.workspace
    ws.flip_widget(editor_user, True, "test")
    before = run_count(web_desk)

    page = w.client.get("/widget")
    assert page.status_code == 200
    assert PAUSED in page.text and "<form" not in page.text
    asked = w.client.post("/widget/api/ask", json={"question": QUESTION}, headers=w.headers())
    assert asked.status_code == 503
    assert asked.json() == {"error": PAUSED, "paused": True, "status": "paused"}
    assert w.run(earlier).status_code == 503
    form = w.form("/widget/ask", {"question": QUESTION})
    assert form.status_code == 200 and PAUSED in form.text
    assert run_count(web_desk) == before

    me = reader()  # the workspace stays live
    assert me.wait(me.ask(QUESTION))["state"] == "published"

    ws.flip_widget(editor_user, False, "test over")
    assert "<form" in w.client.get("/widget").text
    assert w.wait(w.ask(QUESTION))["status"] == "published"


def test_a_missing_or_forged_token_is_refused(
    widget: Callable[[], Widget], web_desk: Desk, editor_user: User
) -> None:
    w = widget()
    none = w.client.post("/widget/api/ask", json={"question": QUESTION}, headers={**OWN, **JSON})
    assert none.status_code == 401 and none.json()["error"].endswith(".")
    forged = w.client.post(
        "/widget/api/ask", json={"question": QUESTION}, headers=w.headers(**{"x-widget-token": "x"})
    )
    assert forged.status_code == 401
    form = w.client.post("/widget/ask", data={"question": QUESTION}, headers=OWN)
    assert form.status_code == 401 and "<form" not in form.text
    run_id = w.ask(QUESTION)
    assert w.run(run_id, **{"x-widget-token": "forged"}).status_code == 401
    people = web_desk.workspace.people
    editors = people.sign_in("desk-editor", PASSWORD, "test", previous=None).token
    assert w.run(run_id, **{"x-widget-token": editors}).status_code == 401  # a cookie's token


def test_a_widget_token_and_a_workspace_cookie_do_not_open_each_other(
    widget: Callable[[], Widget], server: TestClient, app: FastAPI
) -> None:
    w = widget()
    run_id = w.ask(QUESTION)
    w.wait(run_id)
    browser = TestClient(app, follow_redirects=False)
    page = browser.get(f"/api/runs/{run_id}", headers={"cookie": f"evidence_session={w.token}"})
    assert page.status_code == 404  # a new anonymous reader, not the widget's session
    reader_token = page.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    assert reader_token != w.token
    body = {"question": QUESTION}
    r = w.client.post(
        "/widget/api/ask", json=body, headers=w.headers(**{"x-widget-token": reader_token})
    )
    assert r.status_code == 401


def test_another_sessions_run_is_not_found(
    widget: Callable[[], Widget], reader: Callable[[], WebUser]
) -> None:
    mine, theirs = widget(), widget()
    run_id = mine.ask(QUESTION)
    r = theirs.run(run_id)
    assert r.status_code == 404 and r.json() == {"error": "There is no such run."}
    assert theirs.form(f"/widget/runs/{run_id}", {}).status_code == 404
    workspace_run = reader().ask(QUESTION)  # a workspace run is not the widget's either
    assert mine.run(workspace_run).status_code == 404
    assert mine.run("r" * 500).json() == {"error": "There is no such run."}


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_unsafe_requests_from_another_site_are_refused(
    widget: Callable[[], Widget], web_desk: Desk, headers: dict[str, str]
) -> None:
    w = widget()
    before = run_count(web_desk)
    api = w.client.post(
        "/widget/api/ask", json={"question": QUESTION}, headers=w.headers(**headers)
    )
    assert api.status_code == 403 and api.json()["error"].startswith("The request was refused")
    form = w.client.post(
        "/widget/ask", data={"question": QUESTION, "widget_token": w.token}, headers=headers
    )
    assert form.status_code == 403
    assert run_count(web_desk) == before


def test_a_huge_question_is_a_413_sentence(widget: Callable[[], Widget]) -> None:
    w = widget()
    r = w.client.post("/widget/api/ask", json={"question": "a" * 100_000}, headers=w.headers())
    assert r.status_code == 413
    assert r.json() == {"error": "A question has at most 2,000 characters; this one has 100,000."}
    form = w.form("/widget/ask", {"question": "a" * 100_000})
    assert form.status_code == 413 and "at most 2,000 characters" in form.text


def test_the_embed_script(server: TestClient) -> None:
    r = server.get("/widget.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/javascript")
    assert "max-age" in r.headers["cache-control"]
    assert "/widget`" in r.text and "document.currentScript" in r.text
    assert "frame.title" in r.text and "allow-scripts allow-forms allow-same-origin" in r.text
    assert "innerHTML" not in r.text


def test_the_frame_script_writes_text_only(server: TestClient) -> None:
    r = server.get("/static/widget-frame.js")
    assert r.status_code == 200
    assert "innerHTML" not in r.text and "textContent" in r.text
    assert '"x-widget-token"' in r.text


def test_a_source_link_is_http_or_nothing() -> None:
    assert safe_url("https://example.org/a") == "https://example.org/a"
    assert safe_url("http://example.org/a") == "http://example.org/a"
    assert safe_url("javascript:alert(1)") is None
    assert safe_url(" JavaScript:alert(1)") is None
    assert safe_url("data:text/html,x") is None
    assert safe_url(None) is None
