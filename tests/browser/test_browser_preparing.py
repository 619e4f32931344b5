"""The preparation's bar in a real browser: it follows `/api/preparing`, the page reloads
itself once the archive is ready, and nothing is logged to the console, also when the server
stops under a page that is still polling.

The desk prepares the small archive in place of the sample, embedded with `HashingEmbedder`
held at its first call until the test lets it go.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evidence_desk.archive.loaders import iter_documents
from evidence_desk.desk import Desk
from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.server import create_app
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl
from evidence_desk.testing.browser import serve_app
from evidence_desk.testing.embedder import HashingEmbedder


class HeldEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        assert self.go.wait(60), "the test never let the embedder go"
        return super().embed(texts, progress)


def preparing_desk(tmp_path: Path, embedder: HeldEmbedder) -> Desk:
    archive = write_jsonl(tmp_path / "small.jsonl", sotu_records(SMALL_ARCHIVE))
    desk = Desk(
        Settings(home=tmp_path / "home", cache_dir=None, embed_workers=1), embedder=embedder
    )
    desk.prepare_sample("sotu", load=lambda: list(iter_documents([archive])))
    return desk


def test_the_bar_follows_the_preparation_and_the_page_reloads_when_ready(
    page: Page, tmp_path: Path, artifacts_dir: Path
) -> None:
    held = HeldEmbedder()
    desk = preparing_desk(tmp_path, held)
    try:
        with serve_app(create_app(desk)) as base_url:
            page.goto(base_url + "/")
            bar = page.get_by_role("progressbar", name="Preparing the sample archive: embedding")
            expect(bar).to_be_visible()
            expect(page.locator("#preparing-status")).to_contain_text("passages")
            page.screenshot(path=artifacts_dir / "preparing.png", full_page=True)
            held.go.set()
            expect(page.locator("#preparing")).to_have_count(0, timeout=20_000)  # reloaded
            expect(page.get_by_role("heading", name="Ask the archive")).to_be_visible()
    finally:
        held.go.set()


# Chromium logs every refused connection itself, caught by the script or not: that, and only
# that, may be logged; an uncaught error from the script would fail the test.
@pytest.mark.console_errors(
    r"^console error: Failed to load resource: net::ERR_CONNECTION_REFUSED "
    r"\(http://127\.0\.0\.1:\d+/api/preparing\)$"
)
def test_polling_a_stopped_server_stays_quiet(page: Page, tmp_path: Path) -> None:
    held = HeldEmbedder()
    desk = preparing_desk(tmp_path, held)
    try:
        with serve_app(create_app(desk)) as base_url:
            page.goto(base_url + "/")
            expect(page.locator("#preparing-bar")).to_be_visible()
            held.go.set()  # the shutdown stops the preparation at its next step
        page.wait_for_timeout(13_000)  # polls of a server that is gone, 4 s then 8 s apart
        expect(page.locator("#preparing-bar")).to_be_visible()
        expect(page.locator("#preparing-stage")).to_have_text("embedding")
    finally:
        held.go.set()
