"""Canonical JSON: one byte string per JSON value, so that a hash can stand for a receipt.

Canonical form: object keys sorted, no insignificant white space (separators "," and ":"),
non-ASCII characters written as themselves and encoded as UTF-8, floats in Python's
shortest round-trip form. Only JSON values are accepted: objects with string keys,
arrays (lists or tuples), strings, integers, finite floats, booleans and null. NaN,
Infinity, non-string keys and strings that cannot be UTF-8 (lone surrogates) are rejected,
because they have no single portable spelling.

Parsing canonical bytes with `json.loads` and serialising again gives the same bytes.
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
