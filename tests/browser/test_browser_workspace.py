"""Readers in a real browser: ask on the sample archive and watch the console stream, open a
source from a citation and see the quote highlighted, reload in the middle of a run and see
its events replay, and axe-core on every reader page. Screenshots go to `artifacts_dir`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_site import QUESTION, Site, build_desk
from playwright.sync_api import Page, expect

from evidence_desk.server import create_app
from evidence_desk.testing.browser import axe_violations, serve_app

STAGES = ["plan", "retrieve", "select", "coverage", "answer", "verify", "audit", "gate", "publish"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    built = build_desk(tmp_path_factory.mktemp("browser") / "home")
    with serve_app(create_app(built.desk)) as base_url:
        built.base_url = base_url
        yield built


def ask(page: Page, site: Site, question: str = QUESTION) -> float:
    """Ask from the workspace; seconds from the click to the first stage on screen."""
    page.goto(site.base_url + "/")
    page.get_by_label("Your question").fill(question)
    started = time.perf_counter()
    page.get_by_role("button", name="Ask").click()
    page.locator("#stages li").first.wait_for(state="attached")  # folded once the run is done
    return time.perf_counter() - started


def stage_names(page: Page) -> list[str]:
    return page.locator("#stages li").evaluate_all("rows => rows.map(r => r.dataset.stage)")


def test_asking_streams_each_stage_then_the_answer(
    page: Page, site: Site, artifacts_dir: Path
) -> None:
    page.goto(site.base_url + "/")
    page.screenshot(path=artifacts_dir / "workspace.png", full_page=True)
    site.gate.clear()  # the run waits in its answer stage until the gate opens
    try:
        first = ask(page, site)
        assert site.answerer.waiting.wait(60), "the run never reached its answer stage"
        expect(page.locator("#console")).to_have_attribute("open", "")  # open while it runs
    finally:
        site.gate.set()
    expect(page.locator(".answer .badge").first).to_have_text("Published", timeout=60_000)
    expect(page.locator(".answer .decision code")).to_have_text("AUTO_CLEARED")
    expect(page.locator("#console")).not_to_have_attribute("open", "")  # folded once done
    page.get_by_text("How this answer was made").click()
    expect(page.locator("#stages li.done")).to_have_count(len(STAGES))
    assert stage_names(page) == STAGES
    stats = page.locator("#stages li.done .stats").all_inner_texts()
    for line in stats:  # the offline engine calls no model: no "0 tokens" rows
        assert re.fullmatch(r"[\d.]+ ms", line), stats
    expect(page.locator(".published .cite").first).to_be_visible()
    page.screenshot(path=artifacts_dir / "run.png", full_page=True)
    warm = sorted(ask(page, site) for _ in range(5))  # measured, never asserted: bench.web
    (artifacts_dir / "first-stage-on-screen.json").write_text(
        json.dumps({"first_s": round(first, 3), "warm_s": [round(s, 3) for s in warm]}),
        encoding="utf-8",
    )


def test_a_citation_opens_its_source_with_the_quote_highlighted(
    page: Page, site: Site, artifacts_dir: Path
) -> None:
    ask(page, site)
    cite = page.locator(".published .cite").first
    expect(cite).to_be_visible(timeout=60_000)
    run_url = page.url
    cite.focus()
    page.keyboard.press("Enter")  # citations are reached and followed by keyboard
    page.wait_for_url("**/sources/S*")
    mark = page.locator("mark#quote")
    expect(mark).to_be_visible()
    run_id = run_url.rstrip("/").rsplit("/", 1)[1]
    receipt = page.request.get(f"{site.base_url}/runs/{run_id}/receipts/{run_id}").json()
    source_id = page.url.split("/sources/")[1].split("#")[0]
    quotes = [q["text"] for q in receipt["quotes"] if q["source_id"] == source_id]
    assert mark.inner_text() in quotes
    expect(page.locator("dl.card")).to_contain_text(receipt["sources"][0]["content_sha256"][:16])
    page.screenshot(path=artifacts_dir / "source.png", full_page=True)


def test_a_reload_in_the_middle_of_a_run_replays_its_events(page: Page, site: Site) -> None:
    site.gate.clear()
    try:
        ask(page, site)
        assert site.answerer.waiting.wait(60), "the run never reached its answer stage"
        expect(page.locator('#stages li[data-stage="answer"]')).to_be_visible()
        page.reload()
        assert stage_names(page)[:5] == STAGES[:5]  # the stored stages, on the page itself
        expect(page.locator("#stages li.done")).to_have_count(4)
    finally:
        site.gate.set()
    expect(page.locator(".answer .badge").first).to_have_text("Published", timeout=60_000)
    assert stage_names(page) == STAGES  # replayed and followed: each stage once, in order
    expect(page.locator("#stages li.done")).to_have_count(len(STAGES))


def test_reader_pages_have_no_serious_accessibility_violations(axe_page: Page, site: Site) -> None:
    axe_page.goto(site.base_url + "/")
    assert axe_violations(axe_page) == []
    axe_page.get_by_label("Your question").fill(QUESTION)
    axe_page.get_by_role("button", name="Ask").click()
    expect(axe_page.locator(".answer .badge").first).to_have_text("Published", timeout=60_000)
    assert axe_violations(axe_page) == []
    axe_page.locator(".published .cite").first.click()
    axe_page.wait_for_url("**/sources/S*")
    assert axe_violations(axe_page) == []
    axe_page.goto(site.base_url + "/signin")
    assert axe_violations(axe_page) == []
