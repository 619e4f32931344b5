"""Lessons and notes in the workspace: a reader explains their published answer and reads the
lesson (its blocks, diagram, relations and evidence, the check question's hidden answer);
explaining again reopens the same lesson; nobody else reaches it; a held answer is not
explained; a lesson changed after its review is refused; editors alone see the review's
decisions; and a reader's notes are theirs alone.

The archive is the web tests' own plus one report (`FERRY`) whose sentences spell out two
relations the offline teacher finds (`The Harbour Council established the Northern Ferry
Service in 2003.`), so its lesson has a diagram.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from web_helpers import DRAFT, HELD_QUESTION, PLANTED, WebUser

from evidence_desk.desk import LESSON_CHANGED, Desk
from evidence_desk.desk.workspace.lessonview import LessonView, lesson_view
from evidence_desk.server.reader import ViewCache
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.trust.teaching import lesson_hash
from evidence_desk.types import Receipt

FERRY = {
    "id": "2003-Ellison-ferry",
    "title": "Margaret Ellison: report on the harbour ferry, 2003",
    "date": "2003-06-12",
    "url": "https://example.org/ferry",
    "president": "Margaret Ellison",
    "office": "Harbour Commissioner",
    "text": "Margaret Ellison reported to the harbour council on the ferry in 2003. The Harbour "
    "Council established the Northern Ferry Service in 2003. Governor Alan Price opposed the "
    "Northern Ferry Service at the public hearings. The Northern Ferry Service carries 400 "
    "passengers a day across the Sound.",
}
FERRY_QUESTION = "What did Margaret Ellison say about the Northern Ferry Service in 2003?"
SVG = re.compile(r"<svg [^>]*class=\"teaching-diagram\".*?</svg>", re.S)


@pytest.fixture(scope="module")
def web_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This module's archive: the web tests' one and the ferry report."""
    folder = tmp_path_factory.mktemp("lessons-archive")
    records = [*sotu_records(SMALL_ARCHIVE), PLANTED, FERRY]
    home = folder / "home"
    desk = Desk(Settings(home=home, cache_dir=None, embed_workers=1), embedder=HashingEmbedder())
    assert desk.ingest([write_jsonl(folder / "archive.jsonl", records)]).added == len(records)
    desk.store.close()
    return home


def text_of(page: str) -> str:
    """A page's words as a reader reads them: tags dropped, entities undone."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def published_answer(me: WebUser) -> str:
    run = me.wait(me.ask(FERRY_QUESTION))
    assert run["state"] == "published", run
    return str(run["run_id"])


def finished_lesson(me: WebUser, lesson_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        r = me.get(f"/api/runs/{lesson_id}/lesson")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if not body["live"]:
            return body
        assert time.monotonic() < deadline, f"lesson {lesson_id} still {body['state']}"
        time.sleep(0.02)


def explain(me: WebUser, run_id: str) -> str:
    """Press Explain on the answer's page; the lesson's run id, once it has finished."""
    r = me.post_form(f"/runs/{run_id}/explain", {})
    assert r.status_code == 303, r.text
    m = re.fullmatch(r"/runs/([^/]+)/lesson", r.headers["location"])
    assert m, r.headers["location"]
    finished_lesson(me, m.group(1))
    return m.group(1)


def stored(desk: Desk, run_id: str) -> dict[str, Any]:
    row = desk.store.get_receipt(run_id)
    assert row is not None
    receipt: dict[str, Any] = json.loads(row.json)
    return receipt


def rewrite(app: FastAPI, desk: Desk, receipt: dict[str, Any]) -> None:
    """The stored receipt replaced (the signature is not re-checked by pages; the lesson
    hash is), and the app's kept pages forgotten."""
    with desk.store._write() as db:
        db.execute(
            "UPDATE receipts SET json = ? WHERE run_id = ?",
            (json.dumps(receipt), receipt["run_id"]),
        )
    app.state.views = ViewCache()


# ---------------------------------------------------------------------- explaining


def test_explaining_an_answer_shows_its_lesson_with_diagram_and_evidence(
    reader: Callable[[], WebUser], web_desk: Desk
) -> None:
    me = reader()
    answer = published_answer(me)
    page = me.get(f"/runs/{answer}").text
    assert f'action="/runs/{answer}/explain"' in page and "Explain this answer" in page
    lesson_id = explain(me, answer)
    lesson = me.get(f"/runs/{lesson_id}/lesson")
    assert lesson.status_code == 200, lesson.text
    body = lesson.text
    words = text_of(body)
    for title in ("The key idea", "How it works, or what happened", "Check your understanding"):
        assert title in words
    # citations open the answer's sources
    assert f'href="/runs/{answer}/sources/S1"' in body
    # the diagram, its arrows linking to the evidence on this page, and the text list
    svg = SVG.search(body)
    assert svg, "the lesson page has no diagram"
    assert 'href="#evidence-R1"' in svg.group(0) and 'href="#evidence-R2"' in svg.group(0)
    assert "<script" not in svg.group(0).lower()
    listed = body[body.index('id="relations-h"') :]
    assert "Harbour Council <strong>established</strong> the Northern Ferry Service" in listed
    evidence = body[body.index('id="evidence-R1"') :]
    assert "<mark>The Harbour Council established the Northern Ferry Service in 2003.</mark>" in (
        evidence
    )
    assert 'id="evidence-R2"' in body
    # the check question, its answer behind "Show the answer"
    check = body[body.index("Check your understanding") :]
    assert re.search(r'<p class="check-question">What did Ellison say in 2003 about', check)
    assert re.search(r"<details class=\"check-answer\"><summary>Show the answer</summary>", check)
    # a reader sees no review table
    assert "Review decisions" not in body
    data = me.get(f"/api/runs/{lesson_id}/lesson").json()
    assert data["decision"] == "PUBLISHED" and data["answer_run_id"] == answer
    assert data["blocks"][0]["kind"] == "key_idea"
    assert [r["id"] for r in data["relations"]] == ["R1", "R2"]
    assert data["reviews"] == [] and data["diagram"].startswith("<svg")


def test_explaining_again_reopens_the_same_lesson(
    reader: Callable[[], WebUser], web_desk: Desk
) -> None:
    me = reader()
    answer = published_answer(me)
    lesson_id = explain(me, answer)
    runs_before = len(web_desk.runs(limit=10_000))
    assert explain(me, answer) == lesson_id
    again = me.post_json(f"/api/runs/{answer}/explain", None)
    assert again.status_code == 202, again.text
    assert again.json()["run_id"] == lesson_id
    assert again.json()["url"] == f"/api/runs/{lesson_id}/lesson"
    assert len(web_desk.runs(limit=10_000)) == runs_before, "a second explanation run opened"
    assert "Open the lesson" in me.get(f"/runs/{answer}").text
    assert f'href="/runs/{lesson_id}/lesson"' in me.get(f"/runs/{lesson_id}").text
    # the lesson is kept in the answer's conversation, and asks no question of its own
    conv = me.get(f"/api/runs/{answer}").json()["conv_id"]
    thread = me.get(f"/api/conversations/{conv}").json()
    assert [r["run_id"] for r in thread["runs"]] == [answer]
    assert thread["lessons"] == {answer: f"/api/runs/{lesson_id}/lesson"}
    assert f'href="/runs/{lesson_id}/lesson"' in me.get(f"/conversations/{conv}").text
    (listed,) = me.get("/api/conversations").json()
    assert listed["questions"] == 1 and listed["outcome"] == "Published"
    # a lesson is not explained in turn
    refused = me.post_json(f"/api/runs/{lesson_id}/explain", None)
    assert refused.status_code == 400 and "lesson already" in refused.json()["error"]


def test_another_reader_reaches_nothing_of_a_lesson(reader: Callable[[], WebUser]) -> None:
    me, other = reader(), reader()
    answer = published_answer(me)
    lesson_id = explain(me, answer)
    note = me.post_json(f"/api/runs/{lesson_id}/notes", {"text": "Mine alone."}).json()
    attempts = [
        other.get(f"/runs/{lesson_id}/lesson"),
        other.get(f"/api/runs/{lesson_id}/lesson"),
        other.get(f"/api/runs/{answer}/lesson"),
        other.post_form(f"/runs/{answer}/explain", {}),
        other.post_json(f"/api/runs/{answer}/explain", None),
        other.get(f"/api/runs/{lesson_id}/notes"),
        other.post_json(f"/api/runs/{lesson_id}/notes", {"text": "Not mine."}),
        other.post_form(f"/runs/{answer}/notes", {"text": "Not mine."}),
        other.client.delete(f"/api/notes/{note['note_id']}", headers={"x-csrf-token": other.csrf}),
        other.post_form(f"/notes/{note['note_id']}/delete", {}),
    ]
    for r in attempts:
        assert r.status_code == 404, (r.request.url, r.text[:200])
        assert "Northern Ferry" not in r.text and "Mine alone" not in r.text
    assert [n["text"] for n in me.get(f"/api/runs/{lesson_id}/notes").json()] == ["Mine alone."]


def test_a_held_answer_is_not_explained_and_leaks_nothing(
    reader: Callable[[], WebUser], web_desk: Desk
) -> None:
    me = reader()
    held = me.wait(me.ask(HELD_QUESTION))
    assert held["state"] == "held", held
    assert f"/runs/{held['run_id']}/explain" not in me.get(f"/runs/{held['run_id']}").text
    runs_before = len(web_desk.runs(limit=10_000))
    for r in (
        me.post_json(f"/api/runs/{held['run_id']}/explain", None),
        me.post_form(f"/runs/{held['run_id']}/explain", {}),
    ):
        assert r.status_code == 400, r.text
        message = html.unescape(r.text)
        assert "Only an answer the desk published can be explained" in message
        assert DRAFT not in r.text and "lighthouse" not in r.text.lower()
    assert len(web_desk.runs(limit=10_000)) == runs_before
    assert me.get(f"/api/runs/{held['run_id']}/lesson").status_code == 404


def test_the_lesson_forms_need_the_csrf_token(
    reader: Callable[[], WebUser], web_desk: Desk
) -> None:
    me = reader()
    answer = published_answer(me)
    runs_before = len(web_desk.runs(limit=10_000))
    bare = me.client.post(f"/runs/{answer}/explain", data={})
    assert bare.status_code == 403 and "CSRF" in bare.text
    assert me.client.post(f"/api/runs/{answer}/explain").status_code == 403
    forged = me.client.post(f"/runs/{answer}/notes", data={"text": "x", "csrf_token": "f" * 43})
    assert forged.status_code == 403
    assert me.client.post(f"/api/runs/{answer}/notes", json={"text": "x"}).status_code == 403
    assert len(web_desk.runs(limit=10_000)) == runs_before
    assert me.get(f"/api/runs/{answer}/notes").json() == []


# ---------------------------------------------------------------------- the review


def test_a_lesson_changed_after_its_review_is_not_shown(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> None:
    me = reader()
    lesson_id = explain(me, published_answer(me))
    receipt = stored(web_desk, lesson_id)
    planted = "The Harbour Council abolished every ferry [S1]."
    receipt["teaching"]["blocks"][0]["published"] = planted
    rewrite(app, web_desk, receipt)
    page = me.get(f"/runs/{lesson_id}/lesson").text
    assert LESSON_CHANGED in text_of(page)
    assert "abolished" not in page and "teaching-diagram" not in page
    assert "Council established" not in text_of(page) and "Show the answer" not in page
    data = me.get(f"/api/runs/{lesson_id}/lesson").json()
    assert (data["decision"], data["reason"]) == ("WITHHELD", LESSON_CHANGED)
    assert data["blocks"] == [] and data["relations"] == [] and data["diagram"] == ""


def test_the_view_checks_the_lesson_hash(reader: Callable[[], WebUser], web_desk: Desk) -> None:
    me = reader()
    answer = published_answer(me)
    lesson_id = explain(me, answer)
    receipt = Receipt.model_validate(stored(web_desk, lesson_id))
    base = LessonView(lesson_id, answer, FERRY_QUESTION, "finished")
    assert lesson_view(base, receipt, editor=False).published
    assert receipt.teaching is not None
    first = receipt.teaching.relations[0]
    swapped = first.model_copy(
        update={"relation": first.relation.model_copy(update={"object": "the moon"})}
    )
    changed = receipt.teaching.model_copy(
        update={"relations": (swapped, *receipt.teaching.relations[1:])}
    )
    seen = lesson_view(base, receipt.model_copy(update={"teaching": changed}), editor=True)
    assert (seen.decision, seen.reason) == ("WITHHELD", LESSON_CHANGED)
    assert seen.relations == () and seen.reviews == () and seen.diagram == ""


def test_editors_see_every_decision_and_readers_no_dropped_part(
    reader: Callable[[], WebUser],
    editor: Callable[..., WebUser],
    app: FastAPI,
    web_desk: Desk,
) -> None:
    me = reader()
    lesson_id = explain(me, published_answer(me))
    receipt = stored(web_desk, lesson_id)
    teaching = receipt["teaching"]
    reason = "Dropped here: the test says its verb does not hold."
    teaching["relations"][1].update(decision="dropped", reason=reason)
    teaching["blocks"][2].update(decision="dropped", reason=reason)
    dropped_block = teaching["blocks"][2]["published"]
    # the review's own hash, so the lesson is as reviewed: only its decisions differ
    parsed = Receipt.model_validate(receipt).teaching
    assert parsed is not None
    teaching["lesson_sha256"] = lesson_hash(parsed.blocks, parsed.relations)
    rewrite(app, web_desk, receipt)

    page = me.get(f"/runs/{lesson_id}/lesson").text
    assert "evidence-R1" in page and "evidence-R2" not in page
    svg = SVG.search(page)
    assert svg and "Governor Alan Price" not in svg.group(0)
    assert html.escape(dropped_block) not in page
    assert "Review decisions" not in page and reason not in page

    boss = editor()
    seen = boss.get(f"/runs/{lesson_id}/lesson").text
    table = seen[seen.index('id="reviews-h"') :]
    rows = re.findall(r"<tr class=\"review-(\w+)\"><th scope=\"row\">([^<]+)</th>", table)
    assert ("dropped", "R2") in rows and ("kept", "R1") in rows
    assert ("dropped", "An example from the sources") in rows
    assert html.escape(reason) in table
    data = boss.get(f"/api/runs/{lesson_id}/lesson").json()
    assert {(r["label"], r["decision"]) for r in data["reviews"]} >= {("R2", "dropped")}


# ---------------------------------------------------------------------- notes


def test_notes_are_added_listed_deleted_and_kept_to_their_reader(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser]
) -> None:
    me = reader()
    answer = published_answer(me)
    added = me.post_form(f"/runs/{answer}/notes", {"text": "Check the <hearings> & the vote."})
    assert added.status_code == 303 and added.headers["location"] == f"/runs/{answer}#notes"
    page = me.get(f"/runs/{answer}").text
    assert "Check the &lt;hearings&gt; &amp; the vote." in page
    assert "they are never sent to a model" in page
    via_api = me.post_json(f"/api/runs/{answer}/notes", {"text": "  Second thought.  "})
    assert via_api.status_code == 201 and via_api.json()["text"] == "Second thought."
    notes = me.get(f"/api/runs/{answer}/notes").json()
    assert [n["text"] for n in notes] == ["Check the <hearings> & the vote.", "Second thought."]

    empty = me.post_json(f"/api/runs/{answer}/notes", {"text": "   "})
    assert empty.status_code == 400 and empty.json()["error"] == (
        "The note is empty: write something to keep."
    )
    long = me.post_json(f"/api/runs/{answer}/notes", {"text": "x" * 4001})
    assert long.status_code == 413 and "at most 4,000 characters" in long.json()["error"]

    # an editor reads the run, but not the reader's notes, and keeps none on it
    boss = editor()
    assert "Second thought" not in boss.get(f"/runs/{answer}").text
    assert boss.get(f"/api/runs/{answer}/notes").status_code == 404

    first, second = notes
    gone = me.post_form(f"/notes/{first['note_id']}/delete", {"next": f"/runs/{answer}"})
    assert gone.status_code == 303 and gone.headers["location"] == f"/runs/{answer}#notes"
    deleted = me.client.delete(f"/api/notes/{second['note_id']}", headers={"x-csrf-token": me.csrf})
    assert deleted.status_code == 204
    assert me.get(f"/api/runs/{answer}/notes").json() == []
    again = me.client.delete(f"/api/notes/{second['note_id']}", headers={"x-csrf-token": me.csrf})
    assert again.status_code == 404
    # a note form sends the browser nowhere but this site
    away = me.post_form(f"/runs/{answer}/notes", {"text": "x", "next": "//evil.example/"})
    assert away.headers["location"] == f"/runs/{answer}#notes"


def test_a_lesson_keeps_notes_of_its_own(reader: Callable[[], WebUser]) -> None:
    me = reader()
    answer = published_answer(me)
    lesson_id = explain(me, answer)
    back = f"/runs/{lesson_id}/lesson"
    r = me.post_form(f"/runs/{lesson_id}/notes", {"text": "Relations first.", "next": back})
    assert r.status_code == 303 and r.headers["location"] == f"{back}#notes"
    assert "Relations first." in me.get(back).text
    assert "Relations first." not in me.get(f"/runs/{answer}").text
