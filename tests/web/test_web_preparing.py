"""A desk still preparing its archive serves at once: every page shows the progress,
`/api/preparing` answers, and a question asked meanwhile is a 503 that opens no run.

The desk starts on an empty data directory and prepares the small archive in its place of
the sample (`load=`), embedded with `HashingEmbedder` held at its first call until the test
lets it go (`HeldEmbedder`), so "preparing" lasts exactly as long as the test needs.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from web_helpers import QUESTION, WebUser, Widget

from evidence_desk.archive.loaders import iter_documents
from evidence_desk.desk import Desk
from evidence_desk.desk.preparing import SamplePreparation
from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.server import create_app
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl
from evidence_desk.testing.embedder import HashingEmbedder

STILL = "The archive is still being prepared"
AGAIN = "Ask again once it is ready."


class HeldEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        assert self.go.wait(30), "the test never let the embedder go"
        return super().embed(texts, progress)


@pytest.fixture
def held() -> Iterator[HeldEmbedder]:
    embedder = HeldEmbedder()
    yield embedder
    embedder.go.set()  # never leave the preparation's thread waiting


@pytest.fixture
def preparing_desk(tmp_path: Path, held: HeldEmbedder) -> Desk:
    return Desk(Settings(home=tmp_path / "home", cache_dir=None, embed_workers=1), embedder=held)


@pytest.fixture
def preparation(preparing_desk: Desk, tmp_path: Path) -> SamplePreparation:
    archive = write_jsonl(tmp_path / "small.jsonl", sotu_records(SMALL_ARCHIVE))
    preparation = preparing_desk.prepare_sample(
        "sotu", load=lambda: list(iter_documents([archive]))
    )
    for _ in range(3000):
        if preparation.progress().stage == "embedding":
            return preparation
        preparation.wait(0.01)
    raise AssertionError(preparation.progress())


@pytest.fixture
def preparing_app(
    preparing_desk: Desk, preparation: SamplePreparation, held: HeldEmbedder
) -> Iterator[FastAPI]:
    app = create_app(preparing_desk)
    with TestClient(app):  # its lifespan: startup while preparing, then the shutdown
        yield app
        held.go.set()  # the shutdown stops the preparation at its next step: let it get there


def test_every_page_shows_the_progress(preparing_app: FastAPI) -> None:
    user = WebUser(preparing_app)
    for path in ("/", "/signin", "/api/docs"):
        page = user.get(path)
        assert page.status_code == 200, path
        text = page.text
        assert '<progress id="preparing-bar" aria-describedby="preparing-status" max="' in text
        assert '<label for="preparing-bar"><strong>Preparing the sample archive</strong>' in text
        assert '<span id="preparing-stage">embedding</span>' in text
        assert re.search(
            r'id="preparing-status" aria-live="polite">0 of [1-9][\d,]* passages', text
        )
        assert '<script src="/static/preparing.js" type="module"></script>' in text
        assert '<noscript><meta http-equiv="refresh" content="15"></noscript>' in text
        assert 'data-reload="yes"' in text
    script = user.get("/static/preparing.js")
    assert script.status_code == 200 and "/api/preparing" in script.text


def test_the_progress_endpoint_answers_without_a_session(preparing_app: FastAPI) -> None:
    client = TestClient(preparing_app)
    r = client.get("/api/preparing")
    assert r.status_code == 200
    body = r.json()
    assert body["ready"] is False and body["stage"] == "embedding" and body["unit"] == "passages"
    assert body["done"] == 0 and body["total"] > 100 and body["error"] is None
    assert set(body) == {
        "ready", "stage", "done", "total", "unit", "elapsed_seconds", "eta_seconds", "error"
    }  # fmt: skip
    assert r.headers["cache-control"] == "no-store"
    assert "set-cookie" not in r.headers


def test_asking_while_preparing_is_a_503_and_opens_no_run(
    preparing_app: FastAPI, preparing_desk: Desk
) -> None:
    user = WebUser(preparing_app)
    api = user.post_json("/api/ask", {"question": QUESTION})
    assert api.status_code == 503
    assert api.json()["error"].startswith(STILL) and api.json()["error"].endswith(AGAIN)
    assert api.json()["preparing"]["stage"] == "embedding"
    assert 5 <= int(api.headers["retry-after"]) <= 300
    form = user.post_form("/ask", {"question": QUESTION, "mode": "deep"})
    assert form.status_code == 503
    page = form.text
    assert STILL in html.unescape(page) and "Traceback" not in page
    assert f'<textarea id="question" name="question" rows="3" required>{QUESTION}</textarea>' in (
        html.unescape(page)
    )
    assert '<input type="hidden" name="mode" value="deep">' in page
    assert f'name="csrf_token" value="{user.csrf}"' in page
    assert '<progress id="preparing-bar"' in page
    assert 'data-reload="no"' in page and "http-equiv" not in page  # a POST's page stays
    frame = Widget(preparing_app)
    widget = frame.client.post(
        "/widget/api/ask", json={"question": QUESTION}, headers=frame.headers()
    )
    assert widget.status_code == 503 and widget.json()["error"].startswith(STILL)
    assert preparing_desk.runs() == []
    assert user.get("/api/conversations").json() == []  # nor an empty conversation


def test_once_ready_the_bar_goes_and_questions_are_answered(
    preparing_app: FastAPI, preparation: SamplePreparation, held: HeldEmbedder
) -> None:
    user = WebUser(preparing_app)
    held.go.set()
    assert preparation.wait(30)
    body = user.get("/api/preparing").json()
    assert body["ready"] is True and body["stage"] == "ready" and body["eta_seconds"] == 0
    assert "preparing-bar" not in user.get("/").text
    run = user.wait(user.ask())
    assert run["state"] in ("published", "held", "outside")


def test_a_failed_preparation_says_why_on_every_page(tmp_path: Path) -> None:
    desk = Desk(
        Settings(home=tmp_path / "home", cache_dir=None, embed_workers=1),
        embedder=HashingEmbedder(),
    )
    missing = tmp_path / "missing.jsonl"
    preparation = desk.prepare_sample("sotu", load=lambda: list(iter_documents([missing])))
    assert preparation.wait(30)
    app = create_app(desk)
    with TestClient(app):
        user = WebUser(app)
        page = user.get("/").text
        assert "The archive could not be prepared." in page and "preparing-bar" not in page
        assert "No document of the sotu sample could be read (" in page
        assert user.get("/api/preparing").json()["stage"] == "failed"
        refused = user.post_json("/api/ask", {"question": QUESTION})
        assert refused.status_code == 400
        assert refused.json()["error"].startswith(
            "The archive could not be prepared: No document of the sotu sample could be read"
        )


def test_a_desk_with_its_archive_shows_no_bar(server: TestClient, web_desk: Desk) -> None:
    assert web_desk.preparation is None
    assert server.get("/api/preparing").json()["ready"] is True
    assert "preparing" not in server.get("/").text
