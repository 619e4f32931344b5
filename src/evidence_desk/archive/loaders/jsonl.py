"""JSON Lines files (.jsonl): one document per line.

Each line is an object with a required `id` (a string, or an integer used as a string) and
`text` (a string); optional `title`, `date` (normalised to `YYYY-MM-DD`, an unrecognised value
kept in `meta["date_raw"]`) and `url` (absolute http(s)); every other string, number or list
of them goes into `meta` (`authors` becomes `meta["author"]`). A bad line is skipped as
`file:line` with the reason; blank lines are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..results import Loaded, LoadError, LoadResult, Skipped
from .common import (
    build_document,
    decode_text,
    first_line_title,
    flatten_meta,
    normalise_date,
    normalise_newlines,
)
from .versions import LOADER_VERSIONS

_KNOWN = ("id", "text", "title", "date", "url")


def _doc_id(record: dict[str, Any]) -> str:
    value = record.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise LoadError('needs an "id" that is a non-empty string')
    return value


def _optional_str(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise LoadError(f'"{key}" must be a string')
    return value.strip() or None


def record_to_document(record: object) -> Loaded:
    if not isinstance(record, dict):
        raise LoadError("is not a JSON object")
    doc_id = _doc_id(record)
    text = record.get("text")
    if not isinstance(text, str):
        raise LoadError(f'"{doc_id}" needs a "text" string')
    text = normalise_newlines(text)
    meta = flatten_meta(record, exclude=_KNOWN)
    raw_date = _optional_str(record, "date")
    date = normalise_date(raw_date)
    if raw_date and date is None:
        meta["date_raw"] = raw_date
    url = _optional_str(record, "url")
    if url and not url.lower().startswith(("http://", "https://")):
        meta["url_raw"] = url
        url = None
    title = _optional_str(record, "title") or first_line_title(text, doc_id)
    document = build_document(
        doc_id,
        text,
        title,
        date=date,
        url=url,
        meta=meta,
        loader_version=LOADER_VERSIONS["jsonl"],
    )
    return Loaded(document)


def iter_jsonl(path: Path) -> Iterator[LoadResult]:
    """Documents of a JSONL file; each bad line becomes a `Skipped` named `file:line`."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path}:{number}"
            if not raw.strip():
                continue
            try:
                loaded = record_to_document(json.loads(decode_text(raw).rstrip("\n")))
            except Exception as exc:  # any bad line is a reasoned skip, never a crash
                yield Skipped(where, _reason(exc))
                continue
            yield Loaded(loaded.document, source_path=where)


def _reason(exc: Exception) -> str:
    if isinstance(exc, LoadError):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "not valid JSON (nested too deeply)"
    return f"could not be read ({type(exc).__name__}: {exc})"
