"""Agent engines by name: the one place a settings string becomes a planner, answerer or auditor.

`offline` is the built-in engine. Model providers ("openai:gpt-4.1-mini",
"anthropic:...", an OpenAI-compatible server) will resolve here too, with lazy imports; a
name this build cannot serve fails with one sentence that says what to use instead.

The offline answerer and auditor resolved with the same embedder share one in-memory
embedding cache, so a sentence the answerer embedded is free for the auditor.
"""

from __future__ import annotations

import threading
import weakref

from ..retrieval.embedder import Embedder
from .base import Answerer, Auditor, Planner

OFFLINE = "offline"
_caches: weakref.WeakKeyDictionary[object, object] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class UnknownEngineError(ValueError):
    """An engine name in settings that this build cannot serve."""


def _check(name: str, role: str) -> None:
    if name.strip().lower() == OFFLINE:
        return
    provider = name.split(":", 1)[0].strip().lower()
    if provider in ("openai", "anthropic", "ollama", "vllm", "openai-compatible"):
        raise UnknownEngineError(
            f"The {role} engine '{name}' needs a model provider, which this build does not "
            f"include yet; set the {role} to 'offline'."
        )
    raise UnknownEngineError(f"Unknown {role} engine '{name}'; the available engine is 'offline'.")


def shared_cache(embedder: Embedder) -> Embedder:
    """One `CachedEmbedder` per embedder object (the cache itself is returned unchanged)."""
    from .offline.embedcache import CachedEmbedder

    if isinstance(embedder, CachedEmbedder):
        return embedder
    with _lock:
        cached = _caches.get(embedder)
        if cached is None:
            cached = CachedEmbedder(embedder)
            _caches[embedder] = cached
    assert isinstance(cached, CachedEmbedder)
    return cached


def resolve_planner(name: str) -> Planner:
    """The planner engine called `name` (settings.planner)."""
    _check(name, "planner")
    from .offline.planner import OfflinePlanner

    return OfflinePlanner()


def resolve_answerer(name: str, embedder: Embedder) -> Answerer:
    """The answerer engine called `name` (settings.answerer); `embedder` scores sentences."""
    _check(name, "answerer")
    from .offline.answerer import OfflineAnswerer

    return OfflineAnswerer(shared_cache(embedder))


def resolve_auditor(name: str, embedder: Embedder) -> Auditor:
    """The auditor engine called `name` (settings.auditor), with the packaged calibration."""
    _check(name, "auditor")
    from .offline.auditor import OfflineAuditor

    return OfflineAuditor(shared_cache(embedder))
