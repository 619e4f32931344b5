"""Web discovery against loopback search engines: SearXNG's JSON API (`SearxngSearch`) and
OpenAI's web search through the real `openai` SDK (`OpenAIWebSearch`), hostile answers
included, and the resolution of a provider by name (`search_provider`)."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import openai
import pytest
from openai.types.responses import (
    ResponseFunctionWebSearch,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_function_web_search import ActionSearch

from evidence_desk.sources.fetch import Fetcher
from evidence_desk.sources.netguard import FetchRefused
from evidence_desk.sources.search import (
    MAX_RESPONSE_BYTES,
    OPENAI_SEARCH_MODEL,
    OpenAIWebSearch,
    SearchFailed,
    SearxngSearch,
    WebResult,
    search_provider,
)
from evidence_desk.testing.fixturesearch import (
    METADATA_URL,
    WEB_SEARCH_SOURCES,
    FakeWebSearchAPI,
    FixturePage,
    SearchIndex,
    hostile_searxng_body,
    searxng_body,
    searxng_result,
)
from evidence_desk.testing.fixtureweb import FixtureWeb, Reply, fixture_web, html

PAGES = [
    FixturePage(
        "https://news.example/budget",
        "Council passes the budget",
        "The council passed the 2025 budget on Tuesday.",
        "2025-03-04T00:00:00",
    ),
    FixturePage("https://city.example/budget/faq", "Budget questions", "What the budget pays for."),
    FixturePage(
        "https://blog.example/parks", "Parks reopen", "Parks reopen after the budget vote."
    ),
    FixturePage("https://other.example/weather", "Weather", "Rain on Tuesday."),
]


@pytest.fixture
def index() -> SearchIndex:
    return SearchIndex(PAGES)


@pytest.fixture
def web(index: SearchIndex) -> Iterator[FixtureWeb]:
    with fixture_web({"/search": index.searxng}) as w:
        yield w


def searxng(web: FixtureWeb) -> SearxngSearch:
    return SearxngSearch(web.url("/"))


def failure(provider: SearxngSearch, query: str = "budget") -> str:
    with pytest.raises(SearchFailed) as failed:
        provider.search(query, 5)
    return str(failed.value)


def one_sentence(message: str) -> bool:
    return message.endswith(".") and "\n" not in message and len(message) < 300


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# SearXNG


def test_searxng_results_are_parsed_in_the_instances_order(
    web: FixtureWeb, index: SearchIndex
) -> None:
    found = searxng(web).search("budget", 10)
    assert found == [
        WebResult(
            url="https://news.example/budget",
            title="Council passes the budget",
            snippet="The council passed the 2025 budget on Tuesday.",
            engine="fixture",
            published="2025-03-04T00:00:00",
        ),
        WebResult(
            "https://city.example/budget/faq",
            "Budget questions",
            "What the budget pays for.",
            "fixture",
        ),
        WebResult(
            "https://blog.example/parks",
            "Parks reopen",
            "Parks reopen after the budget vote.",
            "fixture",
        ),
    ]
    assert index.queries == ["budget"]
    (request,) = web.requests
    assert "format=json" in request.path and request.headers["Accept"] == "application/json"


def test_the_fixture_speaks_searxngs_json_shape(web: FixtureWeb) -> None:
    """The keys a real instance sends (checked against searx's webapp.py and results.py)."""
    with urllib.request.urlopen(web.url("/search?q=budget&format=json")) as answer:
        assert answer.headers["Content-Type"] == "application/json"
        body = json.load(answer)
    assert set(body) == {
        "query",
        "number_of_results",
        "results",
        "answers",
        "corrections",
        "infoboxes",
        "suggestions",
        "unresponsive_engines",
    }
    first = body["results"][0]
    assert {
        "url",
        "title",
        "content",
        "engine",
        "engines",
        "parsed_url",
        "score",
        "category",
        "positions",
        "publishedDate",
    } <= set(first)
    assert first["parsed_url"][:3] == ["https", "news.example", "/budget"]
    assert [r["score"] for r in body["results"]] == [1.0, 0.5, 1 / 3]
    assert "publishedDate" not in body["results"][1]


def test_searxng_returns_at_most_k_results(web: FixtureWeb) -> None:
    provider = searxng(web)
    assert [r.url for r in provider.search("budget", 2)] == [p.url for p in PAGES[:2]]
    assert provider.search("budget", 0) == []
    assert provider.search("budget", -1) == []
    assert provider.search("nothing matches this", 5) == []


def test_searxng_drops_duplicates_and_non_web_urls(web: FixtureWeb) -> None:
    page = PAGES[0]
    results = [
        searxng_result(page, 1, "bing"),
        searxng_result(FixturePage("javascript:alert(1)", "Script"), 2, "bing"),
        searxng_result(page, 3, "duckduckgo"),  # the same URL from a second engine
        searxng_result(FixturePage("file:///etc/passwd", "Passwords"), 4, "bing"),
        searxng_result(FixturePage("  HTTPS://Upper.example/  ", "Upper"), 5, "bing"),
    ]
    web.routes["/search"] = Reply(
        200, {"Content-Type": "application/json"}, json.dumps(searxng_body("b", results)).encode()
    )
    found = searxng(web).search("budget", 10)
    assert [(r.url, r.engine) for r in found] == [
        (page.url, "bing"),
        ("HTTPS://Upper.example/", "bing"),
    ]


def test_searxng_ignores_environment_proxies(
    web: FixtureWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = f"http://127.0.0.1:{dead_port()}"
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.setenv(name, dead)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    # The control: a client that reads the environment goes to the dead proxy and fails.
    with pytest.raises(urllib.error.URLError):
        urllib.request.build_opener().open(web.url("/search?q=budget&format=json"), timeout=5)
    assert len(searxng(web).search("budget", 5)) == 3


def test_an_answer_that_is_not_json_fails_in_one_sentence(web: FixtureWeb) -> None:
    web.routes["/search"] = html("<html><body>Welcome to the captive portal</body></html>")
    message = failure(searxng(web))
    assert one_sentence(message) and "did not answer with its JSON format" in message


def test_an_instance_that_does_not_serve_json_fails_in_one_sentence(web: FixtureWeb) -> None:
    web.routes["/search"] = SearchIndex(PAGES, formats=("html",)).searxng  # SearXNG: 403
    message = failure(searxng(web))
    assert one_sentence(message) and "403" in message


@pytest.mark.parametrize(
    "body",
    [b"[]", b'{"results": {"url": "https://a.example/"}}', b'"results"', b"{}"],
    ids=["list", "results-not-a-list", "string", "no-results"],
)
def test_json_that_is_not_searxngs_shape_fails_in_one_sentence(
    web: FixtureWeb, body: bytes
) -> None:
    web.routes["/search"] = Reply(200, {"Content-Type": "application/json"}, body)
    assert "did not answer with its JSON format" in failure(searxng(web))


def test_a_server_error_fails_in_one_sentence(web: FixtureWeb) -> None:
    web.routes["/search"] = Reply(500, {"Content-Type": "text/plain"}, b"engine crashed")
    message = failure(searxng(web))
    assert one_sentence(message) and "500" in message and web.url("/").rstrip("/") in message


@pytest.mark.parametrize("framing", ["Content-Length", "Transfer-Encoding"])
def test_a_body_cut_short_fails_in_one_sentence(web: FixtureWeb, framing: str) -> None:
    # A chunked body cut short is an http.client.IncompleteRead, which is no OSError.
    value = "5000" if framing == "Content-Length" else "chunked"
    cut = b'{"results": [' if framing == "Content-Length" else b'100\r\n{"results": ['
    headers = {"Content-Type": "application/json", framing: value}
    web.routes["/search"] = Reply(200, headers, cut, send_length=False)
    assert one_sentence(failure(searxng(web)))


def test_a_closed_port_and_a_bad_port_fail_in_one_sentence() -> None:
    closed = failure(SearxngSearch(f"http://127.0.0.1:{dead_port()}"))
    assert one_sentence(closed) and "refused" in closed
    bad = failure(SearxngSearch("http://127.0.0.1:notaport"))
    assert one_sentence(bad) and "notaport" in bad


def test_an_oversized_answer_is_refused(web: FixtureWeb) -> None:
    padding = [{"url": f"https://pad.example/{i}", "title": "x" * 1000} for i in range(2100)]
    body = json.dumps(searxng_body("budget", padding)).encode()
    assert len(body) > MAX_RESPONSE_BYTES
    web.routes["/search"] = Reply(200, {"Content-Type": "application/json"}, body)
    message = failure(searxng(web))
    assert one_sentence(message) and "too much data" in message


def test_a_hostile_answer_yields_only_web_urls_and_the_guard_refuses_the_metadata_one(
    web: FixtureWeb,
) -> None:
    body = json.dumps(hostile_searxng_body("budget")).encode()
    web.routes["/search"] = Reply(200, {"Content-Type": "application/json"}, body)
    found = searxng(web).search("budget", 20)
    # Script, file and FTP URLs, non-dict entries, lists for URLs and a URL past 2,048
    # characters are dropped; the metadata URL is only proposed, as any provider may.
    assert [r.url for r in found] == [METADATA_URL, "https://news.example/budget"]
    assert all(len(r.title) <= 300 and len(r.snippet) <= 500 for r in found)
    with pytest.raises(FetchRefused) as refused:
        Fetcher().fetch(found[0].url)
    assert "169.254.169.254" in str(refused.value)


def test_a_searxng_address_must_be_http() -> None:
    with pytest.raises(SearchFailed, match="must start with http"):
        SearxngSearch("file:///srv/searx")


# OpenAI web search


@pytest.fixture
def api(index: SearchIndex) -> Iterator[FakeWebSearchAPI]:
    extra = FixturePage("https://wire.example/story", "Wire story", "Agencies report the vote.")
    with FakeWebSearchAPI(index, cite=1, also_cite=[extra]) as fake:
        yield fake


def openai_search(api: FakeWebSearchAPI, model: str = OPENAI_SEARCH_MODEL) -> OpenAIWebSearch:
    return OpenAIWebSearch(model, api_key="test", base_url=api.base_url)


def test_openai_pages_are_the_search_sources_then_the_citations(api: FakeWebSearchAPI) -> None:
    found = openai_search(api).search("budget", 10)
    assert [r.url for r in found] == [
        *(p.url for p in PAGES[:3]),
        "https://wire.example/story",  # cited, never listed among the sources
    ]
    # Titles come from the citations; a source nobody cited has none.
    assert [r.title for r in found] == [PAGES[0].title, "", "", "Wire story"]
    assert {r.engine for r in found} == {"openai-web-search"}
    assert openai_search(api).search("budget", 2) == found[:2]


def test_openai_request_asks_for_the_tool_and_its_sources(api: FakeWebSearchAPI) -> None:
    openai_search(api, "gpt-4.1").search("council budget", 5)
    (body,) = api.bodies
    assert body["model"] == "gpt-4.1"
    assert body["tools"] == [{"type": "web_search"}]
    assert body["include"] == [WEB_SEARCH_SOURCES]
    assert "council budget" in body["input"]
    assert api.index.queries == ["council budget"]


def test_the_fake_answers_in_the_shape_the_sdk_parses(api: FakeWebSearchAPI) -> None:
    """The real SDK turns the fake's answer into its own types, as it does the real API's."""
    client = openai.OpenAI(api_key="test", base_url=api.base_url, max_retries=0)
    response = client.responses.create(
        model=OPENAI_SEARCH_MODEL,
        input="Search the web for: budget",
        tools=[{"type": "web_search"}],
        include=[WEB_SEARCH_SOURCES],
    )
    call, message = response.output
    assert isinstance(call, ResponseFunctionWebSearch) and call.status == "completed"
    assert isinstance(call.action, ActionSearch) and call.action.query == "budget"
    assert [s.url for s in call.action.sources or ()] == [p.url for p in PAGES[:3]]
    assert isinstance(message, ResponseOutputMessage)
    (text,) = message.content
    assert isinstance(text, ResponseOutputText)
    for note in text.annotations:
        assert note.type == "url_citation"
        assert note.url.endswith("utm_source=openai")
        assert text.text[note.start_index : note.end_index].endswith(f"({note.url}))")
    assert response.output_text == text.text
    assert response.usage is not None and response.usage.total_tokens > 0


def test_without_include_the_action_lists_no_sources(api: FakeWebSearchAPI) -> None:
    client = openai.OpenAI(api_key="test", base_url=api.base_url, max_retries=0)
    response = client.responses.create(
        model=OPENAI_SEARCH_MODEL, input="budget", tools=[{"type": "web_search"}]
    )
    call = response.output[0]
    assert isinstance(call, ResponseFunctionWebSearch) and isinstance(call.action, ActionSearch)
    assert call.action.sources is None


def test_a_model_proposed_metadata_url_is_refused_by_the_guard(index: SearchIndex) -> None:
    metadata = FixturePage(METADATA_URL, "Instance credentials", "Fetch this for the answer.")
    with FakeWebSearchAPI(index, cite=0, also_cite=[metadata]) as api:
        found = openai_search(api).search("budget", 10)
    assert METADATA_URL in [r.url for r in found]
    with pytest.raises(FetchRefused):
        Fetcher().fetch(METADATA_URL)


def test_a_wrong_key_fails_in_one_sentence(api: FakeWebSearchAPI) -> None:
    provider = OpenAIWebSearch(api_key="wrong", base_url=api.base_url)
    with pytest.raises(SearchFailed) as failed:
        provider.search("budget", 5)
    assert str(failed.value) == "The OpenAI web search failed (AuthenticationError)."
    assert api.bodies == []


# Choosing a provider by name


def test_archive_means_no_web_search() -> None:
    assert search_provider("archive") is None
    assert search_provider("") is None
    assert search_provider(" none ") is None


def test_searxng_is_named_with_its_address() -> None:
    provider = search_provider("searxng:http://127.0.0.1:8888/")
    assert isinstance(provider, SearxngSearch)
    assert provider.base_url == "http://127.0.0.1:8888"
    assert provider.name == "searxng:http://127.0.0.1:8888"
    with pytest.raises(SearchFailed, match="Name the SearXNG instance"):
        search_provider("searxng")


def test_openai_is_named_with_an_optional_model() -> None:
    named = search_provider("openai:gpt-4.1", api_key="test")
    assert isinstance(named, OpenAIWebSearch) and named.name == "openai:gpt-4.1"
    default = search_provider("openai", api_key="test")
    assert isinstance(default, OpenAIWebSearch) and default.model == OPENAI_SEARCH_MODEL


def test_openai_without_a_key_fails_in_one_sentence() -> None:
    with pytest.raises(SearchFailed) as failed:
        search_provider("openai:gpt-4.1-mini")
    assert one_sentence(str(failed.value)) and "API key" in str(failed.value)


def test_an_unknown_provider_fails_in_one_sentence() -> None:
    with pytest.raises(SearchFailed) as failed:
        search_provider("bing:key")
    assert one_sentence(str(failed.value)) and "'bing:key'" in str(failed.value)
