"""Attaching documents to a question in the workspace: the upload control's files become
sources of that run alone, a file that cannot be read refuses the question with its reason
(nothing stored), and the setup line says where attached files go."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_helpers import WebUser
from web_security_helpers import OWN, error_message

from evidence_desk.desk import Desk
from evidence_desk.server.security import MAX_UPLOAD_BODY
from evidence_desk.testing.archives import QUESTION

SAME_ORIGIN = {"origin": OWN, "sec-fetch-site": "same-origin"}


@pytest.fixture
def me(server: TestClient, app: FastAPI) -> WebUser:
    return WebUser(app)


def fingerprint(desk: Desk) -> tuple[int, int]:
    with desk.store._snapshot() as db:  # what a refused upload may not add
        snapshots = db.execute("SELECT count(*) FROM snapshots").fetchone()[0]
    return len(desk.runs(limit=10_000)), snapshots


NOTES = (
    b"Council notes\n\nFranklin D. Roosevelt spoke of freedom of speech and expression "
    b"everywhere in the world in 1941.\n"
)


def ask_with(me: WebUser, files: list[tuple[str, tuple[str, bytes, str]]]) -> Any:
    return me.client.post(
        "/ask",
        data={"question": QUESTION, "mode": "quick", "csrf_token": me.csrf},
        files=files,
        headers=SAME_ORIGIN,
        follow_redirects=False,
    )


def test_an_attached_file_is_a_source_of_that_question(me: WebUser, web_desk: Desk) -> None:
    r = ask_with(me, [("files", ("notes.txt", NOTES, "text/plain"))])
    assert r.status_code == 303, r.text[:300]
    run_id = r.headers["location"].rsplit("/", 1)[1]
    me.wait(run_id)
    receipt = json.loads(me.get(f"/runs/{run_id}/receipts/{run_id}").text)
    uploads = [s for s in receipt["sources"] if s["origin"] == "upload"]
    assert len(uploads) == 1 and uploads[0]["doc_id"].startswith("upload-")
    assert uploads[0]["title"] == "notes.txt" or uploads[0]["title"] == "Council notes"
    assert web_desk.store.get_document(uploads[0]["doc_id"]) is None  # not in the archive
    assert uploads[0]["url"] is None  # a file has a name, never a link
    page = me.get(f"/runs/{run_id}/sources/{uploads[0]['id']}").text
    assert "attached to this question" in page and uploads[0]["snapshot_sha256"] in page
    assert f"evidence-desk sources show {uploads[0]['doc_id']}" in page


@pytest.mark.parametrize(
    ("name", "body", "reason"),
    [
        ("tool.exe", b"MZ\x90\x00", "attach PDF, HTML, plain text or markdown files."),
        ("bad.txt", b"caf\xe9 \xff\xfe", "declares no charset"),
    ],
)
def test_a_file_that_cannot_be_read_refuses_the_question(
    me: WebUser, web_desk: Desk, name: str, body: bytes, reason: str
) -> None:
    before = fingerprint(web_desk)
    r = ask_with(me, [("files", (name, body, "application/octet-stream"))])
    assert r.status_code == 400
    message = error_message(r)
    assert message.startswith(name) and message.endswith(".") and reason in message
    assert fingerprint(web_desk) == before


def test_more_than_three_files_are_refused(me: WebUser, web_desk: Desk) -> None:
    files = [("files", (f"n{i}.txt", NOTES, "text/plain")) for i in range(4)]
    r = ask_with(me, files)
    assert r.status_code == 400
    assert error_message(r) == "Attach at most 3 files to one question."


def test_an_upload_past_the_limit_is_a_413(me: WebUser) -> None:
    big = b"x" * (MAX_UPLOAD_BODY + 1)
    r = ask_with(me, [("files", ("big.txt", big, "text/plain"))])
    assert r.status_code == 413


def test_the_ask_form_has_the_upload_control_and_says_where_files_go(me: WebUser) -> None:
    page = me.client.get("/").text
    assert 'enctype="multipart/form-data"' in page and 'type="file"' in page
    assert "Attached files are read on this machine and sent nowhere." in page
