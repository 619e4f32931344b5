"""The browser harness end to end, before the web app exists: a tiny Starlette app served by
uvicorn (`serve_app`) under the kind of Content-Security-Policy the app will send, a click
in Chromium, a screenshot, and axe-core on a clean page and on a broken one.

The policy is enforced in `page` (the nonce'd script runs, an inline one without the nonce
does not) and ignored only in `axe_page`, where axe is injected.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from evidence_desk.testing.browser import axe_violations, serve_app

NONCE = "abc"
CSP = f"default-src 'self'; script-src 'nonce-{NONCE}'"
# A 1x1 transparent PNG, served by the app (the policy allows no data: images).
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def _page(title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1>{body}</main></body>
</html>"""


GOOD = _page(
    "Evidence Desk smoke",
    f"""<button id="show" type="button">Show the answer</button>
<p id="answer" aria-live="polite"></p>
<script>window.unguarded = true;</script>
<script nonce="{NONCE}">
document.getElementById("show").addEventListener("click", () => {{
  document.getElementById("answer").textContent = "Clicked, and the script ran.";
}});
</script>""",
)
# An image without alt text as a link's only content: axe's `image-alt` (critical) and
# `link-name` (serious).
BROKEN = _page("Broken", '<p><a href="/"><img src="/pixel.png"></a></p>')


def _html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers={"Content-Security-Policy": CSP})


async def good(request: Request) -> Response:
    return _html(GOOD)


async def broken(request: Request) -> Response:
    return _html(BROKEN)


async def pixel(request: Request) -> Response:
    return Response(PIXEL, media_type="image/png")


async def state(request: Request) -> Response:
    return JSONResponse({"started": request.state.started})


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[dict[str, bool]]:
    yield {"started": True}


APP = Starlette(
    routes=[
        Route("/", good),
        Route("/broken", broken),
        Route("/pixel.png", pixel),
        Route("/favicon.ico", pixel),  # a browser asks for one: a 404 would be a console error
        Route("/state", state),
    ],
    lifespan=lifespan,
)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_app(APP) as url:
        yield url


@pytest.mark.console_errors("Content Security Policy")
def test_a_click_runs_the_nonced_script_only(
    page: Page, base_url: str, artifacts_dir: Path, console_errors: list[str]
) -> None:
    response = page.goto(base_url)
    assert response is not None and response.headers["content-security-policy"] == CSP
    page.get_by_role("button", name="Show the answer").click()
    expect(page.locator("#answer")).to_have_text("Clicked, and the script ran.")
    assert page.evaluate("() => window.unguarded") is None  # blocked by the policy
    # the blocked script is logged, and the page fixture sees it (any other error fails)
    assert any("Content Security Policy" in e for e in console_errors), console_errors
    shot = artifacts_dir / "smoke-clicked.png"
    page.screenshot(path=shot, full_page=True)
    assert shot.stat().st_size > 0


def test_the_app_lifespan_ran(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/state")
    assert page.evaluate("() => JSON.parse(document.body.innerText)") == {"started": True}


def test_a_well_formed_page_has_no_serious_violation(axe_page: Page, base_url: str) -> None:
    axe_page.goto(base_url)
    assert axe_violations(axe_page) == []


def test_an_image_link_without_alt_is_found(axe_page: Page, base_url: str) -> None:
    axe_page.goto(f"{base_url}/broken")
    found = {v["id"]: v for v in axe_violations(axe_page)}
    assert found["image-alt"]["impact"] == "critical"
    assert found["image-alt"]["targets"] == ["img"]
    assert found["image-alt"]["help"]
    assert {v["impact"] for v in found.values()} <= {"serious", "critical"}
    assert axe_violations(axe_page, impacts=("minor",)) == []


@pytest.mark.console_errors("Content Security Policy")  # the page's unnonced script
def test_axe_needs_a_page_that_ignores_the_policy(page: Page, base_url: str) -> None:
    page.goto(base_url)
    with pytest.raises(RuntimeError, match="bypass_csp=True"):
        axe_violations(page)
