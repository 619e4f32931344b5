"""Exact dense search over the passage embeddings: a float32 matrix and a matrix product.

Up to a few hundred thousand passages an exact scan is fast enough, has perfect recall and
needs no approximate index (those pay off past ~1M rows, notes/stack-probe.md). Rows are
L2-normalised, so the dot product is the cosine.

The scan is memory-bound: at 200k x 384 float32 (307 MB) it measured 13-32 ms on this box
(2 vCPUs, ~10 GB/s per core; numpy/OpenBLAS, 1 or 2 threads), 11-18 ms for a bfloat16 copy.
Large stores therefore also keep an int8 copy (a quarter of the bytes, one scale per row)
and search in two steps that stay exact:

1. score every row in int8 (`torch._int_mm`, VNNI/AMX where the CPU has them; one block of
   rows per Python thread, so the scan uses every core although the desk runs torch
   single-threaded): 7-8 ms at 200k here;
2. bound each row's error, keep every row whose best possible score reaches the k-th best
   worst-case score, re-score those in float32 and return the top k of the exact scores.

Why this is exact. A row x is stored as x' = round(a x) (a = 127 / max|x_i|, so nothing is
clipped) and the query as q' = round(b q); the int8 score is x'.q' / (a b). With rounding
errors of at most 1/2 per component, |x.q - x'.q'/(ab)| <= |x|_1 / (2b) + |q|_1 / (2a) +
d / (4ab). Every row of the true top k has an upper bound at least the k-th largest lower
bound, so the re-scored set holds the true top k, ties included. Returned scores are always
the float32 ones. Where `torch._int_mm` is missing the search falls back to the float32 scan.

Both matrices are `.npy` files, memory-mapped on open: opening is instant and the page
cache keeps them warm. Each row has a day number (`days.py`); under time windows only rows
dated inside some window can be returned.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .days import DayRange, in_ranges

Matrix = npt.NDArray[np.float32]
Rows = npt.NDArray[np.intp]
# Under windows, when fewer than this fraction of rows qualify, score only those rows
# (a gather of few rows is cheaper than scanning everything and masking).
GATHER_FRACTION = 0.25
# Stores with at least this many rows get the int8 copy; below it a float32 scan is ~1 ms.
COARSE_MIN_ROWS = 32_768
SCAN_THREADS = max(1, min(os.cpu_count() or 1, 4))


@lru_cache(maxsize=1)
def _int_mm_available() -> bool:
    """True when torch can multiply int8 matrices on this CPU (a private but stable op)."""
    try:
        import torch

        a = torch.ones((32, 8), dtype=torch.int8)
        return bool(torch._int_mm(a, torch.ones((8, 1), dtype=torch.int8))[0, 0] == 8)
    except (ImportError, AttributeError, RuntimeError):
        return False


@lru_cache(maxsize=1)
def _scan_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="vector-scan")


def save_matrix(path: Path, matrix: Matrix) -> None:
    arr = np.ascontiguousarray(matrix, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError("The embedding matrix must be two-dimensional (rows x dim).")
    with open(path, "wb") as f:
        np.save(f, arr, allow_pickle=False)


def save_coarse(path: Path, matrix: Matrix) -> None:
    """Saves the int8 copy (one scale per row) and, beside it, each row's 1/scale and L1 norm."""
    arr = np.ascontiguousarray(matrix, dtype=np.float32)
    peak = np.abs(arr).max(axis=1)
    peak[peak == 0] = 1.0
    scale = (127.0 / peak).astype(np.float32)
    codes = np.clip(np.rint(arr * scale[:, None]), -127, 127).astype(np.int8)
    side = np.stack([1.0 / scale, np.abs(arr).sum(axis=1)], axis=1).astype(np.float32)
    with open(path, "wb") as f:
        np.save(f, codes, allow_pickle=False)
    with open(side_path(path), "wb") as f:
        np.save(f, side, allow_pickle=False)


def side_path(coarse_path: Path) -> Path:
    return coarse_path.with_name(coarse_path.name.replace(".npy", ".side.npy"))


def top_k(scores: npt.NDArray[np.float32], k: int) -> Rows:
    """Indices of the k highest scores, best first; equal scores in the result by lower index."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.intp)
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    # lexsort: last key is primary -> score descending, then row ascending.
    order = np.lexsort((part, -scores[part]))
    return part[order].astype(np.intp, copy=False)


class VectorStore:
    """Rows of unit vectors with a day number each; exact cosine top-k."""

    def __init__(
        self,
        matrix: Matrix,
        days: npt.NDArray[np.int32],
        coarse: tuple[npt.NDArray[np.int8], Matrix] | None = None,
    ) -> None:
        if matrix.ndim != 2 or days.shape != (matrix.shape[0],):
            raise ValueError("The vector matrix and the day array disagree on the row count.")
        if coarse is not None and (
            coarse[0].shape != matrix.shape or coarse[1].shape != (matrix.shape[0], 2)
        ):
            raise ValueError("The int8 copy and the vector matrix differ in shape.")
        self.matrix = matrix
        self.days = days
        self._coarse_codes = coarse[0] if coarse is not None else None
        self._coarse_side = coarse[1] if coarse is not None else None
        self._coarse: Any = None  # the torch int8 view, made on first use

    @classmethod
    def open(
        cls, matrix_path: Path, days: npt.NDArray[np.int32], coarse_path: Path | None = None
    ) -> VectorStore:
        matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
        if matrix.dtype != np.float32:
            raise ValueError(f"{matrix_path} does not hold float32 vectors.")
        coarse = None
        if coarse_path is not None and coarse_path.exists():
            # Copy-on-write mapping: torch wants a writable buffer; nothing ever writes.
            codes = np.load(coarse_path, mmap_mode="c", allow_pickle=False)
            side = np.load(side_path(coarse_path), allow_pickle=False)
            if codes.dtype != np.int8 or side.dtype != np.float32:
                raise ValueError(f"{coarse_path} does not hold int8 vectors.")
            coarse = (codes, side)
        return cls(matrix, days, coarse)

    @property
    def count(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def scores(self, query: Matrix, rows: Sequence[int] | Rows) -> npt.NDArray[np.float32]:
        """Exact cosine of the query with the given rows (in that order)."""
        idx = np.asarray(rows, dtype=np.intp)
        if idx.size == 0:
            return np.zeros(0, dtype=np.float32)
        return np.asarray(self.matrix[idx] @ self._query(query), dtype=np.float32)

    def search(
        self, query: Matrix, k: int, ranges: Sequence[DayRange] = ()
    ) -> list[tuple[int, float]]:
        """(row, cosine) best first, at most k; within `ranges` when any are given."""
        q = self._query(query)
        mask = in_ranges(self.days, ranges) if ranges else None
        if mask is not None:
            allowed = np.flatnonzero(mask)
            if allowed.size == 0 or k <= 0:
                return []
            if allowed.size < GATHER_FRACTION * self.count:
                return self._exact(q, k, allowed)
        if self._coarse_codes is not None and _int_mm_available():
            return self._two_step(q, k, mask)
        scores = np.asarray(self.matrix @ q, dtype=np.float32)
        if mask is not None:
            scores[~mask] = -np.inf
            k = min(k, int(mask.sum()))
        return [(int(r), float(scores[r])) for r in top_k(scores, k)]

    def _exact(self, q: Matrix, k: int, rows: Rows) -> list[tuple[int, float]]:
        sub = np.asarray(self.matrix[rows] @ q, dtype=np.float32)
        return [(int(rows[i]), float(sub[i])) for i in top_k(sub, k)]

    def _two_step(
        self, q: Matrix, k: int, mask: npt.NDArray[np.bool_] | None
    ) -> list[tuple[int, float]]:
        approx, bound = self._approximate(q)
        lower, upper = approx - bound, approx + bound
        if mask is not None:
            lower[~mask] = -np.inf
            upper[~mask] = -np.inf
        k = min(k, self.count if mask is None else int(mask.sum()))
        if k <= 0:
            return []
        kth = float(np.partition(lower, self.count - k)[self.count - k])
        # Every row of the true top k has an upper bound >= kth (module docstring).
        candidates = np.flatnonzero(upper >= kth)
        return self._exact(q, k, candidates)

    def _approximate(self, q: Matrix) -> tuple[Matrix, Matrix]:
        """int8 scores of every row and each score's error bound, one block per scan thread."""
        import torch

        assert self._coarse_codes is not None and self._coarse_side is not None
        if self._coarse is None:
            self._coarse = torch.from_numpy(self._coarse_codes)
        coarse = self._coarse
        peak = float(np.abs(q).max()) or 1.0
        b = 127.0 / peak
        q_codes = np.clip(np.rint(q * b), -127, 127).astype(np.int8).reshape(-1, 1)
        qt = torch.from_numpy(q_codes)
        step = -(-self.count // SCAN_THREADS)
        out = np.empty(self.count, dtype=np.int32)

        def scan(lo: int) -> None:
            with torch.inference_mode():
                out[lo : lo + step] = torch._int_mm(coarse[lo : lo + step], qt).numpy()[:, 0]

        # Python threads, not torch's intra-op pool: the desk runs torch single-threaded
        # for query embedding, and torch releases the GIL inside the product.
        list(_scan_pool().map(scan, range(0, self.count, step)))
        inv_a = self._coarse_side[:, 0]
        l1 = self._coarse_side[:, 1]
        approx = (out.astype(np.float32) * (inv_a / np.float32(b))).astype(np.float32)
        q_l1 = float(np.abs(q).sum())
        bound = l1 * np.float32(0.5 / b) + inv_a * np.float32(0.5 * q_l1 + 0.25 * q.size / b)
        return approx, (bound + np.float32(1e-5)).astype(np.float32)

    def _query(self, query: Matrix) -> Matrix:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"The query vector has {q.shape[0]} dimensions, the index {self.dim}.")
        return q
