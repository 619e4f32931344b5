"""Exact dense search: ordering, ties, date filters on both code paths, memory-mapped files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evidence_desk.retrieval import vectors as vectors_module
from evidence_desk.retrieval.days import MISSING_DAY
from evidence_desk.retrieval.vectors import VectorStore, save_coarse, save_matrix, top_k


def _unit_rows(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_top_k_is_best_first_with_ties_by_row() -> None:
    scores = np.array([0.1, 0.9, 0.5, 0.9, -1.0], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 2]
    assert top_k(scores, 10).tolist() == [1, 3, 2, 0, 4]
    assert top_k(scores, 0).tolist() == []


def test_search_matches_brute_force() -> None:
    m = _unit_rows(200)
    store = VectorStore(m, np.zeros(200, dtype=np.int32))
    q = m[17]
    got = store.search(q, 5)
    expected = np.argsort(-(m @ q), kind="stable")[:5]
    assert [r for r, _ in got] == expected.tolist()
    assert got[0][0] == 17 and got[0][1] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("gather_fraction", [0.0, 1.0])
def test_windows_filter_on_both_paths(
    gather_fraction: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors_module, "GATHER_FRACTION", gather_fraction)
    m = _unit_rows(100)
    days = np.arange(100, dtype=np.int32)
    days[::7] = MISSING_DAY
    store = VectorStore(m, days)
    got = store.search(m[3], 100, ranges=[(0, 30), (60, 69)])
    rows = [r for r, _ in got]
    allowed = [i for i in range(100) if (i <= 30 or 60 <= i <= 69) and i % 7]
    assert sorted(rows) == allowed
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert store.search(m[3], 5, ranges=[(500, 600)]) == []


def test_saved_matrix_opens_memory_mapped(tmp_path: Path) -> None:
    m = _unit_rows(50)
    save_matrix(tmp_path / "v.npy", m)
    store = VectorStore.open(tmp_path / "v.npy", np.zeros(50, dtype=np.int32))
    assert isinstance(store.matrix, np.memmap)
    assert store.search(m[9], 1)[0][0] == 9
    assert store.scores(m[9], [9, 10]).shape == (2,)


def test_wrong_shapes_are_clear_errors() -> None:
    store = VectorStore(_unit_rows(10), np.zeros(10, dtype=np.int32))
    with pytest.raises(ValueError, match="dimensions"):
        store.search(np.ones(3, dtype=np.float32), 2)
    with pytest.raises(ValueError, match="row count"):
        VectorStore(_unit_rows(10), np.zeros(9, dtype=np.int32))


def _two_step_store(tmp_path: Path, m: np.ndarray, days: np.ndarray) -> VectorStore:
    save_matrix(tmp_path / "v.npy", m)
    save_coarse(tmp_path / "v.i8.npy", m)
    return VectorStore.open(tmp_path / "v.npy", days, tmp_path / "v.i8.npy")


def _same(got: list[tuple[int, float]], expected: list[tuple[int, float]]) -> None:
    """Same rows in the same order; scores equal up to float32 summation order."""
    assert [r for r, _ in got] == [r for r, _ in expected]
    assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-6)


def test_int8_two_step_search_is_exact(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    m = _unit_rows(3000, dim=32, seed=1)
    m[100] = m[200]  # an exact tie
    days = rng.integers(0, 1000, 3000).astype(np.int32)
    two_step = _two_step_store(tmp_path, m, days)
    exact = VectorStore(m, days)
    for i in range(40):
        q = m[i * 50] + 0.3 * rng.standard_normal(32).astype(np.float32)
        q /= np.linalg.norm(q)
        _same(two_step.search(q, 10), exact.search(q, 10))
        window = [(100, 900)]  # most rows qualify: the masked two-step path
        _same(two_step.search(q, 10, window), exact.search(q, 10, window))
    tie = two_step.search(m[100], 2)
    assert [r for r, _ in tie] == [100, 200]


def test_int8_error_stays_within_the_bound(tmp_path: Path) -> None:
    m = _unit_rows(2000, dim=384, seed=4)
    store = _two_step_store(tmp_path, m, np.zeros(2000, dtype=np.int32))
    for i in range(5):
        approx, bound = store._approximate(m[i])
        err = np.abs(approx - m @ m[i])
        assert bool(np.all(err <= bound))
        assert float(bound.max()) < 0.1  # tight enough to prune most rows
