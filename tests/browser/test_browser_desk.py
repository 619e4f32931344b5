"""Editors and publishers in a real browser: an editor approves a held answer and the widget
on a publisher's page shows it; the kill switch pauses that page's widget while the
workspace stays live; axe-core on the standards desk and the widget. The publisher's page
is served from another site (`localhost` against the desk's `127.0.0.1`), under a strict
Content-Security-Policy that allows only the desk's script and frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_site import EDITOR, HELD_QUESTION, PASSWORD, QUESTION, Site, build_desk
from playwright.sync_api import Browser, FrameLocator, Page, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from evidence_desk.server import create_app
from evidence_desk.testing.browser import axe_violations, browser_page, serve_app


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    built = build_desk(tmp_path_factory.mktemp("browser-desk") / "home")
    with serve_app(create_app(built.desk)) as base_url:
        built.base_url = base_url
        yield built


@pytest.fixture(scope="module")
def publisher(site: Site) -> Iterator[str]:
    """A publisher's page on another site embedding the widget with its one script tag."""
    desk = site.base_url

    async def article(request: Request) -> HTMLResponse:
        html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>The Harbour Gazette</title></head><body><main><h1>The Harbour Gazette</h1>
<p>Readers can ask our archive below.</p>
<script src="{desk}/widget.js" data-evidence-desk async></script></main></body></html>"""
        policy = f"default-src 'none'; script-src {desk}; frame-src {desk}; style-src 'none'"
        return HTMLResponse(html, headers={"content-security-policy": policy})

    app = Starlette(routes=[Route("/", article)])
    with serve_app(app) as base_url:
        yield base_url.replace("127.0.0.1", "localhost")


def widget(page: Page) -> FrameLocator:
    return page.frame_locator("iframe")


def ask_in_widget(page: Page, publisher: str, question: str) -> FrameLocator:
    page.goto(publisher + "/")
    frame = widget(page)
    frame.get_by_label("Your question").fill(question)
    frame.get_by_role("button", name="Ask").click()
    return frame


def signed_in_editor(browser: Browser, site: Site) -> Iterator[Page]:
    with browser_page(browser) as page:
        page.goto(site.base_url + "/signin")
        page.get_by_label("Name").fill(EDITOR)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/desk")
        yield page


@pytest.fixture
def editor_page(browser: Browser, site: Site) -> Iterator[Page]:
    yield from signed_in_editor(browser, site)


def test_an_editor_approves_a_held_answer_and_the_widget_shows_it(
    page: Page, editor_page: Page, site: Site, publisher: str, artifacts_dir: Path
) -> None:
    frame = ask_in_widget(page, publisher, HELD_QUESTION)
    expect(frame.locator(".w-run")).to_have_attribute("data-status", "held", timeout=60_000)
    expect(frame.locator(".w-run")).to_contain_text("with the standards desk")
    expect(frame.locator(".w-answer")).to_have_count(0)  # the held draft never reaches it
    editor_page.reload()
    item = editor_page.locator("[data-queue-item]", has_text=HELD_QUESTION).first
    expect(item).to_be_visible()
    editor_page.screenshot(path=artifacts_dir / "queue.png", full_page=True)
    item.click()
    expect(editor_page.locator("mark").first).to_be_visible()  # quotes beside the claims
    editor_page.screenshot(path=artifacts_dir / "review.png", full_page=True)
    editor_page.get_by_role("button", name="Approve and publish").click()
    expect(editor_page.locator(".notice").first).to_contain_text("Approved and published")
    expect(frame.locator(".w-run")).to_have_attribute("data-status", "published", timeout=30_000)
    expect(frame.locator(".w-answer")).to_contain_text("lighthouse tax")
    page.screenshot(path=artifacts_dir / "widget.png", full_page=True)


def test_the_kill_switch_pauses_an_embedding_page_and_not_the_workspace(
    page: Page, editor_page: Page, site: Site, publisher: str, artifacts_dir: Path
) -> None:
    frame = ask_in_widget(page, publisher, QUESTION)
    expect(frame.locator(".w-run")).to_have_attribute("data-status", "published", timeout=60_000)
    editor_page.goto(site.base_url + "/desk")
    editor_page.get_by_label("Why pause it (kept in the log)").fill("checking a complaint")
    editor_page.get_by_role("button", name="Pause the widget").click()
    expect(editor_page.get_by_role("button", name="Resume the widget")).to_be_visible()
    try:
        page.reload()
        expect(widget(page).locator(".w-paused")).to_contain_text("paused")
        expect(widget(page).get_by_label("Your question")).to_have_count(0)
        page.screenshot(path=artifacts_dir / "widget-paused.png", full_page=True)
        editor_page.goto(site.base_url + "/")  # the workspace stays live
        editor_page.get_by_label("Your question").fill(QUESTION)
        editor_page.get_by_role("button", name="Ask").click()
        expect(editor_page.locator(".answer .badge").first).to_have_text(
            "Published", timeout=60_000
        )
        editor_page.goto(site.base_url + "/desk")
        expect(editor_page.locator("body")).to_contain_text("checking a complaint")
    finally:
        editor_page.goto(site.base_url + "/desk")
        editor_page.get_by_label("Why resume it (kept in the log)").fill("resolved")
        editor_page.get_by_role("button", name="Resume the widget").click()
    page.reload()
    expect(widget(page).get_by_label("Your question")).to_be_visible()


def test_desk_and_widget_pages_have_no_serious_accessibility_violations(
    browser: Browser, site: Site
) -> None:
    with browser_page(browser, bypass_csp=True) as page:
        page.goto(site.base_url + "/widget")
        assert axe_violations(page) == []
        page.goto(site.base_url + "/signin")
        page.get_by_label("Name").fill(EDITOR)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/desk")
        assert axe_violations(page) == []
        page.goto(site.base_url + "/desk/dashboard")
        assert axe_violations(page) == []
        held = site.desk.workspace.ask(site.desk.workspace.people.users()[0], HELD_QUESTION).run_id
        site.desk.execute(held)
        page.goto(f"{site.base_url}/desk/runs/{held}")
        expect(page.get_by_role("button", name="Approve and publish")).to_be_visible()
        assert axe_violations(page) == []
