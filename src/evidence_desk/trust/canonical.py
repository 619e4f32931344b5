"""Canonical JSON: one byte string per JSON value, so that a hash can stand for a receipt.

Canonical form: object keys sorted, no insignificant white space (separators "," and ":"),
non-ASCII characters written as themselves and encoded as UTF-8, floats in Python's
shortest round-trip form. Only JSON values are accepted: objects with string keys,
arrays (lists or tuples), strings, integers, finite floats, booleans and null. NaN,
Infinity, non-string keys and strings that cannot be UTF-8 (lone surrogates) are rejected,
because they have no single portable spelling.

Parsing canonical bytes with `json.loads` and serialising again gives the same bytes.

`loads_strict` is how JSON that is about to be verified is read: it refuses an object with
the same key twice, which parsers resolve differently (see its docstring).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def _check(value: Any, path: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"Canonical JSON needs string keys; {path} has the key {key!r}.")
            _check(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check(item, f"{path}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"Canonical JSON cannot hold {value!r} (at {path}).")
    elif not isinstance(value, str | int | float | bool) and value is not None:
        raise ValueError(f"Canonical JSON cannot hold a {type(value).__name__} (at {path}).")


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 bytes of a JSON value; ValueError for anything not plain JSON."""
    _check(value, "$")
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("Canonical JSON cannot hold a string with a lone surrogate.") from exc


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


class DuplicateKeyError(ValueError):
    """A JSON text whose object, at some depth, has the same key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"The JSON has the key {key!r} twice in one object.")
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKeyError(key)
        obj[key] = value
    return obj


def loads_strict(text: str | bytes) -> Any:
    """`json.loads`, except that a key twice in one object raises `DuplicateKeyError`.

    JSON leaves duplicate keys undefined: Python keeps the last value, other parsers the
    first, so a signed document with a duplicate could say one thing to the verifier and
    another to its reader. Malformed JSON raises `json.JSONDecodeError` as usual.
    """
    return json.loads(text, object_pairs_hook=_unique_pairs)
