"""What reading one file (or one JSONL line) produces: a loaded document or a reasoned skip.

Loaders never raise for bad input: every failure becomes a `Skipped` with one sentence a
person can act on, so a single broken file never stops an ingest and never leaves a
half-stored document behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from ..types import Document


@dataclass(frozen=True)
class Loaded:
    """A complete document, ready to chunk and store.

    `source_path` says where it came from (a file path, `file.jsonl:12`, or a sample file).
    """

    document: Document
    source_path: str | None = None


@dataclass(frozen=True)
class Skipped:
    """Something that was not loaded, and why (`path` may be `file.jsonl:12` or a doc id)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


LoadResult = Loaded | Skipped


class LoadError(Exception):
    """A file cannot become a document; the message is the reason shown to the user."""


def published_by(results: Iterable[LoadResult], publisher: str) -> Iterator[LoadResult]:
    """Each result, a loaded document with `publisher` as its `publisher` metadata where its
    own metadata names none: who the operator says published the documents of one ingest
    (`ingest --publisher Digital.gov`), a name an attribution frame may use."""
    for result in results:
        if isinstance(result, Loaded) and not result.document.meta.get("publisher"):
            meta = {**result.document.meta, "publisher": publisher}
            result = replace(result, document=result.document.model_copy(update={"meta": meta}))
        yield result
