"""Engines by name, and the embedding cache the offline answerer and auditor share."""

from __future__ import annotations

import numpy as np
import pytest
from agents_helpers import BagOfWordsEmbedder

from evidence_desk.agents.offline import (
    CachedEmbedder,
    OfflineAnswerer,
    OfflineAuditor,
    OfflinePlanner,
)
from evidence_desk.agents.registry import (
    UnknownEngineError,
    resolve_answerer,
    resolve_auditor,
    resolve_planner,
    shared_cache,
)


def test_offline_engines_resolve_by_name() -> None:
    embedder = BagOfWordsEmbedder()
    assert isinstance(resolve_planner("offline"), OfflinePlanner)
    assert isinstance(resolve_answerer("offline", embedder), OfflineAnswerer)
    assert isinstance(resolve_auditor(" Offline ", embedder), OfflineAuditor)
    for engine in (resolve_planner("offline"), resolve_answerer("offline", embedder)):
        assert engine.engine_id == "offline"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("openai:gpt-4.1-mini", "needs a model provider"),
        ("anthropic:claude", "needs a model provider"),
        ("magic", "Unknown planner engine 'magic'"),
    ],
)
def test_unknown_engines_fail_with_one_clear_sentence(name: str, message: str) -> None:
    with pytest.raises(UnknownEngineError, match=message) as info:
        resolve_planner(name)
    text = str(info.value)
    assert text.endswith(".") and ". " not in text
    assert "'offline'" in text


def test_answerer_and_auditor_share_one_cache_per_embedder() -> None:
    embedder = BagOfWordsEmbedder()
    first, second = shared_cache(embedder), shared_cache(embedder)
    assert first is second
    assert shared_cache(first) is first
    assert shared_cache(BagOfWordsEmbedder()) is not first


def test_cache_embeds_each_text_once_and_keeps_order() -> None:
    inner = BagOfWordsEmbedder()
    cache = CachedEmbedder(inner, capacity=3)
    a = cache.embed(["navy ships", "army", "navy ships"])
    assert inner.texts == 2
    b = cache.embed(["army", "navy ships"])
    assert inner.texts == 2
    assert np.allclose(a[1], b[0]) and np.allclose(a[0], b[1])
    assert np.allclose(cache.embed_query("army"), a[1])
    cache.embed(["tariff", "gold", "silver"])
    assert len(cache) == 3
    cache.embed(["army"])
    assert inner.texts == 6  # "army" was evicted and embedded again
