"""A real browser against a real server, for the browser tests: Debian's Chromium driven by
Playwright, an ASGI app served by uvicorn on 127.0.0.1, and axe-core's accessibility rules.

Playwright never downloads a browser here (`playwright install` is never run): it drives
the system Chromium (`chromium_path`), launched headless with `LAUNCH_ARGS`, which turn off
everything that would reach the network on its own (background networking, component
updates, sync, QUIC); Playwright gives each launch a fresh temporary profile. The app runs
in uvicorn as in production, in a thread of the test process, on a socket bound before the
server starts, so its port is known without a race (`serve_app`). axe-core is the copy the
`axe-playwright-python` package ships (`axe_script`), injected into the page under test.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

DEBIAN_CHROMIUM = "/usr/bin/chromium"
# Passed as given; Playwright adds `--user-data-dir` (a fresh temporary one) and its own pipe.
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
SERIOUS = ("serious", "critical")


def chromium_path() -> str | None:
    """The Chromium to drive: `EVIDENCE_DESK_CHROMIUM` when set, else Debian's
    /usr/bin/chromium, else `chromium` on PATH; None when there is none."""
    named = os.environ.get("EVIDENCE_DESK_CHROMIUM")
    if named:
        return named
    if Path(DEBIAN_CHROMIUM).is_file():
        return DEBIAN_CHROMIUM
    return shutil.which("chromium")


def launch_options(executable: str) -> dict[str, Any]:
    """Keyword arguments of `playwright.chromium.launch` for `executable`."""
    return {"executable_path": executable, "headless": True, "args": list(LAUNCH_ARGS)}


@contextmanager
def browser_page(browser: Browser, *, bypass_csp: bool = False) -> Iterator[Page]:
    """A page in a new context of its own (viewport 1280x900), closed with the block.

    `bypass_csp=True` makes the page ignore the app's Content-Security-Policy: only for a
    page that axe is injected into (`axe_violations`); every other page keeps the policy, so
    a test sees what a reader's browser would block."""
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=bypass_csp, service_workers="block")
    try:
        yield context.new_page()
    finally:
        context.close()


# --------------------------------------------------------------------------- the server


def _listening_socket(host: str) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen(128)
    return sock


@contextmanager
def serve_app(app: Any, host: str = "127.0.0.1", startup_s: float = 10.0) -> Iterator[str]:
    """Serve the ASGI `app` with uvicorn (lifespan on) in a daemon thread for the length of
    the block; yields its base URL, `http://127.0.0.1:PORT`.

    The socket is bound to port 0 and listening before uvicorn starts (`Server.run(sockets=
    ...)`), so the port is the kernel's pick and no other process can take it meanwhile. On
    exit the server is asked to stop (`should_exit`), given 5 s to finish open requests,
    then forced (`force_exit`), and its thread is joined."""
    import uvicorn

    sock = _listening_socket(host)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=5
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn:{port}", daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + startup_s
        while not server.started:
            # uvicorn ends its thread with SystemExit when the app's startup fails.
            if not thread.is_alive():
                raise RuntimeError("uvicorn stopped before it served: the app's startup failed")
            if time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start serving in {startup_s} s")
            time.sleep(0.01)
        url_host = f"[{host}]" if ":" in host else host
        yield f"http://{url_host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        sock.close()


# --------------------------------------------------------------------------- axe-core


class AxeViolation(TypedDict):
    """One rule a page breaks: axe's rule id, its impact, what it asks, and a CSS selector
    of each element that breaks it (a selector path through frames or shadow roots is
    joined with ` >>> `)."""

    id: str
    impact: str
    help: str
    targets: list[str]


def axe_script() -> str:
    """The text of axe.min.js as the `axe-playwright-python` package ships it."""
    return resources.files("axe_playwright_python").joinpath("axe.min.js").read_text("utf-8")


# Runs in the page: axe's violations, reduced to what a failing test should print.
_RUN_AXE = """async () => {
    const results = await axe.run(document, {resultTypes: ["violations"]});
    const selector = (t) => Array.isArray(t) ? t.join(" >>> ") : String(t);
    return results.violations.map((v) => ({
        id: v.id,
        impact: v.impact || "",
        help: v.help,
        targets: v.nodes.flatMap((n) => n.target.map(selector)),
    }));
}"""


def axe_violations(page: Page, *, impacts: Sequence[str] = SERIOUS) -> list[AxeViolation]:
    """Run axe-core on the page as it is now; its violations of the given impacts.

    axe is injected as an inline script, which the app's strict nonce-based
    Content-Security-Policy forbids: the page must belong to a context created with
    `bypass_csp=True` (`browser_page(browser, bypass_csp=True)`, the `axe_page` fixture),
    else this raises saying so. Use such a page only for axe; test behaviour on pages that
    keep the policy."""
    from playwright.sync_api import Error

    if not page.evaluate("() => typeof window.axe === 'object'"):
        try:
            page.add_script_tag(content=axe_script())
        except Error as e:
            if "Content Security Policy" not in e.message:
                raise
            raise RuntimeError(
                "axe-core could not be injected: the page's Content-Security-Policy blocked "
                "it; create its context with bypass_csp=True"
            ) from e
    found = cast(list[AxeViolation], page.evaluate(_RUN_AXE))
    return [v for v in found if v["impact"] in impacts]
