"""Fusing the BM25 and dense rankings into one.

Two methods, chosen by `Settings.fusion`:

* `rrf` (default): reciprocal-rank fusion, score = sum over lists of w / (k + rank). It
  needs no calibration and is robust to the engines' very different score scales.
* `score`: a calibrated score, lexical_weight * norm(BM25) + dense_weight * cosine. BM25 is
  normalised per query by its maximum (`max`) or squashed by a logistic (`logistic`, an
  absolute scale that does not promote a weak best match to 1.0); the cosine is used as
  is. This score is comparable across queries, which a coverage floor needs.

Invariants (property-tested in tests/property/test_fusion.py):
* the output holds each key of the inputs exactly once, best first;
* ties are broken deterministically: higher score, then best single-list rank, then key;
* a key ranked first by every list is first;
* improving a key's rank (or score) in one list never lowers its fused rank.

A key missing from a list scores what it provably cannot beat: 0 for BM25 (it matched
nothing or too little) and, for the dense list, the lowest cosine listed (a top-k list
means every unlisted row scores at most that), unless the caller knows its exact cosine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

K = TypeVar("K", int, str)
LexicalNorm = Literal["max", "logistic"]
DEFAULT_RRF_K = 60
# Logistic on a raw BM25 score: 0.5 at LOGISTIC_CENTER; see docs/calibration.md.
LOGISTIC_CENTER = 8.0
LOGISTIC_SCALE = 2.0


@dataclass(frozen=True)
class Fused(Generic[K]):
    """One fused result: its key, fused score and 1-based rank in each input (None: absent)."""

    key: K
    score: float
    ranks: tuple[int | None, ...]

    @property
    def best_rank(self) -> int:
        present = [r for r in self.ranks if r is not None]
        return min(present) if present else 2**31


def _ranks(lists: Sequence[Sequence[K]]) -> dict[K, list[int | None]]:
    """1-based rank of each key in each list (its first occurrence counts)."""
    out: dict[K, list[int | None]] = {}
    for i, keys in enumerate(lists):
        for pos, key in enumerate(keys, start=1):
            slot = out.setdefault(key, [None] * len(lists))
            if slot[i] is None:
                slot[i] = pos
    return out


def _ordered(items: list[Fused[K]]) -> list[Fused[K]]:
    return sorted(items, key=lambda f: (-f.score, f.best_rank, f.key))


def rrf(
    rankings: Sequence[Sequence[K]],
    k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> list[Fused[K]]:
    """Reciprocal-rank fusion of best-first key lists."""
    if k < 0:
        raise ValueError("The RRF constant k must be non-negative.")
    w = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(w) != len(rankings) or any(x < 0 for x in w):
        raise ValueError("RRF needs one non-negative weight per ranking.")
    fused = [
        Fused(
            key,
            sum(wi / (k + r) for wi, r in zip(w, ranks, strict=True) if r is not None),
            tuple(ranks),
        )
        for key, ranks in _ranks(rankings).items()
    ]
    return _ordered(fused)


def normalise_lexical(
    scores: Sequence[float],
    method: LexicalNorm = "max",
    center: float = LOGISTIC_CENTER,
    scale: float = LOGISTIC_SCALE,
) -> list[float]:
    """BM25 scores mapped to [0, 1], order preserved (non-decreasing map)."""
    if method == "max":
        top = max(scores, default=0.0)
        return [max(s, 0.0) / top if top > 0 else 0.0 for s in scores]
    return [1.0 / (1.0 + math.exp(-(s - center) / scale)) for s in scores]


def score_fusion(
    lexical: Sequence[tuple[K, float]],
    dense: Sequence[tuple[K, float]],
    *,
    lexical_weight: float = 0.5,
    dense_weight: float = 0.5,
    lexical_norm: LexicalNorm = "max",
    dense_known: Mapping[K, float] | None = None,
) -> list[Fused[K]]:
    """Calibrated score fusion of (key, BM25) and (key, cosine) lists, each best first.

    `dense_known` gives exact cosines for keys absent from `dense` (e.g. computed for the
    BM25 candidates); without it such keys get the lowest listed cosine.
    """
    if lexical_weight < 0 or dense_weight < 0:
        raise ValueError("Fusion weights must be non-negative.")
    normalised = normalise_lexical([s for _, s in lexical], lexical_norm)
    lex_best: dict[K, float] = {}
    for (key, _), value in zip(lexical, normalised, strict=True):
        lex_best.setdefault(key, value)  # a key's first occurrence counts
    dense_best: dict[K, float] = {}
    for key, s in dense:
        dense_best.setdefault(key, s)
    floor = min(dense_best.values(), default=0.0)
    known = dense_known or {}
    ranks = _ranks([[k for k, _ in lexical], [k for k, _ in dense]])
    fused: list[Fused[K]] = []
    for key, r in ranks.items():
        cos = dense_best.get(key, min(known.get(key, floor), floor))
        score = lexical_weight * lex_best.get(key, 0.0) + dense_weight * cos
        fused.append(Fused(key, score, tuple(r)))
    return _ordered(fused)
