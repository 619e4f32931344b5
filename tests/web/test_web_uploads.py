"""Attaching documents to a question in the workspace: the upload control's files become
sources of that run alone, a file that cannot be read refuses the question with its reason
(nothing stored), and the setup line says where attached files go."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_helpers import WebUser
from web_security_helpers import OWN, error_message

from evidence_desk.desk import Desk
from evidence_desk.server.security import MAX_UPLOAD_BODY
from evidence_desk.settings import Settings
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


def test_a_web_run_shows_its_diversity_and_the_pages_it_did_not_read(
    web_archive: Path, tmp_path: Path
) -> None:
    """With a search provider, the answer names the publishers and domains it drew on (with
    the caveat), lists each page it did not read with the reason, escaped, never as a link;
    and the setup line says what leaves the machine."""
    from evidence_desk.server.app import create_app
    from evidence_desk.testing.embedder import HashingEmbedder
    from evidence_desk.testing.fixturesearch import FixturePage, searxng_body, searxng_result
    from evidence_desk.testing.fixtureweb import Reply, article, fixture_web, redirect

    home = tmp_path / "home"
    shutil.copytree(web_archive, home)
    with fixture_web() as web:
        web.routes["/a"] = article(
            "Roosevelt's four freedoms",
            ["Franklin D. Roosevelt spoke of freedom of speech and expression in 1941."],
            date="1941-01-07",
        )
        web.routes["/%3Cb%3Ex%3C/b%3E"] = redirect("http://169.254.169.254/")
        pages = [FixturePage(web.url("/a"), "A"), FixturePage(web.url("/<b>x</b>"), "B")]
        body = searxng_body("q", [searxng_result(p, i, "f") for i, p in enumerate(pages, 1)])
        web.routes["/search"] = Reply(
            200, {"Content-Type": "application/json"}, json.dumps(body).encode()
        )
        settings = Settings(
            home=home,
            cache_dir=None,
            embed_workers=1,
            search_provider=f"searxng:{web.url('')}",
            fetch_allow_loopback=True,
            fetch_ports=(web.port,),
        )
        desk = Desk(settings, embedder=HashingEmbedder())
        app = create_app(desk)
        with TestClient(app):
            me = WebUser(app)
            assert "only web searches and page fetches leave this machine" in me.get("/").text
            run_id = me.ask(QUESTION)
            me.wait(run_id)
            page = me.get(f"/runs/{run_id}").text
            receipt = json.loads(me.get(f"/runs/{run_id}/receipts/{run_id}").text)
    assert "not independent corroboration" in page
    assert receipt["web"]["fetches"], receipt["web"]
    assert "1 page not read" in page and "link-local" in page, receipt["web"]["fetches"]
    # The URL the search proposed is hostile text: shown escaped, never as a link.
    refused = next(f["url"] for f in receipt["web"]["fetches"] if f["outcome"] != "read")
    assert refused.endswith("/<b>x</b>") and "<b>x</b>" not in page
    assert "/&lt;b&gt;x&lt;/b&gt;</code>" in page and 'href="http://127.0.0.1' not in page
