"""Canonical JSON depends on the value alone: neither key order nor a round trip changes it."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_desk.trust.canonical import canonical_json, sha256_hex

SETTINGS = settings(max_examples=200, deadline=None)

# Strings that UTF-8 can encode: lone surrogates are rejected by design (unit-tested).
strings = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | strings
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(strings, children, max_size=4)
    ),
    max_leaves=25,
)


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every object built in a different key order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


@SETTINGS
@given(json_values, st.randoms(use_true_random=False))
def test_key_order_does_not_matter(value: Any, rng: random.Random) -> None:
    assert canonical_json(shuffled(value, rng)) == canonical_json(value)


@SETTINGS
@given(json_values)
def test_round_trip_gives_the_same_bytes(value: Any) -> None:
    data = canonical_json(value)
    assert canonical_json(json.loads(data.decode("utf-8"))) == data
    assert sha256_hex(canonical_json(json.loads(data))) == sha256_hex(data)


@SETTINGS
@given(json_values)
def test_no_insignificant_white_space_and_sorted_keys(value: Any) -> None:
    data = canonical_json(value)
    compact = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert data == compact.encode("utf-8")
    assert json.loads(data) == value


@SETTINGS
@given(st.dictionaries(st.text(max_size=5), st.integers(), min_size=2, max_size=6))
def test_different_values_have_different_bytes(value: dict[str, int]) -> None:
    changed = dict(value)
    first = next(iter(changed))
    changed[first] += 1
    assert canonical_json(changed) != canonical_json(value)
