"""The shared embedding cache: keys, persistence, disabled mode, and failing safe."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.store.embedding_cache import FILE_NAME, CacheWarning, EmbeddingCache

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def vec(seed: int, dim: int = 6) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


def test_round_trip_is_keyed_by_model_precision_and_hash(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many(MODEL, "bf16", {"h1": vec(1), "h2": vec(2)})
    found = cache.get_many(MODEL, "bf16", ["h1", "h2", "h3"])
    assert sorted(found) == ["h1", "h2"]
    assert np.array_equal(found["h1"], vec(1)) and found["h1"].dtype == np.float32
    assert cache.get_many(MODEL, "fp32", ["h1"]) == {}
    assert cache.get_many("other/model", "bf16", ["h1"]) == {}


def test_entries_persist_and_first_write_wins(tmp_path: Path) -> None:
    EmbeddingCache(tmp_path).put_many(MODEL, "fp32", {"h": vec(1)})
    reopened = EmbeddingCache(tmp_path)
    reopened.put_many(MODEL, "fp32", {"h": vec(2)})
    assert np.array_equal(reopened.get_many(MODEL, "fp32", ["h"])["h"], vec(1))
    assert (tmp_path / FILE_NAME).is_file()


def test_many_hashes_are_batched(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    vectors = {f"h{i}": vec(i, dim=3) for i in range(1234)}
    cache.put_many(MODEL, "fp32", vectors)
    found = cache.get_many(MODEL, "fp32", list(vectors))
    assert len(found) == 1234 and np.array_equal(found["h1000"], vectors["h1000"])


def test_disabled_without_a_directory() -> None:
    cache = EmbeddingCache(None)
    assert not cache.enabled
    cache.put_many(MODEL, "fp32", {"h": vec(1)})
    assert cache.get_many(MODEL, "fp32", ["h"]) == {}


def test_corrupt_file_warns_and_is_ignored(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_bytes(b"this is not a database" * 100)
    with pytest.warns(CacheWarning, match="is unusable .*continuing without it"):
        cache = EmbeddingCache(tmp_path)
    assert not cache.enabled
    cache.put_many(MODEL, "fp32", {"h": vec(1)})
    assert cache.get_many(MODEL, "fp32", ["h"]) == {}


def test_failure_during_use_warns_once_and_disables(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    assert cache._db is not None
    cache._db.execute("DROP TABLE vectors")  # the file changed under us
    with pytest.warns(CacheWarning):
        assert cache.get_many(MODEL, "fp32", ["h"]) == {}
    assert not cache.enabled
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning, and no error
        cache.put_many(MODEL, "fp32", {"h": vec(1)})


def test_unwritable_location_warns(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    with pytest.warns(CacheWarning):
        cache = EmbeddingCache(blocker / "cache")
    assert not cache.enabled
