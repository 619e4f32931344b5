"""The run's external effects: web searches and fetches, each done once and recorded.

A run reaches beyond its archive through `WebParts`: the search provider, the safe fetch,
the reader of fetched pages, and the log the effects are recorded in (`logs.EffectLog`).
Every search and fetch is recorded under an idempotency key made from what it asks
(`WebParts.key`: the run, the kind, the provider and query or the URL); the first record
under a key stands, so a run resumed after a kill reads each recorded effect back (the
search's results, the fetch's snapshot) instead of doing it again. A refused or failed
search or fetch is recorded too, with its one-sentence reason.

The stages that use these parts, discover and read, are `web.py`; `WebLimits` bounds them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import RunBudget
from ..retrieval.embedder import Embedder
from ..sources.fetch import Page
from ..sources.netguard import FetchRefused
from ..sources.reading import ReadRefused
from ..sources.search import SearchFailed, SearchProvider
from ..store.snapshots import Effect, Snapshot, snapshot_id_of
from ..types import Document
from .logs import EffectLog

# Reads a fetched page's bytes: (body, content type, doc id, final URL) -> its document.
ReadPage = Callable[[bytes, str, str, str], Document]
Similarity = Callable[[str, Sequence[str]], list[float]]


@dataclass(frozen=True)
class WebLimits:
    pages_quick: int = 3
    pages_deep: int = 6
    results_per_search: int = 5
    budget_tokens: int = 10_000


@dataclass
class WebParts:
    """What a run needs to reach beyond the archive. `fetch` is the safe fetch (the
    LangGraph executor hands in the same one as a LangChain tool); `similarity` is the
    archive's embedder (question to passages), so web passages are scored on the scale the
    coverage floor was calibrated on; `on_effect(key)` runs after each effect is recorded
    (the crash tests kill the process there)."""

    provider: SearchProvider | None
    fetch: Callable[[str], Page]
    read: ReadPage
    snapshots: EffectLog
    similarity: Similarity | None = None
    limits: WebLimits = field(default_factory=WebLimits)
    embedder: Embedder | None = None  # hybrid passage scoring when given (`passages.py`)
    on_effect: Callable[[str], None] | None = None

    @property
    def provider_name(self) -> str:
        return self.provider.name if self.provider is not None else "none"

    def key(self, run_id: str, kind: str, what: str) -> str:
        digest = hashlib.sha256(f"{run_id}\n{kind}\n{what}".encode()).hexdigest()
        return f"{kind}-{digest[:24]}"

    def _recorded(self, effect: Effect) -> Effect:
        if self.on_effect is not None:
            self.on_effect(effect.effect_key)
        return effect

    def search(self, run_id: str, query: str, budget: RunBudget) -> Effect:
        """The provider's results for `query` (recorded once per run and query). A paid
        search (one with `search_usage`) needs a model call left in `budget`, and is
        charged to it, also when read back after a restart (the interrupted stage's record
        was never stored, so nothing else counts it)."""
        provider = self.provider
        if provider is None:  # pragma: no cover - discover runs only with a provider
            raise RuntimeError("no search provider")
        key = self.key(run_id, "search", f"{provider.name}\n{query}")
        recorded = self.snapshots.effect(run_id, key)
        if recorded is None:
            recorded = self._recorded(self._search(run_id, key, query, budget))
        cost = recorded.detail.get("usage")
        if isinstance(cost, dict):
            budget.charge(1, int(cost.get("input_tokens", 0)) + int(cost.get("output_tokens", 0)))
        return recorded

    def _search(self, run_id: str, key: str, query: str, budget: RunBudget) -> Effect:
        provider = self.provider
        assert provider is not None
        paid = getattr(provider, "search_usage", None)
        record = self.snapshots.record_effect
        if paid is not None and budget.remaining()[0] < 1:
            reason = "The run's model calls are spent, so the web search was not made."
            return record(run_id, key, "search", "failed", {"query": query, "reason": reason})
        try:
            if paid is not None:
                found, cost = paid(query, self.limits.results_per_search)
            else:
                found, cost = provider.search(query, self.limits.results_per_search), None
        except SearchFailed as failed:
            return record(run_id, key, "search", "failed", {"query": query, "reason": str(failed)})
        detail: dict[str, Any] = {"query": query, "results": [r.__dict__ for r in found]}
        if cost is not None:
            detail["usage"] = cost.__dict__
        return record(run_id, key, "search", "done", detail)

    def read_url(self, run_id: str, url: str) -> tuple[Effect, Snapshot | None]:
        """Fetch and read `url` once per run: the recorded effect, and its snapshot."""
        key = self.key(run_id, "fetch", url)
        recorded = self.snapshots.effect(run_id, key)
        if recorded is None:
            recorded = self._recorded(self._fetch_and_read(run_id, key, url))
        snap = self.snapshots.get(recorded.snapshot_id) if recorded.snapshot_id else None
        return recorded, snap

    def _fetch_and_read(self, run_id: str, key: str, url: str) -> Effect:
        record = self.snapshots.record_effect
        try:
            page = self.fetch(url)
        except FetchRefused as refused:
            return record(run_id, key, "fetch", "refused", {"url": url, "reason": refused.reason})
        snapshot_id = snapshot_id_of(page.final_url, page.sha256)
        detail = {
            "url": url,
            "final_url": page.final_url,
            "redirects": len(page.hops) - 1,
        }
        try:
            document = self.read(page.body, page.content_type_header, snapshot_id, page.final_url)
            outcome, reason = "done", None
        except ReadRefused as refused:
            document, outcome, reason = None, "refused", str(refused)
        self.snapshots.put(
            Snapshot(
                snapshot_id=snapshot_id,
                url=url,
                final_url=page.final_url,
                origin="web",
                content_type=page.content_type,
                charset=page.charset,
                body_sha256=page.sha256,
                body=page.body,
                retrieved_at=page.retrieved_at,
                fetch={
                    "hops": [h.__dict__ for h in page.hops],
                    "content_encoding": page.content_encoding,
                    "wire_bytes": page.wire_bytes,
                },
                document=document,
            )
        )
        if reason is not None:
            detail["reason"] = reason
        return record(run_id, key, "fetch", outcome, detail, snapshot_id)  # type: ignore[arg-type]
