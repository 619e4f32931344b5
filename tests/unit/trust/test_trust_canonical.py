"""Canonical JSON and its hash."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from evidence_desk.trust.canonical import (
    DuplicateKeyError,
    canonical_json,
    loads_strict,
    sha256_hex,
)
from evidence_desk.types import Decision


def test_sorted_keys_compact_utf8() -> None:
    value = {"b": [1, 2.5, None, True], "a": {"ä": "é “q”", "z": False}}
    assert canonical_json(value) == '{"a":{"z":false,"ä":"é “q”"},"b":[1,2.5,null,true]}'.encode()


def test_tuples_are_arrays_and_str_enums_are_strings() -> None:
    assert (
        canonical_json({"d": Decision.AUTO_CLEARED, "t": (1, 2)})
        == b'{"d":"AUTO_CLEARED","t":[1,2]}'
    )


def test_round_trip_gives_the_same_bytes() -> None:
    data = canonical_json({"x": [1e16, -0.0, 0.1, "\u2028"], "y": {"k": 10**30}})
    assert canonical_json(json.loads(data)) == data


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"a": float("nan")}, "nan"),
        ([float("inf")], "inf"),
        ({1: "a"}, "string keys"),
        ({"a": {1, 2}}, "set"),
        ({"a": b"x"}, "bytes"),
        ("\ud800", "lone surrogate"),
    ],
)
def test_rejects_what_json_cannot_say_one_way(value: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        canonical_json(value)


def test_sha256_hex() -> None:
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert len(sha256_hex(b"")) == 64


def test_loads_strict_reads_plain_json() -> None:
    text = '{"a": [{"b": 1}, {"b": 2}], "c": {"d": "\u2028"}}'
    assert loads_strict(text) == json.loads(text)
    assert loads_strict(b"[1, 2]") == [1, 2]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"decision": "HELD_FOR_REVIEW", "decision": "AUTO_CLEARED"}', "decision"),
        ('{"claims": [{"kept": false, "x": 1, "kept": true}]}', "kept"),
        ('{"integrity": {"a": {"sig": "x", "sig": "x"}}}', "sig"),
    ],
)
def test_loads_strict_refuses_a_key_twice_at_any_depth(text: str, key: str) -> None:
    with pytest.raises(DuplicateKeyError) as caught:
        loads_strict(text)
    assert caught.value.key == key
    assert str(caught.value) == f"The JSON has the key {key!r} twice in one object."


def test_loads_strict_allows_the_same_key_in_different_objects() -> None:
    assert loads_strict('{"a": {"k": 1}, "b": {"k": 2}, "k": 3}') == {
        "a": {"k": 1},
        "b": {"k": 2},
        "k": 3,
    }


def test_loads_strict_raises_json_errors_as_json_does() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_strict("{oops")
