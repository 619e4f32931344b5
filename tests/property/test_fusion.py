"""Fusion ordering invariants, for reciprocal-rank fusion and the calibrated score fusion."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_desk.retrieval.fusion import Fused, normalise_lexical, rrf, score_fusion

Scored = list[tuple[int, float]]
keys = st.integers(min_value=0, max_value=30)
ranking = st.lists(keys, unique=True, max_size=15)
score = st.floats(min_value=0.0, max_value=40.0, allow_nan=False)
cosine = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)


def scored(values: st.SearchStrategy[float]) -> st.SearchStrategy[Scored]:
    """A best-first (key, score) list with unique keys."""
    return st.lists(st.tuples(keys, values), unique_by=lambda kv: kv[0], max_size=15).map(
        lambda kvs: sorted(kvs, key=lambda kv: -kv[1])
    )


Fuse = Callable[[Scored, Scored], list[Fused[int]]]


def _score_max(lex: Scored, dense: Scored) -> list[Fused[int]]:
    return score_fusion(lex, dense)


def _score_logistic(lex: Scored, dense: Scored) -> list[Fused[int]]:
    return score_fusion(lex, dense, lexical_weight=0.3, dense_weight=0.7, lexical_norm="logistic")


def _rrf(lex: Scored, dense: Scored) -> list[Fused[int]]:
    return rrf([[k for k, _ in lex], [k for k, _ in dense]], k=60)


FUSERS: list[Fuse] = [_rrf, _score_max, _score_logistic]
fuser = st.sampled_from(FUSERS)


def _position(fused: list[Fused[int]], key: int) -> int:
    return [f.key for f in fused].index(key)


@given(fuser, scored(score), scored(cosine))
def test_sorted_unique_union_and_deterministic(fuse: Fuse, lex: Scored, dense: Scored) -> None:
    out = fuse(lex, dense)
    out_keys = [f.key for f in out]
    assert len(out_keys) == len(set(out_keys))
    assert set(out_keys) == {k for k, _ in lex} | {k for k, _ in dense}
    assert [f.score for f in out] == sorted((f.score for f in out), reverse=True)
    assert fuse(list(lex), list(dense)) == out


@given(fuser, scored(score), scored(cosine))
def test_ties_break_by_best_rank_then_key(fuse: Fuse, lex: Scored, dense: Scored) -> None:
    out = fuse(lex, dense)
    for a, b in itertools.pairwise(out):
        if a.score == b.score:
            assert (a.best_rank, a.key) < (b.best_rank, b.key)


@given(fuser, scored(score), scored(cosine), keys)
def test_first_in_both_lists_is_first(fuse: Fuse, lex: Scored, dense: Scored, top: int) -> None:
    lex = [(top, (lex[0][1] if lex else 1.0) + 1.0)] + [kv for kv in lex if kv[0] != top]
    # The top cosine may be negative: a key missing from the dense list must not beat it.
    dense = [(top, dense[0][1] if dense else 0.5)] + [kv for kv in dense if kv[0] != top]
    assert fuse(lex, dense)[0].key == top


@settings(max_examples=300)
@given(fuser, scored(score), scored(cosine), st.data())
def test_improving_a_rank_never_lowers_the_fused_rank(
    fuse: Fuse, lex: Scored, dense: Scored, data: st.DataObject
) -> None:
    which = data.draw(st.sampled_from(["lexical", "dense"]))
    ranked = lex if which == "lexical" else dense
    if not ranked:
        return
    i = data.draw(st.integers(0, len(ranked) - 1))
    j = data.draw(st.integers(0, i))
    key = ranked[i][0]
    # Move the key from position i up to j. Scores stay with positions, so the key takes
    # the score at j and everyone in between shifts down one place (and score).
    order = [k for k, _ in ranked if k != key]
    order.insert(j, key)
    improved = [(k, s) for k, (_, s) in zip(order, ranked, strict=True)]
    before = fuse(lex, dense)
    after = fuse(improved, dense) if which == "lexical" else fuse(lex, improved)
    assert _position(after, key) <= _position(before, key)


@given(st.lists(score, max_size=20), st.sampled_from(["max", "logistic"]))
def test_lexical_normalisation_keeps_order_within_unit_interval(
    values: list[float], method: str
) -> None:
    normed = normalise_lexical(values, method)  # type: ignore[arg-type]
    assert all(0.0 <= v <= 1.0 for v in normed)
    for a, b, na, nb in zip(values, values[1:], normed, normed[1:], strict=False):
        if a <= b:
            assert na <= nb
