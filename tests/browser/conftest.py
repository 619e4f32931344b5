"""Fixtures for the browser tests: Debian's Chromium through Playwright's sync API, one
browser per test module (never open past it: see `browser`) and a fresh context per test
(`evidence_desk.testing.browser`).

Every test in this folder is marked `browser` (`make test-fast` leaves them out). Without a
Chromium (`chromium_path()` is None) they are skipped with the reason; CI sets
`EVIDENCE_DESK_REQUIRE_BROWSER=1`, which turns the skip into a failure. Screenshots go to
`artifacts_dir`: `EVIDENCE_DESK_ARTIFACTS`, else `.artifacts/browser` in the repo; a test
that fails leaves a screenshot of its `page` there.

The environment is read when this file is imported: the root conftest removes every
`EVIDENCE_DESK_*` variable from each test's environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from evidence_desk.testing.browser import browser_page, chromium_path, launch_options

HERE = Path(__file__).resolve().parent
CHROMIUM = chromium_path()
REQUIRED = os.environ.get("EVIDENCE_DESK_REQUIRE_BROWSER") == "1"
ARTIFACTS = Path(
    os.environ.get("EVIDENCE_DESK_ARTIFACTS") or HERE.parents[1] / ".artifacts" / "browser"
)
NO_CHROMIUM = (
    "no Chromium: install Debian's (`apt-get install chromium`, /usr/bin/chromium) or name "
    "one in EVIDENCE_DESK_CHROMIUM; Playwright's own download is never used"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(HERE):
            continue
        item.add_marker(pytest.mark.browser)
        if CHROMIUM is None and not REQUIRED:
            item.add_marker(pytest.mark.skip(reason=NO_CHROMIUM))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep each phase's report on the test, for `page` to see whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one test module. Not for the session: while Playwright's sync API is
    open, its event loop runs on the main thread, and every later test that runs a loop of
    its own there (Pydantic AI's `run_sync`) fails with "This event loop is already running"."""
    if CHROMIUM is None:  # reached only when EVIDENCE_DESK_REQUIRE_BROWSER=1
        pytest.fail(NO_CHROMIUM)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(**launch_options(CHROMIUM))
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


class ConsoleErrors(list[str]):
    """The errors a page logged: console messages of type `error` and uncaught exceptions."""

    def watch(self, page: Page) -> None:
        def on_console(message: Any) -> None:
            if message.type == "error":
                where = (message.location or {}).get("url", "")
                self.append(f"console error: {message.text} ({where})")

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.append(f"uncaught: {exc}"))


def _check_console(request: pytest.FixtureRequest, errors: ConsoleErrors) -> None:
    """A test that passed fails when its page logged an error, unless it is marked
    `console_errors(pattern)` and every error matches the pattern."""
    call = getattr(request.node, "report_call", None)
    if call is None or not call.passed:
        return
    marker = request.node.get_closest_marker("console_errors")
    allowed = re.compile(marker.args[0]) if marker else None
    unexpected = [e for e in errors if allowed is None or not allowed.search(e)]
    if unexpected:
        pytest.fail("the page logged errors:\n" + "\n".join(unexpected), pytrace=False)


@pytest.fixture
def console_errors() -> ConsoleErrors:
    return ConsoleErrors()


@pytest.fixture
def page(
    browser: Browser,
    artifacts_dir: Path,
    request: pytest.FixtureRequest,
    console_errors: ConsoleErrors,
) -> Iterator[Page]:
    """A page in a fresh context (viewport 1280x900) that keeps the app's
    Content-Security-Policy; screenshotted into `artifacts_dir` when the test fails, and
    failed when it logged a console error (`_check_console`)."""
    with browser_page(browser) as opened:
        console_errors.watch(opened)
        yield opened
        call = getattr(request.node, "report_call", None)
        if call is not None and call.failed:
            name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)
            opened.screenshot(path=artifacts_dir / f"{name}-failed.png", full_page=True)
    _check_console(request, console_errors)


@pytest.fixture
def axe_page(
    browser: Browser, request: pytest.FixtureRequest, console_errors: ConsoleErrors
) -> Iterator[Page]:
    """A page whose context ignores Content-Security-Policy (`bypass_csp=True`), so that
    `axe_violations` can inject axe-core; for accessibility checks only. Console errors
    fail it too."""
    with browser_page(browser, bypass_csp=True) as opened:
        console_errors.watch(opened)
        yield opened
    _check_console(request, console_errors)
