"""Web discovery: a query in, candidate pages out, from the search provider the operator chose.

A provider only proposes pages. What it returns is data: titles and snippets are shown,
never obeyed, and every URL still goes through the safe fetch (`fetch.py`) before the desk
reads a byte of it, so a provider (or a model behind one) cannot make the desk fetch an
address the guard refuses.

Providers, chosen by name (`Settings.search_provider`, resolved by `search_provider`):
- `archive` (the default): no web search; the desk reads its archive alone.
- `searxng:<base URL>`: a SearXNG instance's JSON API (`GET /search?q=...&format=json`).
  The instance is the operator's own, so it is reached directly (often on loopback or a
  private network), not through the guard, with environment proxies ignored.
- `openai` or `openai:<model>` (`openai:<model>@<base URL>` for another endpoint of the
  same API): OpenAI's web search tool on the Responses API; the pages are the sources the
  search action reports and the URL citations of its answer. The key is
  `EVIDENCE_DESK_API_KEY`, else `OPENAI_API_KEY`.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import DeskError
from .netguard import MAX_URL_CHARS

MAX_RESPONSE_BYTES = 2_000_000
OPENAI_SEARCH_MODEL = "gpt-4.1-mini"


class SearchFailed(DeskError):
    """A search that could not be done; the message is one sentence."""


@dataclass(frozen=True)
class WebResult:
    """One page a search proposed, in the provider's order."""

    url: str
    title: str
    snippet: str = ""
    engine: str = ""
    published: str | None = None


@dataclass(frozen=True)
class SearchUsage:
    """What one paid search cost: one model call and its tokens (`search_usage`)."""

    engine: str
    input_tokens: int = 0
    output_tokens: int = 0


class SearchProvider(Protocol):
    """Proposes pages for a query. `name` is what the receipt and the setup line show. A
    provider whose searches cost model calls also has `search_usage(query, k)`, returning
    the pages and a `SearchUsage` (the run's budget is charged with it)."""

    name: str

    def search(self, query: str, k: int) -> list[WebResult]: ...


def _text(value: Any, limit: int = 500) -> str:
    return " ".join(str(value).split())[:limit] if isinstance(value, str) else ""


def _url(value: Any) -> str:
    """`value` if it is an http(s) URL the guard could take, else "". Never shortened: a
    cut URL is another address."""
    if not isinstance(value, str):
        return ""
    url = value.strip()
    if len(url) > MAX_URL_CHARS or any(c.isspace() or not c.isprintable() for c in url):
        return ""
    return url if url.lower().startswith(("http://", "https://")) else ""


def _web_urls(results: Iterable[WebResult], k: int) -> list[WebResult]:
    """Results with an http(s) URL, each URL once, at most `k`."""
    out: dict[str, WebResult] = {}
    for r in results:
        if r.url and r.url not in out:
            out[r.url] = r
    return list(out.values())[: max(k, 0)]


class SearxngSearch:
    """A SearXNG instance's JSON API (see the module docstring)."""

    def __init__(self, base_url: str, *, timeout: float = 10.0) -> None:
        if not base_url.lower().startswith(("http://", "https://")):
            raise SearchFailed(
                f"The SearXNG address {base_url!r} must start with http:// or https://."
            )
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.name = f"searxng:{self.base_url}"
        # An empty ProxyHandler: environment proxies never see the desk's queries.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def search(self, query: str, k: int) -> list[WebResult]:
        params = urllib.parse.urlencode({"q": query, "format": "json", "safesearch": "1"})
        request = urllib.request.Request(
            f"{self.base_url}/search?{params}", headers={"Accept": "application/json"}
        )
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # HTTPError and URLError are OSErrors; a body cut short is an HTTPException; a
            # malformed address (a bad port) is a ValueError.
            raise SearchFailed(f"The SearXNG search at {self.base_url} failed ({exc}).") from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise SearchFailed(
                f"The SearXNG search at {self.base_url} answered with too much data."
            )
        try:
            body = json.loads(raw)
            results = body["results"]
            if not isinstance(results, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise SearchFailed(
                f"The SearXNG search at {self.base_url} did not answer with its JSON format "
                "(is `json` listed under `search.formats` in its settings?)."
            ) from None
        found = (
            WebResult(
                url=_url(r.get("url")),
                title=_text(r.get("title"), 300),
                snippet=_text(r.get("content")),
                engine=_text(r.get("engine"), 60),
                published=_text(r.get("publishedDate"), 40) or None,
            )
            for r in results
            if isinstance(r, dict)
        )
        return _web_urls(found, k)


class OpenAIWebSearch:
    """OpenAI's web search tool on the Responses API (see the module docstring)."""

    def __init__(
        self,
        model: str = OPENAI_SEARCH_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise SearchFailed(
                "OpenAI web search needs the providers extra: "
                "pip install 'evidence-desk[providers]'."
            ) from None
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise SearchFailed(
                "OpenAI web search needs an API key (OPENAI_API_KEY or EVIDENCE_DESK_API_KEY)."
            )
        self.model = model
        self.name = f"openai:{model}"
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=1
        )

    def search(self, query: str, k: int) -> list[WebResult]:
        return self.search_usage(query, k)[0]

    def search_usage(self, query: str, k: int) -> tuple[list[WebResult], SearchUsage]:
        """The pages, and what the request cost (a model call: it counts against the run's
        budget; no price table covers the tool's fee, so its spend is unknown)."""
        import openai

        try:
            response = self._client.responses.create(
                model=self.model,
                input=f"Search the web for: {query}",
                tools=[{"type": "web_search"}],
                tool_choice="required",
                include=["web_search_call.action.sources"],
            )
        except openai.OpenAIError as exc:
            raise SearchFailed(f"The OpenAI web search failed ({type(exc).__name__}).") from None
        body = response.model_dump(mode="json")
        raw_usage = body.get("usage")
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        cost = SearchUsage(
            engine=self.name,
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
        )
        return _web_urls(_openai_results(body), k), cost


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _untagged(url: str) -> str:
    """`url` without the `utm_source=openai` parameter the API adds to its citations, so a
    cited page and the same page among the sources are one page."""
    rest, hash_, fragment = url.partition("#")
    base, mark, query = rest.partition("?")
    kept = [p for p in query.split("&") if p != "utm_source=openai"] if mark else []
    return base + ("?" + "&".join(kept) if kept else "") + hash_ + fragment


def _openai_results(body: dict[str, Any]) -> list[WebResult]:
    """The pages of a Responses API answer: each search action's sources, then the URL
    citations of the message (a citation's title fills in a source's). Anything not in
    the documented shape is skipped."""
    sources: list[str] = []
    titles: dict[str, str] = {}
    for item in map(_dict, _list(body.get("output"))):
        if item.get("type") == "web_search_call":
            for source in map(_dict, _list(_dict(item.get("action")).get("sources"))):
                sources.append(_untagged(_url(source.get("url"))))
        elif item.get("type") == "message":
            for part in map(_dict, _list(item.get("content"))):
                for note in map(_dict, _list(part.get("annotations"))):
                    if note.get("type") == "url_citation":
                        url = _untagged(_url(note.get("url")))
                        sources.append(url)
                        titles.setdefault(url, _text(note.get("title"), 300))
    return [
        WebResult(url=u, title=titles.get(u, ""), engine="openai-web-search")
        for u in dict.fromkeys(sources)
    ]


def search_provider(
    spec: str, *, api_key: str | None = None, base_url: str | None = None
) -> SearchProvider | None:
    """The provider `spec` names, or None for `archive` (no web search)."""
    name, _, rest = spec.strip().partition(":")
    if name in ("", "archive", "none"):
        return None
    if name == "searxng":
        if not rest:
            raise SearchFailed("Name the SearXNG instance: searxng:http://host:port.")
        return SearxngSearch(rest)
    if name == "openai":
        model, _, server = rest.partition("@")  # `openai:<model>@<base URL>`, like engines
        return OpenAIWebSearch(
            model or OPENAI_SEARCH_MODEL, api_key=api_key, base_url=server or base_url
        )
    raise SearchFailed(
        f"Unknown search provider {spec!r}; use archive, searxng:<URL> or openai[:<model>]."
    )
