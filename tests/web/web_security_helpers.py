"""What the security matrix (`test_web_security.py`) shares: the app's route inventory, one
request as data (`Call`), a reader's world of records to attack, and a widget browser.

A route is a `(method, path)` pair as the app registers it; the matrix classifies each one
and builds a concrete request for it from a `World` (the ids of reader A's records).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from starlette.routing import Mount, Route
from starlette.testclient import TestClient
from web_helpers import HELD_QUESTION, PASSWORD, QUESTION, WebUser

from evidence_desk.desk import Desk

FOLLOW_UP = "What did he say about freedom from fear?"
EVIL = "https://evil.example"
OWN = "http://testserver"
WIDGET_TOKEN = re.compile(r'data-widget-token="([^"]+)"')
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def registered_routes(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) the app answers, the static files' mount left out. HEAD is
    dropped where Starlette adds it to a GET. Routers included with `include_router` are
    walked with their prefix (FastAPI keeps them as one entry holding `original_router`)."""
    return _walk(app.routes, "")


def _walk(routes: Iterable[Any], prefix: str) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for route in routes:
        if isinstance(route, Mount):
            continue
        included = getattr(route, "original_router", None)
        if included is not None:
            out |= _walk(included.routes, prefix + route.include_context.prefix)
            continue
        assert isinstance(route, Route), f"an unexpected kind of route: {route!r}"
        methods = set(route.methods or ())
        if "GET" in methods:
            methods.discard("HEAD")
        out |= {(m, prefix + route.path) for m in methods}
    return out


@dataclass(frozen=True)
class Call:
    """One request, before the test adds its cookies and tokens. `form` goes as a form
    (the CSRF token as `csrf_token`), `json` as a JSON body (the token as `X-CSRF-Token`)."""

    method: str
    url: str
    form: dict[str, str] | None = None
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def is_form(self) -> bool:
        return self.form is not None


def send(
    client: TestClient,
    call: Call,
    *,
    csrf: str | None = None,
    csrf_field: str = "csrf_token",
    csrf_header: str = "x-csrf-token",
    headers: dict[str, str] | None = None,
) -> Any:
    """Send `call` from `client`, with `csrf` (when given) where its kind of body carries it."""
    all_headers = {**call.headers, **(headers or {})}
    if call.is_form:
        data = dict(call.form or {})
        if csrf is not None:
            data[csrf_field] = csrf
        return client.request(call.method, call.url, data=data, headers=all_headers)
    if csrf is not None:
        all_headers[csrf_header] = csrf
    if call.json is None:
        return client.request(call.method, call.url, headers=all_headers)
    return client.request(call.method, call.url, json=call.json, headers=all_headers)


@dataclass
class World:
    """Reader A's records (a published run, its follow-up in the same conversation, a held
    run; the published run's lesson and A's notes when a test asks for them), reader B on
    the same app, and a signed-in editor."""

    app: FastAPI
    desk: Desk
    a: WebUser
    b: WebUser
    editor: WebUser
    run_id: str
    follow_id: str
    held_id: str
    conv_id: str
    held_conv_id: str
    lesson_id: str | None = None

    def lesson(self) -> str:
        """The lesson of A's published run, explained (once) and finished."""
        if self.lesson_id is None:
            r = self.a.post_json(f"/api/runs/{self.run_id}/explain", None)
            assert r.status_code == 202, r.text
            self.lesson_id = str(r.json()["run_id"])
            deadline = time.monotonic() + 60
            while self.a.get(f"/api/runs/{self.lesson_id}/lesson").json()["live"]:
                assert time.monotonic() < deadline, "the lesson never finished"
                time.sleep(0.02)
        return self.lesson_id

    def note(self) -> str:
        """A new note of A's on their published run: its id."""
        r = self.a.post_json(f"/api/runs/{self.run_id}/notes", {"text": "A's own note."})
        assert r.status_code == 201, r.text
        return str(r.json()["note_id"])

    def ids(self) -> dict[str, str]:
        """What the path parameters of a record route are filled with: A's records."""
        return {
            "run_id": self.run_id,
            "conv_id": self.conv_id,
            "source_id": "S1",
            "receipt_id": self.run_id,
        }


def make_world(app: FastAPI, desk: Desk) -> World:
    a = WebUser(app)
    first = a.wait(a.ask(QUESTION))
    assert first["state"] == "published", first
    conv = first["conv_id"]
    follow = a.wait(a.ask(FOLLOW_UP, conversation_id=conv))
    held = a.wait(a.ask(HELD_QUESTION))
    assert held["state"] == "held", held
    desk.workspace.people.add("editor", PASSWORD, editor=True)
    editor = WebUser(app)
    assert editor.sign_in("editor").status_code == 303
    return World(
        app=app,
        desk=desk,
        a=a,
        b=WebUser(app),
        editor=editor,
        run_id=first["run_id"],
        follow_id=follow["run_id"],
        held_id=held["run_id"],
        conv_id=conv,
        held_conv_id=held["conv_id"],
    )


class WidgetUser:
    """One widget frame: no cookies, only the token its page carries."""

    def __init__(self, app: FastAPI) -> None:
        self.client = TestClient(app, follow_redirects=False)
        self.client.cookies.clear()
        r = self.client.get("/widget")
        assert r.status_code == 200, r.text
        found = WIDGET_TOKEN.search(r.text)
        assert found, "the widget frame carries no data-widget-token"
        self.token = found.group(1)
        self.client.cookies.clear()  # the widget authenticates by its token, never a cookie

    def post_json(self, path: str, body: Any, **headers: str) -> Any:
        self.client.cookies.clear()
        return self.client.post(path, json=body, headers={"x-widget-token": self.token, **headers})

    def get(self, path: str, **headers: str) -> Any:
        self.client.cookies.clear()
        return self.client.get(path, headers={"x-widget-token": self.token, **headers})


def one_sentence(text: str) -> bool:
    """A refusal a person can read: one sentence, no stack trace."""
    text = text.strip()
    return (
        bool(text)
        and "Traceback" not in text
        and "\n" not in text
        and text[-1] in ".!?"
        and text.count(". ") <= 1  # at most a clause after a colon-free full stop
    )


def error_message(response: Any) -> str:
    """The refusal's sentence: `{"error": ...}` from the API, the notice on an HTML page."""
    if response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
        assert isinstance(body, dict) and set(body) >= {"error"}, body
        message: str = body["error"]
        return message
    found = re.search(r'<p class="(?:w-)?notice[^"]*" role="alert">(.*?)</p>', response.text, re.S)
    assert found, f"an error page without its notice: {response.text[:300]}"
    return found.group(1)
