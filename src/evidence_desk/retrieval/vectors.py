"""Exact dense search over the passage embeddings: a float32 matrix and a matrix product.

Up to a few hundred thousand passages an exact scan is fast enough, has perfect recall and
needs no approximate index (those pay off past ~1M rows, notes/stack-probe.md). Rows are
L2-normalised, so the dot product is the cosine.

The scan is memory-bound: at 200k x 384 float32 (307 MB) it measured 13-32 ms on this box
(2 vCPUs, ~10 GB/s per core; numpy/OpenBLAS, 1 or 2 threads). Large stores therefore also
keep a bfloat16 copy (half the bytes) and search in two steps that stay exact:

1. score every row in bf16 (torch, one block of rows per Python thread, so the scan uses
   every core even though the desk runs torch single-threaded): 11-18 ms at 200k here;
2. re-score in float32 every row whose bf16 score is within `2 * COARSE_EPS` of the k-th
   best bf16 score, and return the top k of those exact scores.

Why this is exact: with unit vectors, a bf16 score is within COARSE_EPS of the float32
score (inputs rounded to 8 significant bits: 2u + u^2 with u = 2^-8; the bf16 result
rounded once more: u; float32 accumulation adds ~1e-5; measured worst case 0.0024 on real
embeddings). The k rows with the best bf16 scores all score at least a_k - EPS exactly, so
the true k-th score is at least that, and any row reaching it has a bf16 score of at least
a_k - 2 * EPS: the re-scored set holds the true top k, ties included. Returned scores are
always the float32 ones.

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
# Stores with at least this many rows get the bf16 copy; below it a float32 scan is ~1 ms.
COARSE_MIN_ROWS = 32_768
COARSE_EPS = 0.0125
SCAN_THREADS = max(1, min(os.cpu_count() or 1, 4))


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
    """Saves the matrix rounded to bfloat16, as raw 16-bit patterns (numpy has no bf16)."""
    import torch

    bits = torch.from_numpy(np.ascontiguousarray(matrix, dtype=np.float32))
    bits = bits.to(torch.bfloat16).view(torch.int16)
    with open(path, "wb") as f:
        np.save(f, bits.numpy().view(np.uint16), allow_pickle=False)


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
        self, matrix: Matrix, days: npt.NDArray[np.int32],
        coarse: npt.NDArray[np.uint16] | None = None,
    ) -> None:
        if matrix.ndim != 2 or days.shape != (matrix.shape[0],):
            raise ValueError("The vector matrix and the day array disagree on the row count.")
        if coarse is not None and coarse.shape != matrix.shape:
            raise ValueError("The bf16 copy and the vector matrix differ in shape.")
        self.matrix = matrix
        self.days = days
        self._coarse_bits = coarse
        self._coarse: Any = None  # the torch bf16 view, made on first use

    @classmethod
    def open(cls, matrix_path: Path, days: npt.NDArray[np.int32],
             coarse_path: Path | None = None) -> VectorStore:
        matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
        if matrix.dtype != np.float32:
            raise ValueError(f"{matrix_path} does not hold float32 vectors.")
        coarse = None
        if coarse_path is not None and coarse_path.exists():
            # Copy-on-write mapping: torch wants a writable buffer; nothing ever writes.
            coarse = np.load(coarse_path, mmap_mode="c", allow_pickle=False)
            if coarse.dtype != np.uint16:
                raise ValueError(f"{coarse_path} does not hold bf16 vectors.")
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
        if self._coarse_bits is not None:
            return self._two_step(q, k, mask)
        scores = np.asarray(self.matrix @ q, dtype=np.float32)
        if mask is not None:
            scores[~mask] = -np.inf
            k = min(k, int(mask.sum()))
        return [(int(r), float(scores[r])) for r in top_k(scores, k)]

    def _exact(self, q: Matrix, k: int, rows: Rows) -> list[tuple[int, float]]:
        sub = np.asarray(self.matrix[rows] @ q, dtype=np.float32)
        return [(int(rows[i]), float(sub[i])) for i in top_k(sub, k)]

    def _two_step(self, q: Matrix, k: int, mask: npt.NDArray[np.bool_] | None
                  ) -> list[tuple[int, float]]:
        approx = self._approximate(q)
        if mask is not None:
            approx[~mask] = -np.inf
        k = min(k, self.count if mask is None else int(mask.sum()))
        if k <= 0:
            return []
        kth = float(np.partition(approx, self.count - k)[self.count - k])
        # Every row of the true top k has a bf16 score >= kth - 2 * EPS (module docstring).
        candidates = np.flatnonzero(approx >= kth - 2 * COARSE_EPS)
        return self._exact(q, k, candidates)

    def _approximate(self, q: Matrix) -> npt.NDArray[np.float32]:
        """bf16 scores of every row, one block of rows per scan thread."""
        import torch

        if self._coarse is None:
            assert self._coarse_bits is not None, "two-step search without a bf16 copy"
            bits = torch.from_numpy(self._coarse_bits.view(np.int16))
            self._coarse = bits.view(torch.bfloat16)
        coarse = self._coarse
        step = -(-self.count // SCAN_THREADS)
        qb = torch.from_numpy(np.ascontiguousarray(q)).to(torch.bfloat16)
        out = torch.empty(self.count, dtype=torch.bfloat16)

        def scan(lo: int) -> None:
            with torch.inference_mode():
                torch.mv(coarse[lo : lo + step], qb, out=out[lo : lo + step])

        # Python threads, not torch's intra-op pool: the desk runs torch single-threaded
        # for query embedding, and torch releases the GIL inside mv.
        list(_scan_pool().map(scan, range(0, self.count, step)))
        result: npt.NDArray[np.float32] = out.float().numpy()
        return result

    def _query(self, query: Matrix) -> Matrix:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"The query vector has {q.shape[0]} dimensions, the index {self.dim}.")
        return q
