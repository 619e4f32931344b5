"""Content hashes and timestamps shared by loaders, the store, the cache and ingest.

A document's `content_sha256` and a passage's `text_sha256` are both SHA-256 of the text
encoded as UTF-8; an embedding is reused whenever a passage's text hash matches, in this
archive or in the shared cache.
"""

from __future__ import annotations

import datetime as dt
import hashlib


def sha256_text(text: str) -> str:
    """SHA-256 hex digest of `text` encoded as UTF-8 (strict: lone surrogates are an error)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utc_now() -> str:
    """The current UTC time as ISO 8601 with a `Z`, to the second."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
