"""The web app's security matrix: every route classified, then attacked by its class.

`ROUTES` is the table. Each `(method, path)` the app registers is in it with its kinds:

* `public`: anyone may read it (no record, no role);
* `record`: it names a run, conversation, receipt or source of one reader, so another
  reader asking for it gets the 404 a missing record gets (IDOR);
* `unsafe`: it changes something, so it needs the session's CSRF token, from this site;
* `editor`: it refuses readers (403) and people with no session (401, or 403 on an unsafe
  method, where the CSRF check answers first: `server/context.py`);
* `widget`: it authenticates by the widget's token (`X-Widget-Token` or `widget_token`),
  never by a cookie.

A row marked `landed=False` is a route expected but not registered yet (the editor and
widget rows were, while `editor.py` and `widget.py` were written; none is now): each test
skips it, naming the route, until it is registered. The inventory test fails
for any registered route the table does not classify, and checks the classification is
consistent (an unsafe method is `unsafe`, a path with a record's id is `record`,
`/desk` is `editor`, `/widget` is `widget` or `public`), so a new route cannot dodge the
matrix by being left out or filed under the wrong kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from web_helpers import HELD_QUESTION, PASSWORD, QUESTION, WebUser
from web_security_helpers import (
    EVIL,
    OWN,
    UNSAFE_METHODS,
    Call,
    WidgetUser,
    World,
    error_message,
    make_world,
    one_sentence,
    registered_routes,
    send,
)

from evidence_desk.desk import Desk
from evidence_desk.desk.workspace.errors import Forbidden
from evidence_desk.server import create_app
from evidence_desk.server.security import COOKIE, MAX_BODY, SECURE_COOKIE
from evidence_desk.testing.embedder import HashingEmbedder

PUBLIC, RECORD, UNSAFE, EDITOR, WIDGET = "public", "record", "unsafe", "editor", "widget"
KINDS = frozenset({PUBLIC, RECORD, UNSAFE, EDITOR, WIDGET})
RECORD_PARAMS = ("{run_id}", "{conv_id}", "{receipt_id}", "{source_id}", "{note_id}")


@dataclass(frozen=True)
class Row:
    """One route of the app: its kinds and, for every kind but `public`, the request that
    exercises it (built from the world's ids; the tests add cookies and tokens)."""

    method: str
    path: str
    kinds: frozenset[str]
    call: Callable[[World], Call] | None = None
    landed: bool = True  # False: expected from editor.py / widget.py, not registered yet
    listing: bool = False  # a record route that lists the caller's own records

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"

    def build(self, world: World) -> Call:
        assert self.call is not None, f"{self.id} has no request to exercise it"
        return self.call(world)


def row(
    method: str, path: str, *kinds: str, call: Callable[[World], Call] | None = None, **kw: Any
) -> Row:
    return Row(method, path, frozenset(kinds), call, **kw)


def get(path: str) -> Callable[[World], Call]:
    """A GET of `path` with the world's ids (A's records) in its parameters."""
    return lambda w: Call("GET", path.format(**w.ids()))


def held(path: str) -> str:
    return path.replace("{run_id}", "{held}")


def editor_call(method: str, path: str, **body: Any) -> Callable[[World], Call]:
    """An editor's request on A's held run: a form under /desk, JSON under /api/desk."""

    def build(w: World) -> Call:
        url = path.format(run_id=w.held_id)
        if path.startswith("/api/"):
            return Call(method, url, json=dict(body))
        return Call(method, url, form={k: str(v).lower() for k, v in body.items()})

    return build


def widget_call(method: str, path: str, **body: str) -> Callable[[World], Call]:
    def build(w: World) -> Call:
        if path.startswith("/widget/api/"):
            return Call(method, path, json=dict(body))
        return Call(method, path, form=dict(body))

    return build


ROUTES: tuple[Row, ...] = (
    # ---- the app, the reader's pages and API (reader.py, auth.py, app.py)
    row("GET", "/", PUBLIC),
    row("GET", "/healthz", PUBLIC),
    row("GET", "/favicon.ico", PUBLIC),
    row("GET", "/api/openapi.json", PUBLIC),
    row("GET", "/api/docs", PUBLIC),
    row("GET", "/api/setup", PUBLIC),
    row("GET", "/api/preparing", PUBLIC),
    row("GET", "/signin", PUBLIC),
    row(
        "POST",
        "/signin",
        UNSAFE,
        call=lambda w: Call("POST", "/signin", form={"name": "editor", "password": PASSWORD}),
    ),
    row("POST", "/signout", UNSAFE, call=lambda w: Call("POST", "/signout", form={})),
    row("POST", "/ask", UNSAFE, call=lambda w: Call("POST", "/ask", form={"question": QUESTION})),
    row(
        "POST",
        "/api/ask",
        UNSAFE,
        call=lambda w: Call("POST", "/api/ask", json={"question": QUESTION}),
    ),
    row("GET", "/runs/{run_id}", RECORD, call=get("/runs/{run_id}")),
    row("GET", "/runs/{run_id}/events", RECORD, call=get("/runs/{run_id}/events")),
    row(
        "GET",
        "/runs/{run_id}/sources/{source_id}",
        RECORD,
        call=get("/runs/{run_id}/sources/{source_id}"),
    ),
    row(
        "GET",
        "/runs/{run_id}/receipts/{receipt_id}",
        RECORD,
        call=get("/runs/{run_id}/receipts/{receipt_id}"),
    ),
    row("GET", "/conversations/{conv_id}", RECORD, call=get("/conversations/{conv_id}")),
    row("GET", "/api/runs/{run_id}", RECORD, call=get("/api/runs/{run_id}")),
    row("GET", "/api/runs/{run_id}/events", RECORD, call=get("/api/runs/{run_id}/events")),
    row(
        "GET",
        "/api/runs/{run_id}/sources/{source_id}",
        RECORD,
        call=get("/api/runs/{run_id}/sources/{source_id}"),
    ),
    row("GET", "/api/conversations", RECORD, call=get("/api/conversations"), listing=True),
    row("GET", "/api/conversations/{conv_id}", RECORD, call=get("/api/conversations/{conv_id}")),
    # ---- lessons and notes (lessons.py): A's published run, its lesson, A's notes
    row(
        "POST",
        "/runs/{run_id}/explain",
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/runs/{w.run_id}/explain", form={}),
    ),
    row(
        "POST",
        "/api/runs/{run_id}/explain",
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/api/runs/{w.run_id}/explain"),
    ),
    row(
        "GET",
        "/runs/{run_id}/lesson",
        RECORD,
        call=lambda w: Call("GET", f"/runs/{w.lesson()}/lesson"),
    ),
    row(
        "GET",
        "/api/runs/{run_id}/lesson",
        RECORD,
        call=lambda w: Call("GET", f"/api/runs/{w.lesson()}/lesson"),
    ),
    row("GET", "/api/runs/{run_id}/notes", RECORD, call=get("/api/runs/{run_id}/notes")),
    row(
        "POST",
        "/api/runs/{run_id}/notes",
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/api/runs/{w.run_id}/notes", json={"text": "A note."}),
    ),
    row(
        "POST",
        "/runs/{run_id}/notes",
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/runs/{w.run_id}/notes", form={"text": "A note."}),
    ),
    row(
        "DELETE",
        "/api/notes/{note_id}",
        UNSAFE,
        RECORD,
        call=lambda w: Call("DELETE", f"/api/notes/{w.note()}"),
    ),
    row(
        "POST",
        "/notes/{note_id}/delete",
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/notes/{w.note()}/delete", form={}),
    ),
    # ---- the standards desk (editor.py): expected, tested once registered
    row("GET", "/desk", EDITOR, call=get("/desk")),
    row("GET", "/desk/dashboard", EDITOR, call=get("/desk/dashboard")),
    row(
        "GET",
        "/desk/runs/{run_id}",
        EDITOR,
        RECORD,
        call=lambda w: Call("GET", f"/desk/runs/{w.held_id}"),
    ),
    row(
        "POST",
        "/desk/runs/{run_id}/approve",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call("POST", "/desk/runs/{run_id}/approve", note="Checked."),
    ),
    row(
        "POST",
        "/desk/runs/{run_id}/reject",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call("POST", "/desk/runs/{run_id}/reject", reason="Planted orders."),
    ),
    row(
        "POST",
        "/desk/runs/{run_id}/edit",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call(
            "POST", "/desk/runs/{run_id}/edit", draft="The lighthouse tax.", note="Edited."
        ),
    ),
    row(
        "POST",
        "/desk/widget",
        EDITOR,
        UNSAFE,
        call=editor_call("POST", "/desk/widget", paused="true", reason="Testing."),
    ),
    row("GET", "/api/desk/queue", EDITOR, call=get("/api/desk/queue")),
    row("GET", "/api/desk/dashboard", EDITOR, call=get("/api/desk/dashboard")),
    row("GET", "/api/desk/widget", EDITOR, call=get("/api/desk/widget")),
    row(
        "GET",
        "/api/desk/runs/{run_id}",
        EDITOR,
        RECORD,
        call=lambda w: Call("GET", f"/api/desk/runs/{w.held_id}"),
    ),
    row(
        "POST",
        "/api/desk/runs/{run_id}/approve",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call("POST", "/api/desk/runs/{run_id}/approve", note="Checked."),
    ),
    row(
        "POST",
        "/api/desk/runs/{run_id}/reject",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call("POST", "/api/desk/runs/{run_id}/reject", reason="Planted orders."),
    ),
    row(
        "POST",
        "/api/desk/runs/{run_id}/edit",
        EDITOR,
        UNSAFE,
        RECORD,
        call=editor_call(
            "POST", "/api/desk/runs/{run_id}/edit", draft="The lighthouse tax.", note="Edited."
        ),
    ),
    row(
        "POST",
        "/api/desk/widget",
        EDITOR,
        UNSAFE,
        call=editor_call("POST", "/api/desk/widget", paused=True, reason="Testing."),
    ),
    # ---- the reader widget (widget.py): expected, tested once registered
    row("GET", "/widget", WIDGET, PUBLIC),
    row("GET", "/widget.js", PUBLIC),
    row(
        "POST",
        "/widget/ask",
        WIDGET,
        UNSAFE,
        call=widget_call("POST", "/widget/ask", question=QUESTION),
    ),
    row(
        "POST",
        "/widget/api/ask",
        WIDGET,
        UNSAFE,
        call=widget_call("POST", "/widget/api/ask", question=QUESTION),
    ),
    row("GET", "/widget/api/runs/{run_id}", WIDGET, RECORD),
    row(
        "POST",
        "/widget/runs/{run_id}",
        WIDGET,
        UNSAFE,
        RECORD,
        call=lambda w: Call("POST", f"/widget/runs/{w.run_id}", form={}),
    ),
)
TABLE = {r.id: r for r in ROUTES}


def rows(*having: str, without: tuple[str, ...] = ()) -> list[Any]:
    """The table's rows with all of `having` and none of `without`, as pytest params."""
    return [
        pytest.param(r, id=r.id)
        for r in ROUTES
        if set(having) <= r.kinds and not set(without) & r.kinds
    ]


def require(app: FastAPI, r: Row) -> None:
    if (r.method, r.path) not in registered_routes(app):
        pytest.skip(f"{r.id} is not registered yet (expected from editor.py / widget.py)")


def require_path(app: FastAPI, method: str, path: str) -> None:
    if (method, path) not in registered_routes(app):
        pytest.skip(f"{method} {path} is not registered yet (expected from widget.py)")


@pytest.fixture
def world(server: TestClient, app: FastAPI, web_desk: Desk) -> World:
    return make_world(app, web_desk)


@pytest.fixture
def me(server: TestClient, app: FastAPI) -> WebUser:
    """One reader on a desk of their own (for the tests that need no second person)."""
    return WebUser(app)


def fingerprint(desk: Desk) -> tuple[Any, ...]:
    """What an unsafe request may change: the runs, decided reviews, the widget switch."""
    accounts = desk.workspace.accounts
    return (
        len(desk.runs(limit=10_000)),
        sorted(accounts.closed_reviews()),
        len(accounts.widget_flips(1000)),
    )


# ====================================================================== 1. the inventory


def test_every_registered_route_is_classified(app: FastAPI) -> None:
    registered = registered_routes(app)
    unclassified = sorted(f"{m} {p}" for m, p in registered if f"{m} {p}" not in TABLE)
    assert not unclassified, (
        "routes the security matrix does not classify (add them to ROUTES in "
        f"tests/web/test_web_security.py): {', '.join(unclassified)}"
    )
    gone = sorted(r.id for r in ROUTES if r.landed and (r.method, r.path) not in registered)
    assert not gone, f"routes in the table the app no longer registers: {', '.join(gone)}"


@pytest.mark.parametrize("r", [pytest.param(r, id=r.id) for r in ROUTES])
def test_each_route_is_classified_consistently(r: Row) -> None:
    assert r.kinds and r.kinds <= KINDS, r.kinds
    if r.method in UNSAFE_METHODS:
        assert UNSAFE in r.kinds, f"{r.id} changes something: it must be CSRF-tested"
    else:
        assert UNSAFE not in r.kinds, f"{r.id} is a safe method"
    if any(p in r.path for p in RECORD_PARAMS):
        assert RECORD in r.kinds, f"{r.id} names a record: it must be IDOR-tested"
    if r.path.startswith(("/desk", "/api/desk")):
        assert EDITOR in r.kinds, f"{r.id} is the standards desk's: it must refuse readers"
    if r.path.startswith("/widget"):
        assert r.kinds & {WIDGET, PUBLIC}, f"{r.id} is the widget's"
        assert EDITOR not in r.kinds
    if PUBLIC in r.kinds:
        assert not r.kinds & {RECORD, UNSAFE, EDITOR}, f"{r.id} cannot be public and guarded"
    # widget reads are exercised by the widget IDOR test with the frame's own runs
    if r.kinds & {UNSAFE, EDITOR} or (RECORD in r.kinds and WIDGET not in r.kinds):
        assert r.call is not None, f"{r.id} needs a request to exercise it"


def test_the_inventory_fails_for_an_unclassified_route(app: FastAPI) -> None:
    """The inventory is not vacuous: a route added behind the table's back is reported."""

    @app.get("/api/runs/{run_id}/secret-export")
    async def sneaky(run_id: str) -> dict[str, str]:
        return {"run_id": run_id}

    with pytest.raises(AssertionError, match=r"GET /api/runs/\{run_id\}/secret-export"):
        test_every_registered_route_is_classified(app)


def test_public_routes_answer_anyone(app: FastAPI, server: TestClient) -> None:
    stranger = TestClient(app, follow_redirects=False)
    for r in ROUTES:
        if PUBLIC in r.kinds and (r.method, r.path) in registered_routes(app):
            response = stranger.get(r.path)
            assert response.status_code == 200, (r.id, response.text[:200])


# ====================================================================== 2. IDOR


def record_urls(r: Row, w: World) -> list[str]:
    """The route filled with each of A's records it can name."""
    if r.listing or r.path.endswith("/lesson"):  # a lesson: the one A's run has
        return [r.build(w).url]
    if "{source_id}" in r.path or "{receipt_id}" in r.path:
        runs = [w.run_id]
    else:
        runs = [w.run_id, w.follow_id, w.held_id]
    if "{conv_id}" in r.path:
        return [r.path.format(conv_id=c) for c in (w.conv_id, w.held_conv_id)]
    return [
        r.path.format(run_id=run, source_id="S1", receipt_id=run, conv_id=w.conv_id) for run in runs
    ]


def read(user: WebUser, url: str) -> Any:
    if url.endswith("/events") and not url.startswith("/api/"):
        with user.client.stream("GET", url) as stream:
            stream.read()
            return stream
    return user.get(url)


def body_of(response: Any) -> str:
    return response.content.decode("utf-8", "replace")


@pytest.mark.parametrize("r", rows(RECORD, without=(EDITOR, WIDGET, UNSAFE)))
def test_another_readers_record_is_a_404(r: Row, world: World) -> None:
    questions = (QUESTION, HELD_QUESTION, "freedom from fear")
    for url in record_urls(r, world):
        mine = read(world.a, url)  # first, so anything cached is A's
        assert mine.status_code == 200, (url, body_of(mine)[:200])
        theirs = read(world.b, url)
        text = body_of(theirs)
        for q in questions:
            assert q not in text, f"B read A's question through {url}"
        if r.listing:
            assert theirs.status_code == 200
            assert world.conv_id not in text and world.held_conv_id not in text
            continue
        assert world.conv_id not in text
        assert theirs.status_code == 404, (url, text[:200])
        if url.startswith("/api/"):
            assert theirs.headers["content-type"].startswith("application/json")
            assert set(theirs.json()) == {"error"}
        else:
            assert theirs.headers["content-type"].startswith("text/html")
            assert "<h1>Not found</h1>" in text
        assert one_sentence(error_message(theirs)), text
        # the same answer as a record that does not exist: nothing tells them apart
        missing = read(world.b, url.replace(world.run_id, "r_missing"))
        if world.run_id in url:
            assert missing.status_code == 404
        assert read(world.a, url).status_code == 200  # and A still reads it


@pytest.mark.parametrize("r", rows(RECORD, UNSAFE, without=(EDITOR, WIDGET)))
def test_another_reader_cannot_act_on_a_readers_record(r: Row, world: World) -> None:
    """B, with their own valid token, on A's record: the 404 of a missing one, and nothing
    changes; A's own request goes through."""
    call = r.build(world)
    before = fingerprint(world.desk)
    theirs = send(world.b.client, call, csrf=world.b.csrf, headers=SAME_ORIGIN)
    assert theirs.status_code == 404, theirs.text[:300]
    assert one_sentence(error_message(theirs)), theirs.text[:300]
    assert QUESTION not in theirs.text
    assert fingerprint(world.desk) == before
    mine = send(world.a.client, call, csrf=world.a.csrf, headers=SAME_ORIGIN)
    assert 200 <= mine.status_code < 400, mine.text[:300]


def test_a_receipt_is_reached_only_through_its_own_run(world: World) -> None:
    """B's own run with A's receipt id, and A's run with B's: both 404."""
    mine = world.b.wait(world.b.ask(QUESTION))["run_id"]
    assert world.b.get(f"/runs/{mine}/receipts/{mine}").status_code == 200
    r = world.b.get(f"/runs/{mine}/receipts/{world.run_id}")
    assert r.status_code == 404 and QUESTION not in r.text
    assert world.a.get(f"/runs/{world.run_id}/receipts/{mine}").status_code == 404


@pytest.mark.parametrize("form", [False, True], ids=["json", "form"])
def test_nobody_asks_into_another_readers_conversation(world: World, form: bool) -> None:
    before = fingerprint(world.desk)
    body = {"question": "And what about fear?", "conversation_id": world.conv_id}
    r = world.b.post_form("/ask", body) if form else world.b.post_json("/api/ask", body)
    assert r.status_code == 404, r.text
    assert one_sentence(error_message(r))
    assert fingerprint(world.desk) == before
    thread = world.a.get(f"/api/conversations/{world.conv_id}").json()
    assert [x["run_id"] for x in thread["runs"]] == [world.run_id, world.follow_id]


def test_an_editor_reads_every_run_a_reader_only_their_own(world: World) -> None:
    assert world.editor.get(f"/api/runs/{world.held_id}").status_code == 200
    assert world.b.get(f"/api/runs/{world.held_id}").status_code == 404


def test_a_widget_token_reads_only_its_own_widget_runs(app: FastAPI, world: World) -> None:
    require_path(app, "POST", "/widget/api/ask")
    require_path(app, "GET", "/widget/api/runs/{run_id}")
    wa, wb = WidgetUser(app), WidgetUser(app)
    assert wa.token != wb.token
    asked = wa.post_json("/widget/api/ask", {"question": QUESTION})
    assert asked.status_code in (200, 201, 202), asked.text
    run_id = asked.json()["run_id"]
    assert wa.get(f"/widget/api/runs/{run_id}").status_code == 200
    theirs = wb.get(f"/widget/api/runs/{run_id}")
    assert theirs.status_code == 404 and QUESTION not in theirs.text
    assert set(theirs.json()) == {"error"} and one_sentence(theirs.json()["error"])
    if ("POST", "/widget/runs/{run_id}") in registered_routes(app):  # "Check again", no JS
        form = {"widget_token": wb.token}
        checked = wb.client.post(f"/widget/runs/{run_id}", data=form, headers=SAME_ORIGIN)
        assert checked.status_code == 404 and QUESTION not in checked.text
        form = {"widget_token": wa.token}
        mine = wa.client.post(f"/widget/runs/{run_id}", data=form, headers=SAME_ORIGIN)
        assert mine.status_code == 200 and QUESTION in mine.text
    # a workspace reader's run is not the widget's either, nor the other way round
    assert wb.get(f"/widget/api/runs/{world.run_id}").status_code == 404
    assert world.b.get(f"/api/runs/{run_id}").status_code == 404
    # nor by a request without the token
    bare = TestClient(app).get(f"/widget/api/runs/{run_id}")
    assert bare.status_code in (401, 403, 404) and QUESTION not in bare.text


# ====================================================================== 3. CSRF


SAME_ORIGIN = {"origin": OWN, "sec-fetch-site": "same-origin"}


def csrf_refusals(me: WebUser, other: WebUser) -> dict[str, dict[str, Any]]:
    """Each way an unsafe request can lack a proof that this site sent it."""
    return {
        "no token": {"csrf": None, "headers": SAME_ORIGIN},
        "forged token": {"csrf": "f" * 43, "headers": SAME_ORIGIN},
        "empty token": {"csrf": "", "headers": SAME_ORIGIN},
        "another session's token": {"csrf": other.csrf, "headers": SAME_ORIGIN},
        "cross-origin": {"csrf": me.csrf, "headers": {"origin": EVIL}},
        "opaque origin": {"csrf": me.csrf, "headers": {"origin": "null"}},
        "cross-site fetch": {"csrf": me.csrf, "headers": {"sec-fetch-site": "cross-site"}},
        "same-site sibling": {"csrf": me.csrf, "headers": {"sec-fetch-site": "same-site"}},
    }


def assert_refused(response: Any, status: int = 403) -> None:
    assert response.status_code == status, response.text[:300]
    assert one_sentence(error_message(response)), response.text[:300]
    assert "set-cookie" not in response.headers  # a refusal rotates or opens no session


@pytest.mark.parametrize("r", rows(UNSAFE, without=(WIDGET,)))
def test_csrf_refuses_every_unsafe_request_that_lacks_its_proof(
    r: Row, world: World, app: FastAPI
) -> None:
    require(app, r)
    # a reader's record is acted on by its own reader (A), so the last request may succeed
    me = world.editor if EDITOR in r.kinds else world.a if RECORD in r.kinds else WebUser(app)
    other = world.b if me is world.a else world.a
    call = r.build(world)
    token_before = me.csrf
    before = fingerprint(world.desk)
    for case, how in csrf_refusals(me, other).items():
        response = send(me.client, call, **how)
        assert response.status_code == 403, (case, response.text[:300])
        assert_refused(response)
        message = error_message(response)
        assert "refused" in message, (case, message)
    stranger = TestClient(app, follow_redirects=False)  # a right-looking token, no session
    assert_refused(send(stranger, call, csrf=me.csrf, headers=SAME_ORIGIN))
    assert fingerprint(world.desk) == before, "a refused request changed something"
    assert me.refresh() == token_before, "a refused request ended or rotated the session"
    # the same request, with its token, from this site: the check was what refused it
    done = send(me.client, call, csrf=me.csrf, headers=SAME_ORIGIN)
    assert 200 <= done.status_code < 400, done.text[:300]


def test_csrf_token_in_a_form_field_does_not_pass_for_a_json_body(world: World) -> None:
    """A JSON route reads the token from its header only; a field in the body is data."""
    before = fingerprint(world.desk)
    r = world.b.client.post(
        "/api/ask", json={"question": QUESTION, "csrf_token": world.b.csrf}, headers=SAME_ORIGIN
    )
    assert r.status_code in (403, 422), r.text
    assert fingerprint(world.desk) == before


def test_a_missing_origin_and_fetch_site_still_needs_the_token(world: World) -> None:
    """Old browsers send neither header: the token alone then decides."""
    me = world.b
    assert_refused(me.client.post("/api/ask", json={"question": QUESTION}))
    assert me.post_json("/api/ask", {"question": QUESTION}).status_code == 202


@pytest.mark.parametrize("r", rows(UNSAFE, WIDGET))
def test_widget_unsafe_routes_need_the_widget_token_from_its_frame(
    r: Row, world: World, app: FastAPI
) -> None:
    require(app, r)
    frame = WidgetUser(app)
    call = r.build(world)
    if "{run_id}" in r.path:  # the frame's own widget run, so the last request may succeed
        asked = frame.post_json("/widget/api/ask", {"question": QUESTION}, **SAME_ORIGIN)
        assert asked.status_code == 202, asked.text
        url = r.path.format(run_id=asked.json()["run_id"])
        call = Call(call.method, url, form=call.form, json=call.json)
    is_form = call.is_form
    token_field = {"csrf_field": "widget_token", "csrf_header": "x-widget-token"}
    before = len(world.desk.runs(limit=10_000))
    cases: dict[str, dict[str, Any]] = {
        "no token": {"csrf": None},
        "forged token": {"csrf": "w" * 43},
        "cross-site": {"csrf": frame.token, "headers": {"sec-fetch-site": "cross-site"}},
        "cross-origin": {"csrf": frame.token, "headers": {"origin": EVIL}},
        # a reader's session cookie and CSRF token are not the widget's token
        "a workspace session": {"csrf": world.b.csrf},
    }
    for case, how in cases.items():
        client = world.b.client if case == "a workspace session" else frame.client
        if client is frame.client:
            client.cookies.clear()
        response = send(client, call, **token_field, **how)
        assert 400 <= response.status_code < 500, (case, response.status_code)
        assert response.status_code in (401, 403, 404), (case, response.text[:300])
        assert one_sentence(error_message(response)), (case, response.text[:300])
    assert len(world.desk.runs(limit=10_000)) == before, "a refused widget request opened a run"
    frame.client.cookies.clear()
    done = send(frame.client, call, csrf=frame.token, **token_field, headers=SAME_ORIGIN)
    assert 200 <= done.status_code < 400, (is_form, done.text[:300])


# ====================================================================== 4. editor routes


@pytest.mark.parametrize("r", rows(EDITOR))
def test_editor_routes_refuse_readers_and_strangers(r: Row, world: World, app: FastAPI) -> None:
    require(app, r)
    call = r.build(world)
    before = fingerprint(world.desk)
    stranger = TestClient(app, follow_redirects=False)
    nobody = send(stranger, call, headers=SAME_ORIGIN)
    # context.editor: no session is SignInRequired (401); on an unsafe method the CSRF check
    # (context.writer) answers first, with its 403.
    assert_refused(nobody, 403 if UNSAFE in r.kinds else 401)
    for reader in (world.a, world.b):  # the held run's own reader, and another
        refused = send(reader.client, call, csrf=reader.csrf, headers=SAME_ORIGIN)
        assert refused.status_code == 403, refused.text[:300]
        assert "editor" in error_message(refused), error_message(refused)
        assert HELD_QUESTION not in refused.text
    assert fingerprint(world.desk) == before
    # an editor is let through: the refusals above were the role check
    done = send(world.editor.client, call, csrf=world.editor.csrf, headers=SAME_ORIGIN)
    assert 200 <= done.status_code < 400, done.text[:300]


# ====================================================================== 5. sessions


def cookie_attributes(header: str) -> tuple[str, str, dict[str, str]]:
    first, *attrs = [p.strip() for p in header.split(";")]
    name, value = first.split("=", 1)
    parsed = {}
    for a in attrs:
        k, _, v = a.partition("=")
        parsed[k.lower()] = v
    return name, value, parsed


def test_the_session_cookie_is_httponly_lax_and_host_wide(app: FastAPI, server: TestClient) -> None:
    r = TestClient(app).get("/")
    name, value, attrs = cookie_attributes(r.headers["set-cookie"])
    assert name == COOKIE and len(value) >= 40
    assert "httponly" in attrs and attrs["samesite"] == "Lax" and attrs["path"] == "/"
    assert "secure" not in attrs and "domain" not in attrs
    hours = app.state.desk.settings.session_hours
    assert int(attrs["max-age"]) == int(hours * 3600)


def test_over_https_the_cookie_is_host_prefixed_and_secure(
    app: FastAPI, server: TestClient
) -> None:
    client = TestClient(app, base_url="https://testserver")
    r = client.get("/")
    name, _, attrs = cookie_attributes(r.headers["set-cookie"])
    assert name == SECURE_COOKIE
    assert "secure" in attrs and "httponly" in attrs and attrs["samesite"] == "Lax"
    assert attrs["path"] == "/" and "domain" not in attrs  # what __Host- requires
    # the same page again: the cookie is read back, no new session
    assert "set-cookie" not in client.get("/").headers


def test_first_visits_get_distinct_opaque_sessions(app: FastAPI, server: TestClient) -> None:
    tokens = {cookie_attributes(TestClient(app).get("/").headers["set-cookie"])[1] for _ in "abc"}
    assert len(tokens) == 3
    store = app.state.desk.settings.db_path.read_bytes()
    assert not any(t.encode() in store for t in tokens), "a session id is stored in the clear"


def session_token(user: WebUser) -> str:
    token = user.client.cookies.get(COOKIE)
    assert token
    return token


def test_sign_in_rotates_the_session_and_the_old_one_is_dead(
    app: FastAPI, web_desk: Desk, server: TestClient
) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    me = WebUser(app)
    planted, planted_csrf = session_token(me), me.csrf
    assert me.sign_in("editor").status_code == 303
    assert session_token(me) != planted and me.csrf != planted_csrf
    assert web_desk.workspace.people.session(planted) is None
    assert web_desk.workspace.people.session(session_token(me)).user.is_editor
    old = TestClient(app, cookies={COOKIE: planted})
    page = old.get("/")
    assert "set-cookie" in page.headers, "the planted id still opens a session"
    assert "Sign out editor" not in page.text
    assert_refused(
        old.post("/api/ask", json={"question": QUESTION}, headers={"x-csrf-token": planted_csrf})
    )


def test_sign_out_revokes_the_session(app: FastAPI, web_desk: Desk, server: TestClient) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    me = WebUser(app)
    assert me.sign_in("editor").status_code == 303
    token = session_token(me)
    assert "Sign out editor" in me.get("/").text
    out = me.post_form("/signout", {})
    assert out.status_code == 303 and out.headers["location"] == "/"
    assert web_desk.workspace.people.session(token) is None
    old = TestClient(app, cookies={COOKIE: token})
    page = old.get("/")
    assert "set-cookie" in page.headers and "Sign out editor" not in page.text
    assert (
        web_desk.workspace.people.session(
            cookie_attributes(page.headers["set-cookie"])[1]
        ).user.name
        is None
    )  # a new anonymous reader, not the editor


class MovableClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clocked(web_desk: Desk) -> Iterator[tuple[FastAPI, MovableClock]]:
    """The app over a desk (on the same data) whose clock the test moves."""
    clock = MovableClock()
    desk = Desk(web_desk.settings, embedder=HashingEmbedder(), clock=clock)
    app = create_app(desk)
    with TestClient(app):
        yield app, clock


def test_an_expired_session_is_not_accepted(clocked: tuple[FastAPI, MovableClock]) -> None:
    app, clock = clocked
    me = WebUser(app)
    token, csrf = session_token(me), me.csrf
    hours = app.state.desk.settings.session_hours
    clock.now += timedelta(hours=hours) - timedelta(minutes=1)
    assert "set-cookie" not in me.get("/").headers  # still live a minute before it ends
    clock.now += timedelta(minutes=2)
    assert app.state.desk.workspace.people.session(token) is None
    assert_refused(
        me.client.post("/api/ask", json={"question": QUESTION}, headers={"x-csrf-token": csrf})
    )
    page = me.get("/")
    assert "set-cookie" in page.headers  # a new session, the expired one not revived
    assert cookie_attributes(page.headers["set-cookie"])[1] != token


def sign_in_from(app: FastAPI, host: str, name: str, password: str) -> Any:
    user = WebUser.__new__(WebUser)
    user.client = TestClient(app, follow_redirects=False, client=(host, 50000))
    user.csrf = ""
    user.refresh()
    return user.post_form("/signin", {"name": name, "password": password})


def test_sign_in_is_rate_limited_per_name(app: FastAPI, web_desk: Desk, server: TestClient) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    limit = web_desk.settings.sign_in_attempts
    for i in range(limit):  # each from its own client: only the name is counted
        wrong = sign_in_from(app, f"10.0.0.{i}", "editor", "not the password")
        assert wrong.status_code == 401, wrong.text[:200]
    blocked = sign_in_from(app, "10.0.1.1", "editor", PASSWORD)
    assert blocked.status_code == 429
    assert "Too many failed sign-ins" in blocked.text and "set-cookie" not in blocked.headers
    assert sign_in_from(app, "10.0.1.2", "EDITOR", PASSWORD).status_code == 429  # any case


def test_sign_in_is_rate_limited_per_client(
    app: FastAPI, web_desk: Desk, server: TestClient
) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    limit = web_desk.settings.sign_in_attempts
    for i in range(limit):  # one client guessing names
        assert sign_in_from(app, "10.9.9.9", f"guess{i}", "not the password").status_code == 401
    assert sign_in_from(app, "10.9.9.9", "editor", PASSWORD).status_code == 429
    assert sign_in_from(app, "10.9.9.10", "editor", PASSWORD).status_code == 303  # others may


# ====================================================================== 6. hostile input


def test_an_oversize_body_is_a_413_with_its_length_declared(me: WebUser) -> None:
    body = json.dumps({"question": "x" * (MAX_BODY + 1)})
    r = me.client.post(
        "/api/ask",
        content=body,
        headers={"content-type": "application/json", "x-csrf-token": me.csrf},
    )
    assert r.status_code == 413
    assert r.json() == {"error": "The request body is larger than 128 KiB."}


@pytest.mark.parametrize("path", ["/api/ask", "/ask"])
def test_an_oversize_body_is_a_413_when_streamed_without_a_length(
    me: WebUser, web_desk: Desk, path: str
) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"x" * 8192  # 320 KiB in all, no Content-Length

    content_type = (
        "application/json" if path.startswith("/api/") else ("application/x-www-form-urlencoded")
    )
    before = fingerprint(web_desk)
    r = me.client.post(
        path,
        content=chunks(),
        headers={"content-type": content_type, "x-csrf-token": me.csrf, **SAME_ORIGIN},
    )
    assert r.status_code == 413, r.text[:300]
    assert error_message(r) == "The request body is larger than 128 KiB."
    assert fingerprint(web_desk) == before


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ("{not json", 422, "The request body is not valid JSON."),
        ('["a", "list"]', 422, "The request body must be a JSON object."),
        ('"a string"', 422, "The request body must be a JSON object."),
        ('{"question": "Why?", "extra": 1}', 422, None),
        ('{"question": 7}', 422, None),
        ('{"question": "Why?", "mode": "frantic"}', 422, None),
        ("", 422, "The request body is missing."),
        ('{"question": "   "}', 400, "The question is empty."),
    ],
    ids=[
        "malformed",
        "array",
        "string",
        "unknown-field",
        "wrong-type",
        "bad-mode",
        "empty",
        "blank",
    ],
)
def test_bad_json_is_a_4xx_with_one_sentence(
    me: WebUser, web_desk: Desk, body: str, status: int, message: str | None
) -> None:
    before = fingerprint(web_desk)
    r = me.client.post(
        "/api/ask",
        content=body,
        headers={"content-type": "application/json", "x-csrf-token": me.csrf},
    )
    assert r.status_code == status, r.text
    said = error_message(r)
    assert one_sentence(said), said
    if message is not None:
        assert said == message
    assert fingerprint(web_desk) == before


def test_a_100_kb_question_is_a_413(me: WebUser, web_desk: Desk) -> None:
    before = fingerprint(web_desk)
    big = "Why? " * 20_000
    r = me.post_json("/api/ask", {"question": big})
    assert r.status_code == 413, r.text[:300]
    assert error_message(r) == "A question has at most 2,000 characters; this one has 99,999."
    form = me.post_form("/ask", {"question": big})
    assert form.status_code == 413 and one_sentence(error_message(form))
    assert fingerprint(web_desk) == before


def test_an_empty_question_from_the_form_is_a_400(me: WebUser) -> None:
    r = me.post_form("/ask", {"question": ""})
    assert r.status_code in (400, 422), r.text[:300]
    assert one_sentence(error_message(r))


UNKNOWN = (
    "/api/runs/r_does_not_exist",
    "/runs/r_does_not_exist",
    "/api/runs/r_does_not_exist/events",
    "/runs/r_does_not_exist/events",
    "/api/conversations/c_does_not_exist",
    "/conversations/c_does_not_exist",
    "/api/runs/{run}/sources/S99",
    "/runs/{run}/sources/S99",
    "/runs/{run}/receipts/r_other",
    "/runs/" + "%2e%2e%2f" * 3 + "etc",
    "/api/runs/" + "r" * 500,
    "/no/such/page",
)


def test_unknown_ids_are_a_404_with_one_sentence(me: WebUser) -> None:
    run_id = me.wait(me.ask(QUESTION))["run_id"]
    for url in UNKNOWN:
        r = me.get(url.format(run=run_id))
        assert r.status_code == 404, (url, r.text[:300])
        assert one_sentence(error_message(r)), (url, r.text[:300])
        kind = "application/json" if url.startswith("/api/") else "text/html"
        assert r.headers["content-type"].startswith(kind), url


TAGS = '<script>alert(1)</script> and "><img src=x onerror=alert(1)>'
SCRIPT, SCRIPT_ESCAPED = "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"
HOSTILE = TAGS + " in 1941?"


def test_a_hostile_question_is_shown_escaped(world: World) -> None:
    me = world.b
    run = me.wait(me.ask("What did Roosevelt say about speech " + HOSTILE))
    pages = [me.get(f"/runs/{run['run_id']}"), me.get(f"/conversations/{run['conv_id']}")]
    pages.append(me.get("/"))  # the conversation list names it too
    for page in pages:
        assert page.status_code == 200
        assert SCRIPT not in page.text
        assert "<img src=x" not in page.text
        assert SCRIPT_ESCAPED in page.text
        img = "&gt;&lt;img src=x onerror=alert(1)&gt;"
        assert f"&#34;{img}" in page.text or f"&quot;{img}" in page.text
    api = me.get(f"/api/runs/{run['run_id']}")
    assert api.headers["content-type"].startswith("application/json")
    assert api.json()["question"].endswith(HOSTILE)  # data in JSON, not markup


def assert_escaped(page: Any, where: str, script: str = SCRIPT) -> None:
    assert page.status_code == 200, (where, page.text[:300])
    assert script not in page.text, where
    assert "<img src=x" not in page.text, where
    escaped = script.replace("<", "&lt;").replace(">", "&gt;")
    assert escaped in page.text, where


def test_a_hostile_question_reaches_the_editor_escaped(world: World, app: FastAPI) -> None:
    """The stored-XSS path that matters most: a reader's question on the editor's pages."""
    script = "<script>alert(x)</script>"  # the offline planner still holds this one
    asked = world.b.wait(world.b.ask(HELD_QUESTION + " " + script))
    pages = {"/desk/dashboard": "desk dashboard", "/desk": "queue"}
    if asked["state"] == "held":
        pages[f"/desk/runs/{asked['run_id']}"] = "review page"
    else:
        pytest.fail(f"the hostile held question was {asked['state']}, not held")
    registered = {p for _, p in registered_routes(app)}
    shown = 0
    for url, where in pages.items():
        template = "/desk/runs/{run_id}" if url.startswith("/desk/runs/") else url
        if template not in registered:
            continue
        assert_escaped(world.editor.get(url), where, script)
        shown += 1
    if not shown:
        pytest.skip("GET /desk, /desk/dashboard, /desk/runs/{run_id} are not registered yet")


def test_a_hostile_question_in_the_widget_is_shown_escaped(
    app: FastAPI, server: TestClient
) -> None:
    require_path(app, "POST", "/widget/ask")
    frame = WidgetUser(app)
    question = "What did Roosevelt say about speech " + HOSTILE
    form = {"question": question, "widget_token": frame.token}
    assert_escaped(frame.client.post("/widget/ask", data=form, headers=SAME_ORIGIN), "widget")


def test_a_hostile_sign_in_error_is_shown_escaped(app: FastAPI, server: TestClient) -> None:
    me = WebUser(app)
    r = me.post_form("/signin", {"name": "<script>x</script>", "password": "p", "next": HOSTILE})
    assert r.status_code == 401
    assert "<script>" not in r.text and "<img src=x" not in r.text


def assert_strict_headers(response: Any, framed: bool) -> None:
    csp = response.headers["content-security-policy"]
    directives = {d.split()[0]: d for d in (p.strip() for p in csp.split(";")) if d}
    assert directives["script-src"] == "script-src 'self'"
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert directives["object-src"] == "object-src 'none'"
    assert response.headers["x-content-type-options"] == "nosniff"
    if framed:
        assert directives["frame-ancestors"] != "frame-ancestors 'none'"
        assert "x-frame-options" not in response.headers
    else:
        assert directives["frame-ancestors"] == "frame-ancestors 'none'"
        assert response.headers["x-frame-options"] == "DENY"


def test_every_response_has_the_strict_headers(world: World, app: FastAPI) -> None:
    urls = {r.path for r in ROUTES if r.method == "GET" and PUBLIC in r.kinds}
    urls |= set(
        u
        for r in ROUTES
        if r.method == "GET" and RECORD in r.kinds and not r.kinds & {EDITOR, WIDGET}
        for u in record_urls(r, world)
    )
    urls |= {"/no/such/page", "/runs/r_missing", "/api/runs/r_missing", "/static/app.css"}
    registered = {p for _, p in registered_routes(app)}
    seen_html = 0
    for url in sorted(urls):
        if url.startswith("/widget") and url not in registered:
            continue
        response = read(world.a, url)
        assert_strict_headers(response, framed=url.startswith("/widget"))
        seen_html += response.headers.get("content-type", "").startswith("text/html")
    assert seen_html >= 6
    refused = world.a.client.post("/api/ask", json={"question": QUESTION})
    assert_strict_headers(refused, framed=False)  # refusals too
    for r in ROUTES:
        if EDITOR in r.kinds and r.method == "GET" and (r.method, r.path) in registered_routes(app):
            assert_strict_headers(world.editor.get(r.build(world).url), framed=False)


def test_the_widget_frame_alone_may_be_framed(app: FastAPI, server: TestClient) -> None:
    require_path(app, "GET", "/widget")
    r = TestClient(app).get("/widget")
    assert r.status_code == 200
    assert_strict_headers(r, framed=True)
    assert "set-cookie" not in r.headers, "the widget frame sets no cookie"


def test_receipts_are_served_as_attachments(world: World) -> None:
    # a held run's receipt holds its draft: not its reader's (test_web_held_draft.py)
    assert world.a.get(f"/runs/{world.held_id}/receipts/{world.held_id}").status_code == 404
    for run in (world.run_id,):
        r = world.a.get(f"/runs/{run}/receipts/{run}")
        assert r.status_code == 200
        assert r.headers["content-disposition"] == f'attachment; filename="{run}.json"'
        assert r.headers["content-type"].startswith("application/json")
        assert r.headers["x-content-type-options"] == "nosniff"
        assert json.loads(r.text)["run_id"] == run


def test_error_bodies_carry_no_stack_trace(world: World, app: FastAPI) -> None:
    probes = [
        world.a.get("/api/runs/r_missing"),
        world.a.get("/runs/r_missing"),
        world.a.client.post("/api/ask", content=b"{", headers={"x-csrf-token": world.a.csrf}),
        world.a.client.put("/api/ask", json={}),
        world.a.get("/api/runs/" + world.run_id + "/events?after=not-a-number"),
        world.a.get("/runs/" + world.run_id + "/events", headers={"last-event-id": "x" * 500}),
    ]
    for r in probes[:-1]:
        assert 400 <= r.status_code < 500, (r.status_code, r.text[:200])
        assert "Traceback" not in r.text and 'File "' not in r.text
        assert one_sentence(error_message(r)), r.text[:300]
    assert probes[-1].status_code == 200  # a garbled Last-Event-ID replays from the start


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "https://evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "//evil.example/%2F..",
        "http:evil.example",
        "/\t/evil.example",
        " //evil.example",
    ],
)
def test_sign_in_never_redirects_off_site(
    app: FastAPI, web_desk: Desk, server: TestClient, target: str
) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    me = WebUser(app)
    page = me.get("/signin", params={"next": target})
    found = re.search(r'name="next" value="([^"]*)"', page.text)
    assert found and found.group(1).startswith("/") and not found.group(1).startswith("//")
    r = me.post_form("/signin", {"name": "editor", "password": PASSWORD, "next": target})
    assert r.status_code == 303
    location = r.headers["location"]
    landed = urlsplit(urljoin("http://testserver/signin", location))
    assert landed.netloc == "testserver", location
    assert location.startswith("/") and not location.startswith(("//", "/\\"))


def test_sign_in_keeps_a_local_next(app: FastAPI, web_desk: Desk, server: TestClient) -> None:
    web_desk.workspace.people.add("editor", PASSWORD, editor=True)
    me = WebUser(app)
    r = me.post_form("/signin", {"name": "editor", "password": PASSWORD, "next": "/desk?x=1"})
    assert r.status_code == 303 and r.headers["location"] == "/desk?x=1"


# ====================================================================== 7. the kill switch


def test_the_kill_switch_pauses_the_widget_only(world: World, app: FastAPI) -> None:
    require_path(app, "POST", "/widget/api/ask")
    editor = world.desk.workspace.people.accounts.user_by_name("editor")
    assert editor is not None
    ws = world.desk.workspace
    frame = WidgetUser(app)
    ws.flip_widget(editor[0], True, "A planted page is being answered.")
    before = len(world.desk.runs(limit=10_000))
    paused = frame.post_json("/widget/api/ask", {"question": QUESTION}, **SAME_ORIGIN)
    assert paused.status_code == 503, paused.text
    body = paused.json()
    assert body.get("paused") is True and one_sentence(body["error"]), body
    assert len(world.desk.runs(limit=10_000)) == before, "a paused widget opened a run"
    assert world.b.post_json("/api/ask", {"question": QUESTION}).status_code == 202
    ws.flip_widget(editor[0], False, "Fixed.")
    live = frame.post_json("/widget/api/ask", {"question": QUESTION}, **SAME_ORIGIN)
    assert live.status_code in (200, 201, 202), live.text


def test_the_editor_pulls_the_kill_switch_over_http(world: World, app: FastAPI) -> None:
    """The switch as an editor pulls it (`POST /api/desk/widget`): the frame, the form and
    the JSON API all answer the calm notice and open nothing; the workspace carries on."""
    require_path(app, "POST", "/api/desk/widget")
    require_path(app, "POST", "/widget/api/ask")
    frame = WidgetUser(app)
    flip = {"paused": True, "reason": "A planted page is being answered."}
    assert world.editor.post_json("/api/desk/widget", flip).status_code == 200
    assert world.desk.workspace.widget_paused()
    before = fingerprint(world.desk)
    notice = TestClient(app).get("/widget")
    assert notice.status_code == 200 and "paused" in notice.text
    assert "data-widget-token" not in notice.text  # a paused frame hands out no session
    api = frame.post_json("/widget/api/ask", {"question": QUESTION}, **SAME_ORIGIN)
    assert api.status_code == 503 and api.json()["paused"] is True
    if ("POST", "/widget/ask") in registered_routes(app):
        form = {"question": QUESTION, "widget_token": frame.token}
        page = frame.client.post("/widget/ask", data=form, headers=SAME_ORIGIN)
        assert "paused" in page.text and "<script>" not in page.text.split("</main>")[0]
    assert fingerprint(world.desk)[0] == before[0], "a paused widget opened a run"
    assert world.b.post_json("/api/ask", {"question": QUESTION}).status_code == 202
    resume = {"paused": False, "reason": "Fixed."}
    assert world.editor.post_json("/api/desk/widget", resume).status_code == 200
    live = frame.post_json("/widget/api/ask", {"question": QUESTION}, **SAME_ORIGIN)
    assert live.status_code == 202, live.text
    # a reader cannot pull it: refused by role, and the switch stays as it was
    pulled = world.b.post_json("/api/desk/widget", flip)
    assert pulled.status_code == 403 and not world.desk.workspace.widget_paused()


def test_only_an_editor_flips_the_kill_switch(web_desk: Desk) -> None:
    reader = web_desk.workspace.accounts.add_user(None, "reader", None)
    with pytest.raises(Forbidden):
        web_desk.workspace.flip_widget(reader, True)
    assert not web_desk.workspace.widget_paused()
