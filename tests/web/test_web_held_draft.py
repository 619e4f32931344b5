"""A held draft is for the standards desk alone: no route a reader reaches shows any of it.

A reader asks `HELD_QUESTION` (its source gives orders to a model, so the gate holds the
answer) beside a published question in the same conversation, and the widget asks it too.
Then every GET route the app registers is either called as that reader (each of the held
run's sources, receipts, events, pages and JSON) or named here as not the reader's: a new
route fails the test until it is placed. No body may hold a sentence or a quote of the held
draft; the editor's own views of the same run do, which shows the search finds what it
looks for.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from web_helpers import FINISHED, HELD_QUESTION, QUESTION, WebUser, Widget
from web_security_helpers import registered_routes

from evidence_desk.desk import Desk
from evidence_desk.desk.workspace import HELD_NOTICE

# GET routes that are not a reader's view of a run: the desk's (editor-only, tested in
# test_web_security.py), and pages that hold no run at all.
NOT_A_READERS_RUN = {
    "/desk",
    "/desk/runs/{run_id}",
    "/desk/dashboard",
    "/api/desk/queue",
    "/api/desk/runs/{run_id}",
    "/api/desk/dashboard",
    "/api/desk/widget",
    "/signin",
    "/healthz",
    "/api/openapi.json",  # the API's schema
    "/api/docs",
    "/api/setup",
    "/widget.js",
    "/favicon.ico",
    "/api/preparing",
}
CITE = re.compile(r"\s*\[S\d+\]")


def draft_pieces(receipt: dict[str, Any]) -> list[str]:
    """Every sentence of the held draft without its markers, and every quote in it."""
    sentences = [CITE.sub("", c["text"]).strip() for c in receipt["claims"]]
    quotes = [q["text"] for q in receipt["quotes"] if len(q["text"].split()) >= 3]
    pieces = [p for p in [*sentences, *quotes] if len(p) >= 12]
    assert pieces, "the held run has no draft to look for"
    return pieces


def readable(body: str) -> str:
    """A body as its reader reads it: JSON strings decoded, HTML entities undone, white
    space collapsed."""
    text = body
    with contextlib.suppress(ValueError):
        text = json.dumps(json.loads(body), ensure_ascii=False)
    text = html.unescape(text.replace("\\n", " ").replace('\\"', '"'))
    return " ".join(text.split())


def leaks(body: str, pieces: list[str]) -> list[str]:
    seen = readable(body)
    return [p for p in pieces if " ".join(p.split()) in seen]


def wait_finished(me: WebUser, run_id: str) -> dict[str, Any]:
    run = me.wait(run_id)
    assert run["state"] in FINISHED
    return run


@pytest.fixture
def held_world(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> tuple[WebUser, str, str, list[str], dict[str, Any]]:
    me = reader()
    published = wait_finished(me, me.ask(QUESTION))
    assert published["state"] == "published"
    conv = published["conv_id"]
    held = wait_finished(me, me.ask(HELD_QUESTION, conversation_id=conv))
    assert held["state"] == "held"
    stored = web_desk.store.get_receipt(held["run_id"])
    assert stored is not None
    receipt = json.loads(stored.json)
    assert receipt["decision"] == "HELD_FOR_REVIEW"
    return me, held["run_id"], conv, draft_pieces(receipt), receipt


def reader_calls(
    app: FastAPI, run_id: str, conv: str, receipt: dict[str, Any]
) -> list[tuple[str, str]]:
    """(route, path) for every GET route of the app a reader reaches, filled in for the
    held run; a route this test does not know fails it."""
    sources = [s["id"] for s in receipt["sources"]] or ["S1"]
    fill: dict[str, list[str]] = {
        "/": ["/"],
        "/runs/{run_id}": [f"/runs/{run_id}"],
        "/runs/{run_id}/events": [f"/runs/{run_id}/events"],
        "/runs/{run_id}/sources/{source_id}": [f"/runs/{run_id}/sources/{s}" for s in sources],
        "/runs/{run_id}/receipts/{receipt_id}": [f"/runs/{run_id}/receipts/{run_id}"],
        "/conversations/{conv_id}": [f"/conversations/{conv}"],
        "/api/runs/{run_id}": [f"/api/runs/{run_id}"],
        "/api/runs/{run_id}/events": [f"/api/runs/{run_id}/events"],
        "/api/runs/{run_id}/sources/{source_id}": [
            f"/api/runs/{run_id}/sources/{s}" for s in sources
        ],
        "/api/conversations": ["/api/conversations"],
        "/api/conversations/{conv_id}": [f"/api/conversations/{conv}"],
        # a held run has no lesson (404), and its reader's notes are theirs (none here)
        "/runs/{run_id}/lesson": [f"/runs/{run_id}/lesson"],
        "/api/runs/{run_id}/lesson": [f"/api/runs/{run_id}/lesson"],
        "/api/runs/{run_id}/notes": [f"/api/runs/{run_id}/notes"],
        "/widget": ["/widget"],
        "/widget/api/runs/{run_id}": [],  # the widget's own run: below
    }
    calls: list[tuple[str, str]] = []
    unknown: list[str] = []
    for method, path in sorted(registered_routes(app)):
        if method != "GET" or path in NOT_A_READERS_RUN:
            continue
        if path not in fill:
            unknown.append(path)
            continue
        calls.extend((path, p) for p in fill[path])
    assert not unknown, f"GET routes this test does not know: {unknown}; place them here"
    return calls


def test_no_reader_route_shows_any_part_of_a_held_draft(
    held_world: tuple[WebUser, str, str, list[str], dict[str, Any]],
    app: FastAPI,
) -> None:
    me, run_id, conv, pieces, receipt = held_world
    shown: list[str] = []
    for route, path in reader_calls(app, run_id, conv, receipt):
        r = me.get(path)
        assert r.status_code in (200, 404), (path, r.status_code, r.text[:300])
        found = leaks(r.text, pieces)
        assert not found, f"{path} ({route}) shows the held draft: {found[0]!r}"
        shown.append(path)
    assert f"/runs/{run_id}/receipts/{run_id}" in shown


def test_the_reader_still_sees_the_decision_and_its_reason(
    held_world: tuple[WebUser, str, str, list[str], dict[str, Any]],
) -> None:
    me, run_id, _, _, receipt = held_world
    run = me.get(f"/api/runs/{run_id}").json()
    assert run["answer"]["decision"] == "HELD_FOR_REVIEW"
    assert run["answer"]["reason"] == receipt["reason"]
    assert run["answer"]["published"] is None
    assert run["answer"]["receipts"] == []
    page = me.get(f"/runs/{run_id}").text
    assert html.escape(receipt["reason"], quote=False) in page
    assert f"/runs/{run_id}/receipts/" not in page
    denied = me.get(f"/runs/{run_id}/receipts/{run_id}")
    assert denied.status_code == 404 and HELD_NOTICE in denied.text
    source = me.get(f"/api/runs/{run_id}/sources/S1")
    assert source.status_code == 404 and HELD_NOTICE in source.text


def test_editors_keep_everything(
    held_world: tuple[WebUser, str, str, list[str], dict[str, Any]],
    editor: Callable[..., WebUser],
) -> None:
    _, run_id, _, pieces, _ = held_world
    ed = editor("sam")
    for path in (f"/runs/{run_id}/receipts/{run_id}", f"/desk/runs/{run_id}"):
        r = ed.get(path)
        assert r.status_code == 200 and leaks(r.text, pieces), path
    assert ed.get(f"/api/runs/{run_id}").json()["answer"]["receipts"] == [run_id]
    assert any(q["verbatim"] for q in ed.get(f"/api/runs/{run_id}/sources/S1").json()["quotes"])


def test_the_widget_shows_no_part_of_a_held_draft(
    app: FastAPI, server: Any, web_desk: Desk
) -> None:
    w = Widget(app)
    run_id = w.ask(HELD_QUESTION)
    body = w.wait(run_id)
    assert body["status"] == "held"
    stored = web_desk.store.get_receipt(run_id)
    assert stored is not None
    pieces = draft_pieces(json.loads(stored.json))
    bodies = [
        w.run(run_id).text,
        w.form(f"/widget/runs/{run_id}", {}).text,
        w.form("/widget/ask", {"question": HELD_QUESTION}).text,
    ]
    for text in bodies:
        assert not leaks(text, pieces)
