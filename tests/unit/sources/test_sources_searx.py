"""`SearxngSearch` against a real searx server: Debian's `searx` package (1.1.0, the
project SearXNG forked from, with the same JSON API), run under Debian's own Python as an
operator runs it (`python3 -m searx.webapp`), with one `json_engine` engine that queries the
loopback fixture web and every other engine left out.

The settings file is complete rather than merged (`use_default_settings`): Debian ships no
default `searx/settings.yml` to merge with. Listing `json` under `search.formats` is what
SearXNG needs to answer `format=json`; searx 1.1 answers it regardless. The server reaches
the fixture with no proxy: the settings name none, and proxy variables are removed from its
environment (`requests` would honour them).

The server answers about 2 seconds after it is started on this machine (1.1.0 on Python
3.11; loading the engines and the Flask app); the wait is bounded at `START_SECONDS`, and
a server that exits or never answers fails the test with its log.

Without the package the test is skipped; with `EVIDENCE_DESK_REQUIRE_SEARX=1` (CI installs
`searx` with apt) it fails instead. The variable is read when this module is imported:
the suite's autouse fixture removes every `EVIDENCE_DESK_*` variable before each test.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from evidence_desk.sources.search import SearxngSearch, WebResult
from evidence_desk.testing.fixturesearch import JSON_API_ENGINE, FixturePage, SearchIndex
from evidence_desk.testing.fixtureweb import FixtureWeb, fixture_web

SEARX_PACKAGE = Path("/usr/lib/python3/dist-packages/searx")
SEARX_RESOURCES = Path("/usr/share/python3-searx")  # Debian's static files and templates
DEBIAN_PYTHON = Path("/usr/bin/python3")
REQUIRED = os.environ.get("EVIDENCE_DESK_REQUIRE_SEARX") == "1"
START_SECONDS = 60.0
_PROXY_VARIABLES = {"http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy"}

PAGES = [
    FixturePage(
        "https://news.example/budget",
        "Council passes the budget",
        "The council passed the 2025 budget on Tuesday.",
    ),
    FixturePage("https://city.example/budget/faq", "Budget questions", "What the budget pays for."),
    FixturePage("https://other.example/weather", "Weather", "Rain on Tuesday."),
]

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(port: int, engine_url: str) -> dict[str, object]:
    """A complete searx settings file: this server, one engine, nothing else."""
    return {
        "general": {"debug": False, "instance_name": "evidence-desk-test"},
        "search": {
            "safe_search": 0,
            "autocomplete": "",
            "default_lang": "",
            "ban_time_on_fail": 5,
            "max_ban_time_on_fail": 120,
            "formats": ["html", "json"],
        },
        "server": {
            "port": port,
            "bind_address": "127.0.0.1",
            "secret_key": secrets.token_hex(16),
            "base_url": False,
            "image_proxy": False,
            "http_protocol_version": "1.0",
            "method": "GET",
        },
        "ui": {
            "static_path": str(SEARX_RESOURCES / "static"),
            "templates_path": str(SEARX_RESOURCES / "templates"),
            "default_theme": "oscar",
            "default_locale": "",
            "theme_args": {"oscar_style": "logicodev"},
        },
        # No `proxies`: the engine's requests go straight to the loopback fixture.
        "outgoing": {"request_timeout": 10.0, "pool_connections": 10, "pool_maxsize": 10},
        "locales": {"en": "English"},
        "doi_resolvers": {"doi.org": "https://doi.org/"},
        "default_doi_resolver": "doi.org",
        "engines": [
            {
                **JSON_API_ENGINE,
                "name": "fixture",
                "shortcut": "fx",
                "search_url": f"{engine_url}?q={{query}}",
                "timeout": 10.0,
            }
        ],
    }


def _environment(settings: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in _PROXY_VARIABLES and k not in ("PYTHONPATH", "PYTHONHOME")
    }
    env.update(SEARX_SETTINGS_PATH=str(settings), SEARX_DEBUG="0", PYTHONNOUSERSITE="1")
    return env


def _log(path: Path) -> str:
    text = path.read_text(errors="replace").strip()
    return text[-4000:] or "(nothing)"


def _wait_until_answering(server: subprocess.Popen[bytes], url: str, log: Path) -> float:
    """Seconds until `url` answers 200; fails the test with the server's log otherwise."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    started = time.monotonic()
    while time.monotonic() - started < START_SECONDS:
        if server.poll() is not None:
            pytest.fail(f"searx exited with status {server.returncode}; its log:\n{_log(log)}")
        try:
            with opener.open(url, timeout=2) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.05)
    pytest.fail(f"searx did not answer {url} within {START_SECONDS:g} s; its log:\n{_log(log)}")


@pytest.fixture
def upstream() -> Iterator[tuple[FixtureWeb, SearchIndex]]:
    index = SearchIndex(PAGES)
    with fixture_web({"/api": index.json_api}) as web:
        yield web, index


@pytest.fixture
def searx(
    tmp_path: Path,
    upstream: tuple[FixtureWeb, SearchIndex],
    record_property: Callable[[str, object], None],
) -> Iterator[str]:
    """The base URL of a running searx that searches `upstream`."""
    if not (SEARX_PACKAGE.is_dir() and DEBIAN_PYTHON.exists()):
        reason = f"Debian's searx is not installed ({SEARX_PACKAGE}): apt-get install searx"
        if REQUIRED:
            pytest.fail(f"{reason}; EVIDENCE_DESK_REQUIRE_SEARX=1 requires it")
        pytest.skip(reason)
    web, _ = upstream
    port = _free_port()
    settings = tmp_path / "settings.yml"
    settings.write_text(yaml.safe_dump(_settings(port, web.url("/api"))))
    log = tmp_path / "searx.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(DEBIAN_PYTHON), "-m", "searx.webapp"],
            cwd=tmp_path,
            env=_environment(settings),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        seconds = _wait_until_answering(server, f"{base}/", log)
        record_property("searx_start_seconds", round(seconds, 2))
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def test_a_real_searx_returns_the_fixtures_pages(
    searx: str, upstream: tuple[FixtureWeb, SearchIndex]
) -> None:
    web, index = upstream
    found = SearxngSearch(searx).search("budget", 5)
    assert found == [
        WebResult(url=p.url, title=p.title, snippet=p.content, engine="fixture") for p in PAGES[:2]
    ]
    # searx asked the fixture once, with the desk's query, and nothing else was asked.
    assert index.queries == ["budget"]
    assert [r.path for r in web.requests] == ["/api?q=budget"]
    assert SearxngSearch(searx).search("budget", 1) == found[:1]
