"""What the web-run tests share: a fixture web with a SearXNG-format search endpoint and the
pages it proposes, a desk pointed at it, and a child process killed mid-fetch.

The fixture web is real HTTP on 127.0.0.1; the desk reaches it with `fetch_allow_loopback`
and its port allowed (every other non-public address stays refused). The search endpoint
answers every query with the same pages in SearXNG's JSON shape, recording the queries.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Sequence
from pathlib import Path

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.testing.fixturesearch import FixturePage, searxng_body, searxng_result
from evidence_desk.testing.fixtureweb import (
    FixtureWeb,
    Reply,
    Request,
    article,
    redirect,
)

WEB_QUESTION = "What did the Millbrook council decide about the library budget in 2026?"

LIBRARY = [
    "The Millbrook council voted on March 3, 2026 to raise the library budget by 12 percent.",
    "Council member Ana Ruiz said the library budget increase would fund longer opening hours.",
    "The library budget had been frozen since 2019, according to the council's minutes.",
]
SCHOOLS = [
    "The Millbrook council also discussed the school crossing budget in March 2026.",
    "No decision on the school crossing budget was taken at that meeting.",
]


class SearchLog:
    """The fixture's search endpoint: every query answered with `paths`' pages."""

    def __init__(self, web: FixtureWeb, paths: Sequence[str]) -> None:
        self.web = web
        self.paths = list(paths)
        self.queries: list[str] = []

    def __call__(self, request: Request) -> Reply:
        from urllib.parse import parse_qs, urlsplit

        query = parse_qs(urlsplit(request.path).query).get("q", [""])[0]
        self.queries.append(query)
        pages = [FixturePage(self.web.url(p), f"Page {p}", "Millbrook council") for p in self.paths]
        body = searxng_body(
            query, [searxng_result(p, i, "fixture") for i, p in enumerate(pages, 1)]
        )
        import json

        return Reply(200, {"Content-Type": "application/json"}, json.dumps(body).encode())


def millbrook_web(web: FixtureWeb) -> SearchLog:
    """Pages about the question, a redirect, a page redirecting to cloud metadata, and the
    search endpoint proposing them all."""
    web.routes["/news/library"] = article(
        "Millbrook council raises library budget",
        LIBRARY,
        date="2026-03-04",
        author="Jo Park",
    )
    web.routes["/old/schools"] = redirect("/news/schools", 301)
    web.routes["/news/schools"] = article(
        "Millbrook council on school crossings", SCHOOLS, date="2026-03-05"
    )
    web.routes["/promo"] = redirect("http://169.254.169.254/latest/meta-data/")
    log = SearchLog(web, ["/news/library", "/promo", "/old/schools", "/missing"])
    web.routes["/search"] = log
    return log


def web_settings(web: FixtureWeb, home: Path, cache: Path, **values: object) -> Settings:
    fields: dict[str, object] = {
        "home": home,
        "cache_dir": cache,
        "embed_workers": 1,
        "search_provider": f"searxng:{web.url('')}",
        "fetch_allow_loopback": True,
        "fetch_ports": (web.port,),
    }
    return Settings(**{**fields, **values})  # type: ignore[arg-type]


def web_desk(web: FixtureWeb, home: Path, cache: Path, **values: object) -> Desk:
    return Desk(web_settings(web, home, cache, **values), embedder=HashingEmbedder())


def _ask_until_effects(settings_json: str, question: str, mode: str, after: int) -> None:
    """Ask `question` and die by SIGKILL once `after` external effects are recorded."""
    desk = Desk(Settings.model_validate_json(settings_json), embedder=HashingEmbedder())
    recorded = 0

    def on_effect(key: str) -> None:
        nonlocal recorded
        recorded += 1
        if recorded == after:
            os.kill(os.getpid(), signal.SIGKILL)

    web = desk.pipeline.web
    assert web is not None
    web.on_effect = on_effect
    desk.ask(question, mode=mode)


def kill_after_effects(settings: Settings, question: str, mode: str, after: int) -> None:
    """Run `_ask_until_effects` in a child process; fails unless the child was killed."""
    child = multiprocessing.get_context("spawn").Process(
        target=_ask_until_effects, args=(settings.model_dump_json(), question, mode, after)
    )
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, f"the child ended with {child.exitcode}"
