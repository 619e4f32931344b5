"""A reader explores a lesson in a real browser: ask, open the answer, press Explain, watch the
lesson being made, read its blocks with their citations, follow an arrow of the diagram (and
a relation of its text list) to its evidence, open the check question's answer and keep a
note; then axe-core on the answer's and the lesson's pages. Screenshots go to
`artifacts_dir` (`lesson-*.png`).

The desk is the browser tests' own (`browser_site.py`) plus one report whose sentences spell
out two relations the offline teacher finds, so the lesson has a diagram.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_site import Site, build_desk
from playwright.sync_api import Page, expect

from evidence_desk.server import create_app
from evidence_desk.testing.browser import axe_violations, serve_app

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
LESSON_URL = re.compile(r".*/runs/[^/]+/lesson(#.*)?$")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("browser-lessons")
    built = build_desk(folder / "home")
    ferry = folder / "ferry.jsonl"
    ferry.write_text(json.dumps(FERRY) + "\n", encoding="utf-8")
    assert built.desk.ingest([ferry]).added == 1
    with serve_app(create_app(built.desk)) as base_url:
        built.base_url = base_url
        yield built


def open_answer(page: Page, site: Site) -> None:
    """Ask from the workspace and wait on the answer's page for it to be published."""
    page.goto(site.base_url + "/")
    page.get_by_label("Your question").fill(FERRY_QUESTION)
    page.get_by_role("button", name="Ask").click()
    expect(page.locator(".answer .badge").first).to_have_text("Published", timeout=60_000)


def open_lesson(page: Page) -> None:
    """Press Explain on the answer's page and wait for the lesson the review kept."""
    page.get_by_role("button", name=re.compile("Explain this answer|Open the lesson")).click()
    page.wait_for_url(LESSON_URL)
    expect(page.locator(".lesson-block").first).to_be_visible(timeout=60_000)


def test_a_reader_explores_a_lesson(page: Page, site: Site, artifacts_dir: Path) -> None:
    open_answer(page, site)
    explain = page.get_by_role("button", name="Explain this answer")
    expect(explain).to_be_visible()
    page.screenshot(path=artifacts_dir / "lesson-answer.png", full_page=True)
    open_lesson(page)
    expect(page.locator("#run-state")).to_have_text("Lesson published")
    titles = page.locator(".lesson-block h3").all_inner_texts()
    assert titles[0] == "The key idea" and "Check your understanding" in titles, titles
    cite = page.locator(".lesson-block .cite").first
    expect(cite).to_have_text("[S1]")
    assert re.fullmatch(r"/runs/[^/]+/sources/S1", cite.get_attribute("href") or "")
    page.screenshot(path=artifacts_dir / "lesson.png", full_page=True)

    # an arrow of the diagram opens its evidence
    arrow = page.locator('svg.teaching-diagram a.relation[data-relation="R1"]')
    expect(arrow).to_be_visible()
    arrow.click()
    page.wait_for_url(re.compile(r".*#evidence-R1$"))
    evidence = page.locator("#evidence-R1")
    expect(evidence).to_be_in_viewport()
    expect(evidence.locator("mark")).to_have_text(
        "The Harbour Council established the Northern Ferry Service in 2003."
    )
    page.screenshot(path=artifacts_dir / "lesson-evidence.png")
    # and so does the same relation in the text list beside it
    page.locator('.relation-list a[data-relation="R2"]').click()
    page.wait_for_url(re.compile(r".*#evidence-R2$"))
    expect(page.locator("#evidence-R2")).to_be_in_viewport()

    # the check question's answer is hidden until asked for
    check = page.locator(".block-check")
    answer = check.locator(".check-answer p")
    expect(answer).to_be_hidden()
    check.get_by_text("Show the answer").click()
    expect(answer).to_be_visible()
    expect(answer.locator(".cite")).to_have_text("[S1]")

    # a note of the reader's own
    page.get_by_label("Add a note").fill("Ask about the hearings next.")
    page.get_by_role("button", name="Save the note").click()
    page.wait_for_url(re.compile(r".*/lesson#notes$"))
    expect(page.locator(".note-text")).to_have_text("Ask about the hearings next.")
    page.screenshot(path=artifacts_dir / "lesson-note.png", full_page=True)

    # explaining again reopens the same lesson
    lesson_url = page.url.split("#")[0]
    page.get_by_role("link", name="Back to the answer").click()
    expect(page.get_by_role("button", name="Open the lesson")).to_be_visible()
    open_lesson(page)
    assert page.url.split("#")[0] == lesson_url


def test_lesson_pages_have_no_serious_accessibility_violations(axe_page: Page, site: Site) -> None:
    open_answer(axe_page, site)
    assert axe_violations(axe_page) == []
    open_lesson(axe_page)
    axe_page.get_by_text("Show the answer").click()
    assert axe_violations(axe_page) == []
