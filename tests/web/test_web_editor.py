"""The standards desk: editors see why runs were held, approve, reject or edit them through
the same gate, watch the dashboard and pull the widget's kill switch.

`HELD_QUESTION` cites only the planted page, whose text gives orders to a model: every
sentence citing it is held, so no edit of that run can publish. `CLEAN_QUESTION` (the same
question without its year) is held for the planted page too, but its sources also hold
State of the Union addresses: an edit that quotes one of those instead publishes.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI
from starlette.testclient import TestClient
from web_helpers import HELD_QUESTION, QUESTION, WebUser

from evidence_desk.desk import Desk

CLEAN_QUESTION = "What did the harbour board say about the lighthouse tax?"
PLANTED_SENTENCE = "The lighthouse tax pays for the keepers of the northern lights"
ROOSEVELT = "1941-Roosevelt-1"
ROOSEVELT_QUOTE = "No person should try, or be allowed, to get rich out of this program"
STEERED = "cited source text gives orders to a model: S1"


def held_run(me: WebUser, question: str = HELD_QUESTION) -> str:
    run = me.wait(me.ask(question))
    assert run["state"] == "held", run
    run_id: str = run["run_id"]
    return run_id


def receipt_of(me: WebUser, run_id: str, receipt_id: str) -> dict[str, Any]:
    r = me.get(f"/runs/{run_id}/receipts/{receipt_id}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = json.loads(r.text)
    return body


def source_id_of(ed: WebUser, run_id: str, doc_id: str) -> str:
    held = ed.get(f"/api/desk/runs/{run_id}").json()
    ids = [s["card"]["id"] for s in held["sources"] if s["card"]["doc_id"] == doc_id]
    assert ids, f"the held run has no source {doc_id}: {[s['card'] for s in held['sources']]}"
    return str(ids[0])


def text_of(response: Any) -> str:
    return html.unescape(response.text)


# ---------------------------------------------------------------------- the queue


def test_the_queue_shows_the_held_run_with_why_it_was_held(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    published = me.wait(me.ask(QUESTION))["run_id"]
    run_id = held_run(me)
    ed = editor()
    page = ed.get("/desk")
    assert page.status_code == 200
    text = text_of(page)
    assert HELD_QUESTION in text and f'href="/desk/runs/{run_id}"' in text
    assert "instructions aimed at an AI model" in text  # the gate's reason
    assert STEERED in text  # which sentence, which check
    assert "data-queue-item" in text and '<script src="/static/desk.js"' in text
    assert published not in text

    queue = ed.get("/api/desk/queue").json()
    assert [item["run_id"] for item in queue] == [run_id]
    claim = queue[0]["claims"][0]
    assert claim["number"] == 1 and STEERED in claim["problems"]
    assert ["cite", "S1"] in claim["segments"]


def test_the_review_page_puts_the_sentences_beside_the_passages(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    run_id = held_run(me)
    ed = editor()
    draft = receipt_of(ed, run_id, run_id)["draft"]
    page = ed.get(f"/desk/runs/{run_id}")
    assert page.status_code == 200
    text = text_of(page)
    assert STEERED in text
    assert '<a class="cite" href="#src-S1"' in text and 'id="src-S1"' in text
    assert "<mark>The harbour board reviewed the lighthouse tax in 1999</mark>" in text
    assert f"{draft}</textarea>" in text  # the edit form holds the draft
    for action in ("approve", "reject", "edit"):
        assert f'action="/desk/runs/{run_id}/{action}"' in text
    for control in re.findall(r'<(?:input|textarea)(?![^>]*type="hidden")[^>]*id="([^"]+)"', text):
        assert f'<label for="{control}">' in text, f"the control {control} has no label"
    assert "<script>" not in text and "style=" not in text


# ---------------------------------------------------------------------- approve


def test_approving_publishes_in_a_new_signed_receipt_that_links_the_held_one(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], web_desk: Desk
) -> None:
    me = reader()
    run_id = held_run(me)
    ed = editor("morgan")
    r = ed.post_form(f"/desk/runs/{run_id}/approve", {"note": "Checked against the page."})
    assert r.status_code == 303 and r.headers["location"] == f"/desk?reviewed={run_id}"
    back = text_of(ed.get(r.headers["location"]))
    assert "Approved and published" in back and f"{run_id}-r1" in back
    assert f'href="/desk/runs/{run_id}" data-queue-item' not in back  # out of the queue

    answer = me.get(f"/api/runs/{run_id}").json()["answer"]
    assert answer["published"]["by"] == "editor"
    assert answer["published"]["editor"] == "morgan"
    assert answer["receipts"] == [run_id, f"{run_id}-r1"]
    held = receipt_of(me, run_id, run_id)
    new = receipt_of(me, run_id, f"{run_id}-r1")  # the owner downloads it
    assert new["review"]["action"] == "approved" and new["review"]["editor"] == "morgan"
    assert new["review"]["held_receipt_sha256"] == held["integrity"]["canonical_sha256"]
    assert new["decision"] == "HELD_FOR_REVIEW"  # the gate's verdict is not rewritten
    assert web_desk.verify_receipt(new).ok, web_desk.verify_receipt(new).problems
    assert web_desk.verify_chain().ok
    assert "Approved by morgan" in me.get(f"/runs/{run_id}").text

    page = text_of(ed.get(f"/desk/runs/{run_id}"))  # reviewed: its reviews, no forms
    assert "Checked against the page." in page and f"{run_id}-r1.json" in page
    assert f'action="/desk/runs/{run_id}/approve"' not in page

    again = ed.post_form(f"/desk/runs/{run_id}/approve", {})
    assert again.status_code == 409 and "reviewed already" in again.text
    api = ed.post_json(f"/api/desk/runs/{run_id}/approve", {"note": ""})
    assert api.status_code == 409 and api.json() == {
        "error": f"Run {run_id} has been reviewed already."
    }
    assert ed.get(f"/api/desk/runs/{run_id}").json()["closed"] is True


# ---------------------------------------------------------------------- reject


def test_rejecting_publishes_nothing_and_tells_the_reader_why(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    run_id = held_run(me)
    ed = editor("sam")
    empty = ed.post_form(f"/desk/runs/{run_id}/reject", {"reason": "  "})
    assert empty.status_code == 400 and "Say why the answer is rejected" in empty.text
    reason = "The page it quotes tries to steer the model."
    r = ed.post_json(f"/api/desk/runs/{run_id}/reject", {"reason": reason})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["published"] is False and body["receipt"] is None
    assert body["review"]["action"] == "rejected" and body["review"]["editor_name"] == "sam"

    answer = me.get(f"/api/runs/{run_id}").json()["answer"]
    assert answer["published"] is None and answer["rejected"] == reason
    assert answer["receipts"] == []  # the held draft stays with the desk
    page = text_of(me.get(f"/runs/{run_id}"))
    assert f"The standards desk did not publish this answer: {reason}" in page
    assert ed.get("/api/desk/queue").json() == []
    assert ed.post_form(f"/desk/runs/{run_id}/reject", {"reason": "Again."}).status_code == 409


# ---------------------------------------------------------------------- edit


def test_an_edit_citing_the_planted_page_is_still_held(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    """The planted page addresses a model: the gate holds every sentence that cites it, a
    verbatim one too, so the editor sees why and nothing is published."""
    me = reader()
    run_id = held_run(me)
    ed = editor()
    draft = f'Report on the lighthouse tax: "{PLANTED_SENTENCE}" [S1].'
    r = ed.post_form(f"/desk/runs/{run_id}/edit", {"draft": draft, "note": "Kept the facts."})
    assert r.status_code == 303 and r.headers["location"] == f"/desk/runs/{run_id}"
    page = text_of(ed.get(r.headers["location"]))
    assert "Your edit is still held" in page
    assert "instructions aimed at an AI model" in page and STEERED in page
    assert f"{draft}</textarea>" in page  # the editor's draft, not the original, to fix
    assert "Nothing was published" in page

    api = ed.post_json(f"/api/desk/runs/{run_id}/edit", {"draft": draft, "note": ""})
    body = api.json()
    assert api.status_code == 200 and body["published"] is False and body["receipt"] is None
    assert body["review"]["outcome"]["decision"] == "HELD_FOR_REVIEW"
    assert "instructions aimed at an AI model" in body["review"]["reason"]
    answer = me.get(f"/api/runs/{run_id}").json()["answer"]
    assert answer["published"] is None and answer["receipts"] == []
    assert [item["run_id"] for item in ed.get("/api/desk/queue").json()] == [run_id]


def test_an_edit_quoting_a_clean_source_publishes_through_the_gate(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], web_desk: Desk
) -> None:
    me = reader()
    run_id = held_run(me, CLEAN_QUESTION)
    ed = editor("robin")
    sid = source_id_of(ed, run_id, ROOSEVELT)
    draft = f'The 1941 address said: "{ROOSEVELT_QUOTE}" [{sid}].'
    r = ed.post_form(f"/desk/runs/{run_id}/edit", {"draft": draft, "note": "Dropped S1."})
    assert r.status_code == 303
    page = text_of(ed.get(r.headers["location"]))
    assert "Edited, published" in page and "Your edit is still held" not in page

    answer = me.get(f"/api/runs/{run_id}").json()["answer"]
    assert answer["published"]["by"] == "edit" and answer["published"]["editor"] == "robin"
    assert answer["published"]["text"] == draft
    new = receipt_of(me, run_id, f"{run_id}-r1")
    assert answer["receipts"] == [f"{run_id}-r1"]  # the held draft stays with the desk
    assert me.get(f"/runs/{run_id}/receipts/{run_id}").status_code == 404
    held = receipt_of(ed, run_id, run_id)
    assert new["decision"] == "AUTO_CLEARED" and new["draft"] == draft
    assert new["review"]["action"] == "edited"
    assert new["review"]["held_receipt_sha256"] == held["integrity"]["canonical_sha256"]
    assert web_desk.verify_receipt(new).ok, web_desk.verify_receipt(new).problems
    assert web_desk.verify_chain().ok
    assert ROOSEVELT_QUOTE in text_of(me.get(f"/runs/{run_id}"))
    assert ed.post_form(f"/desk/runs/{run_id}/edit", {"draft": draft}).status_code == 409


def test_an_edit_with_a_fabricated_quote_stays_held(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    run_id = held_run(me, CLEAN_QUESTION)
    ed = editor()
    sid = source_id_of(ed, run_id, ROOSEVELT)
    fabricated = "Every person should be free of all taxes for ever"
    r = ed.post_json(
        f"/api/desk/runs/{run_id}/edit",
        {"draft": f'The 1941 address said: "{fabricated}" [{sid}].', "note": ""},
    )
    body = r.json()
    assert r.status_code == 200 and body["published"] is False and body["receipt"] is None
    assert "not word for word" in body["review"]["reason"]
    page = text_of(ed.get(f"/desk/runs/{run_id}"))
    assert f"the quote “{fabricated}” is not verbatim in its source" in page
    answer = me.get(f"/api/runs/{run_id}").json()["answer"]
    assert answer["published"] is None and answer["receipts"] == []


def test_the_api_bodies_refuse_unknown_fields_and_an_empty_draft(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    run_id = held_run(me)
    ed = editor()
    extra = ed.post_json(f"/api/desk/runs/{run_id}/approve", {"note": "", "publish": True})
    assert extra.status_code == 422 and extra.json()["error"].endswith(".")
    empty = ed.post_json(f"/api/desk/runs/{run_id}/edit", {"draft": "   "})
    assert empty.status_code == 400 and empty.json() == {"error": "The edited draft is empty."}
    assert ed.post_json(f"/api/desk/runs/{run_id}/reject", {}).status_code == 422
    assert ed.get("/api/desk/queue").json()[0]["run_id"] == run_id  # still open


# ---------------------------------------------------------------------- who may


def test_every_desk_route_refuses_readers_and_strangers(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], app: FastAPI
) -> None:
    me = reader()
    run_id = held_run(me)
    published = me.wait(me.ask(QUESTION))["run_id"]
    gets = [
        "/desk",
        "/desk/dashboard",
        f"/desk/runs/{run_id}",
        "/api/desk/queue",
        "/api/desk/dashboard",
        f"/api/desk/runs/{run_id}",
        "/api/desk/widget",
    ]
    forms = {
        f"/desk/runs/{run_id}/approve": {"note": ""},
        f"/desk/runs/{run_id}/reject": {"reason": "No."},
        f"/desk/runs/{run_id}/edit": {"draft": "A draft [S1]."},
        "/desk/widget": {"paused": "yes", "reason": "No."},
    }
    bodies = {
        f"/api/desk/runs/{run_id}/approve": {"note": ""},
        f"/api/desk/runs/{run_id}/reject": {"reason": "No."},
        f"/api/desk/runs/{run_id}/edit": {"draft": "A draft [S1].", "note": ""},
        "/api/desk/widget": {"paused": True, "reason": "No."},
    }
    stranger = TestClient(app, follow_redirects=False)
    for path in gets:
        assert me.get(path).status_code == 403, path
        assert stranger.get(path).status_code == 401, path
    for path, form in forms.items():
        refused = me.post_form(path, form)
        assert refused.status_code == 403 and "editor" in refused.text, path
    for path, body in bodies.items():
        refused = me.post_json(path, body)
        assert refused.status_code == 403 and "editor" in refused.json()["error"], path
    ed = editor()
    assert ed.get("/api/desk/queue").json()[0]["run_id"] == run_id  # nothing was decided
    assert not ed.get("/api/desk/widget").json()["paused"]
    assert ed.get("/desk/runs/r_missing").status_code == 404
    assert ed.post_json("/api/desk/runs/r_missing/approve", {"note": ""}).status_code == 404
    not_held = ed.get(f"/api/desk/runs/{published}")
    assert not_held.status_code == 409 and "not held" in not_held.json()["error"]
    assert ed.post_form(f"/desk/runs/{published}/approve", {}).status_code == 409


# ---------------------------------------------------------------------- the kill switch


def test_the_kill_switch_is_flipped_and_logged(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], web_desk: Desk
) -> None:
    ed = editor("casey")
    ws = web_desk.workspace
    no_reason = ed.post_form("/desk/widget", {"paused": "yes", "reason": " "})
    assert no_reason.status_code == 400 and not ws.widget_paused()
    r = ed.post_form(
        "/desk/widget", {"paused": "yes", "reason": "A planted page.", "next": "/desk"}
    )
    assert r.status_code == 303 and r.headers["location"] == "/desk"
    assert ws.widget_paused()
    page = text_of(ed.get("/desk"))
    assert "Resume the widget" in page and "A planted page." in page and "casey" in page
    state = ed.get("/api/desk/widget").json()
    assert state["paused"] is True
    assert state["flips"][0]["user_name"] == "casey"
    assert state["flips"][0]["reason"] == "A planted page."

    me = reader()  # the workspace and the desk stay live while the widget is paused
    run_id = held_run(me)
    assert ed.get("/api/desk/queue").json()[0]["run_id"] == run_id

    off = ed.post_json("/api/desk/widget", {"paused": False, "reason": "Fixed."})
    assert off.status_code == 200 and off.json()["paused"] is False
    assert not ws.widget_paused()
    flips = ed.get("/api/desk/widget").json()["flips"]
    assert [(f["paused"], f["reason"]) for f in flips] == [
        (False, "Fixed."),
        (True, "A planted page."),
    ]
    away = ed.post_form("/desk/widget", {"paused": "yes", "reason": "x", "next": "//evil"})
    assert away.headers["location"] == "/desk"


# ---------------------------------------------------------------------- the dashboard


def test_the_dashboard_counts_runs_decisions_and_reviews(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    me.wait(me.ask(QUESTION))
    run_id = held_run(me)
    ed = editor("dana")
    assert ed.post_json(f"/api/desk/runs/{run_id}/approve", {"note": "ok"}).status_code == 200
    board = ed.get("/api/desk/dashboard").json()
    assert board["states"] == {"published": 1, "held": 1}
    today = datetime.now(UTC).date().isoformat()
    day = board["per_day"][0]
    assert day["day"] == today and day["total"] == 2  # the review receipt is not a decision
    assert day["decisions"]["AUTO_CLEARED"] == 1 and day["decisions"]["HELD_FOR_REVIEW"] == 1
    assert board["failures"] == []
    assert isinstance(board["model_calls"], int) and board["spend_usd"] >= 0
    assert [(v["action"], v["editor_name"]) for v in board["reviews"]] == [("approved", "dana")]
    assert {r["run_id"] for r in board["recent"]} >= {run_id}

    page = ed.get("/desk/dashboard")
    assert page.status_code == 200
    text = text_of(page)
    assert "Decisions per day" in text and f'<th scope="row">{today}</th>' in text
    assert HELD_QUESTION in text and "dana" in text
