"""A new reader's first hour, in a real browser on the sample archive: the answer page as
it reads once the run is done, a held answer that shows nothing of its draft in any
response the browser receives, a conversation, and no run id on a reader's page. Every
page here also fails on a console error (the `page` fixture).

The answer page's screenshot is the README's first picture: with
`EVIDENCE_DESK_UPDATE_SCREENSHOTS=1` the test writes it to `docs/images/answer.png`
(otherwise only to `artifacts_dir`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_site import HELD_QUESTION, QUESTION, Site, build_desk
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Response, expect

from evidence_desk.server import create_app
from evidence_desk.testing.browser import serve_app

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
# read at import: the root conftest clears EVIDENCE_DESK_* from each test's environment
UPDATE_SCREENSHOTS = os.environ.get("EVIDENCE_DESK_UPDATE_SCREENSHOTS") == "1"
CITE = re.compile(r"\s*\[S\d+\]")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    built = build_desk(tmp_path_factory.mktemp("first-hour") / "home")
    with serve_app(create_app(built.desk)) as base_url:
        built.base_url = base_url
        yield built


def ask(page: Page, site: Site, question: str, label: str = "Your question") -> str:
    """Ask from the page in view; the run's id once its answer is on screen."""
    page.get_by_label(label).fill(question)
    page.get_by_role("button", name="Ask").click()
    page.wait_for_url("**/runs/*")
    expect(page.locator(".answer .badge").first).to_be_visible(timeout=60_000)
    return page.url.rstrip("/").rsplit("/", 1)[1]


def draft_pieces(site: Site, run_id: str) -> list[str]:
    stored = site.desk.store.get_receipt(run_id)
    assert stored is not None
    receipt = json.loads(stored.json)
    assert receipt["decision"] == "HELD_FOR_REVIEW"
    sentences = [CITE.sub("", c["text"]).strip() for c in receipt["claims"]]
    pieces = [p for p in sentences if len(p) >= 12]
    assert pieces
    return pieces


def test_the_answer_page_reads_as_an_answer(page: Page, site: Site, artifacts_dir: Path) -> None:
    page.goto(site.base_url + "/")
    run_id = ask(page, site, QUESTION)
    expect(page.locator(".answer .badge").first).to_have_text("Published")
    expect(page.locator("#console")).not_to_have_attribute("open", "")
    body = page.locator("main").inner_text()
    assert run_id not in body, "a reader's page shows the run id"
    cited = set(page.locator(".published .cite").all_inner_texts())
    listed = page.locator("ol.sources > li > a").all_inner_texts()
    assert cited and {t.split("]")[0] + "]" for t in listed} == cited  # the cited, and only
    page.set_viewport_size({"width": 1000, "height": 760})
    shot = artifacts_dir / "answer.png"
    page.screenshot(path=shot)
    if UPDATE_SCREENSHOTS:
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=DOCS_IMAGES / "answer.png", type="png")


def test_a_held_answer_reaches_the_browser_in_no_response(
    page: Page, site: Site, artifacts_dir: Path
) -> None:
    bodies: list[tuple[str, str]] = []

    def keep(response: Response) -> None:
        if response.request.resource_type in ("document", "fetch", "xhr", "eventsource"):
            with contextlib.suppress(PlaywrightError):  # a stream cut by a navigation
                bodies.append((response.url, response.text()))

    page.on("response", keep)
    page.goto(site.base_url + "/")
    run_id = ask(page, site, HELD_QUESTION)
    expect(page.locator(".answer .badge").first).to_have_text("Held for review")
    expect(page.locator(".answer .notice")).to_contain_text("with the standards desk")
    assert page.locator(".receipts").count() == 0  # no receipt to download
    page.screenshot(path=artifacts_dir / "held.png", full_page=True)
    page.get_by_role("link", name=re.compile("^Conversation")).click()
    page.wait_for_url("**/conversations/*")
    for path in (f"/runs/{run_id}/sources/S1", f"/runs/{run_id}/receipts/{run_id}"):
        response = page.request.get(site.base_url + path)
        assert response.status == 404
        bodies.append((path, response.text()))
    pieces = draft_pieces(site, run_id)
    assert len(bodies) >= 4
    for url, text in bodies:
        seen = " ".join(text.split())
        for piece in pieces:
            assert " ".join(piece.split()) not in seen, f"{url} holds the held draft"


def test_a_conversation_shows_each_question_once(
    page: Page, site: Site, artifacts_dir: Path
) -> None:
    page.goto(site.base_url + "/")
    ask(page, site, QUESTION)
    ask(page, site, "What did he say about freedom from fear?", label="Ask a follow-up")
    page.get_by_role("link", name=re.compile("^Conversation")).click()
    page.wait_for_url("**/conversations/*")
    expect(page.locator("h1")).to_contain_text("Conversation")
    text = page.locator("main").inner_text()
    assert text.count(QUESTION) == 1
    expect(page.locator("article.turn")).to_have_count(2)
    page.screenshot(path=artifacts_dir / "conversation.png", full_page=True)
    page.goto(site.base_url + "/")
    listing = page.locator(".threads li").first.inner_text()
    assert "Quick" in listing or "quick" in listing, listing
