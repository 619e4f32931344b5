"""Helpers for archive tests: fixture paths, a deterministic embedder, a PDF writer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.testing import embedder as testing_embedder
from evidence_desk.testing.pdfs import pdf_bytes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "archive"
SHARED_DATA = Path("/work/shared/data")


class HashingEmbedder(testing_embedder.HashingEmbedder):
    """The package's `HashingEmbedder` in 64 dimensions, under a model id of its own, that
    counts every text it embeds."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.model_id = "test/hashing-bow"
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        self.calls.append(len(texts))
        return super().embed(texts, progress)

    @property
    def embedded(self) -> int:
        return sum(self.calls)


def write_pdf(
    path: Path,
    pages: Sequence[str],
    *,
    title: str | None = None,
    author: str | None = None,
    roman_front_pages: int = 0,
    password: str | None = None,
) -> Path:
    """A small PDF whose pages carry `pages` as real text (`testing/pdfs.py`), at `path`."""
    path.write_bytes(
        pdf_bytes(
            pages,
            title=title,
            author=author,
            roman_front_pages=roman_front_pages,
            password=password,
        )
    )
    return path
