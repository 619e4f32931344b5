"""Ingest: loaded documents -> passages -> vectors -> the archive store.

For each loaded document: same content hash as stored -> unchanged (only a metadata change,
such as an edited title, is written); otherwise it is chunked, and each passage's vector is
looked up by text hash, first in the archive, then in the shared embedding cache. Passages
still without a vector are embedded in groups that span documents (`group_size` texts per
model call, so the model sees big, length-sorted batches), then each document of the group is
stored in its own transaction and the new vectors go into the cache.

Invariants: a document is stored whole or not at all; a text is embedded at most once per
ingest; for stored documents, `passages_embedded + passages_reused` equals their passages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..retrieval.embedder import Embedder, Vectors
from ..store.embedding_cache import EmbeddingCache
from ..store.sqlite import ArchiveStore
from ..types import Document, Passage
from .chunking import chunk
from .hashing import sha256_text
from .results import Loaded, LoadResult, Skipped

GROUP_SIZE = 2000
MODEL_KEY = "embedding_model"

ProgressEvent = Literal["loaded", "skipped", "embedded", "stored"]


class IngestError(RuntimeError):
    """Ingest cannot proceed (e.g. the archive was embedded with another model)."""


@dataclass
class IngestSummary:
    """What one ingest did; `skipped` holds (where, reason): a path, `file:line` or doc id."""

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    updated: int = 0  # same text, changed title/date/url/meta: only the metadata was written
    skipped: list[tuple[str, str]] = field(default_factory=list)
    passages_embedded: int = 0
    passages_reused: int = 0

    @property
    def documents(self) -> int:
        """Documents loaded and accounted for (skips excluded)."""
        return self.added + self.replaced + self.unchanged + self.updated


@dataclass(frozen=True)
class IngestProgress:
    """A snapshot for a progress bar, sent after each event."""

    event: ProgressEvent
    item: str
    documents_loaded: int
    documents_skipped: int
    documents_stored: int
    passages_queued: int
    passages_embedded: int


@dataclass
class _Job:
    doc: Document
    source_path: str | None
    passages: list[Passage]
    hashes: list[str]


class _Ingest:
    """The state of one ingest call; see the module docstring for the flow."""

    def __init__(
        self,
        store: ArchiveStore,
        embedder: Embedder,
        cache: EmbeddingCache | None,
        on_progress: Callable[[IngestProgress], None] | None,
        sizes: tuple[int, int, int],
    ) -> None:
        self.store, self.embedder, self.cache = store, embedder, cache
        self.on_progress = on_progress
        self.target_words, self.max_words, self.group_size = sizes
        self.precision = str(getattr(embedder, "precision", "fp32"))
        self.summary = IngestSummary()
        self.seen: set[str] = set()
        self.jobs: list[_Job] = []
        self.known: dict[str, Vectors] = {}  # text hash -> vector, for the current group
        self.pending: dict[str, str] = {}  # text hash -> text still to embed
        self.loaded = self.stored = self.queued = self.embedded = 0

    def emit(self, event: ProgressEvent, item: str) -> None:
        if self.on_progress is not None:
            skipped = len(self.summary.skipped)
            self.on_progress(
                IngestProgress(
                    event, item, self.loaded, skipped, self.stored, self.queued, self.embedded
                )
            )

    def skip(self, where: str, reason: str) -> None:
        self.summary.skipped.append((where, reason))
        self.emit("skipped", where)

    def take(self, result: LoadResult) -> None:
        if isinstance(result, Skipped):
            self.skip(result.path, result.reason)
            return
        doc = result.document
        if doc.doc_id in self.seen:
            where = result.source_path or doc.doc_id
            self.skip(where, f"duplicate document id {doc.doc_id!r} in this ingest")
            return
        self.seen.add(doc.doc_id)
        self.loaded += 1
        self.emit("loaded", doc.doc_id)
        if self.store.document_sha(doc.doc_id) == doc.content_sha256:
            if self.store.update_metadata(doc, source_path=result.source_path):
                self.summary.updated += 1
            else:
                self.summary.unchanged += 1
            return
        self.queue(doc, result.source_path)

    def queue(self, doc: Document, source_path: str | None) -> None:
        passages = chunk(doc, self.target_words, self.max_words)
        if self.pending and len(self.pending) + len(passages) > self.group_size:
            self.flush()  # keep model calls at most group_size texts (unless one doc is bigger)
        hashes = [sha256_text(p.text) for p in passages]
        fresh = [h for h in dict.fromkeys(hashes) if h not in self.known and h not in self.pending]
        self.known.update(self.store.vectors_for_text_hashes(fresh))
        missing = [h for h in fresh if h not in self.known]
        if self.cache is not None and missing:
            cached = self.cache.get_many(self.embedder.model_id, self.precision, missing)
            self.known.update({h: v for h, v in cached.items() if v.shape == (self.embedder.dim,)})
        to_embed = {
            h: p.text
            for h, p in zip(hashes, passages, strict=True)
            if h not in self.known and h not in self.pending
        }
        self.pending.update(to_embed)
        self.queued += len(to_embed)
        self.summary.passages_reused += len(passages) - len(to_embed)
        self.jobs.append(_Job(doc, source_path, passages, hashes))
        if len(self.pending) >= self.group_size or len(self.jobs) >= self.group_size:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.embed_pending()
        for job in self.jobs:
            vectors = np.zeros((len(job.hashes), self.embedder.dim), dtype=np.float32)
            for row, digest in enumerate(job.hashes):
                vectors[row] = self.known[digest]
            outcome = self.store.upsert(job.doc, job.passages, vectors, source_path=job.source_path)
            if outcome == "added":
                self.summary.added += 1
            elif outcome == "replaced":
                self.summary.replaced += 1
            else:
                self.summary.unchanged += 1
            self.stored += 1
            self.emit("stored", job.doc.doc_id)
        self.jobs.clear()
        self.known.clear()

    def embed_pending(self) -> None:
        hashes, texts = list(self.pending), list(self.pending.values())

        def progress(n: int) -> None:
            self.embedded += n
            self.emit("embedded", f"{self.embedded}/{self.queued}")

        vectors = np.asarray(self.embedder.embed(texts, progress=progress), dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.dim):
            raise IngestError(
                f"The embedder returned shape {vectors.shape} for {len(texts)} texts "
                f"(expected dimension {self.embedder.dim})."
            )
        new = dict(zip(hashes, vectors, strict=True))
        self.known.update(new)
        self.summary.passages_embedded += len(texts)
        self.pending.clear()
        if self.cache is not None:
            self.cache.put_many(self.embedder.model_id, self.precision, new)


def _check_model(store: ArchiveStore, embedder: Embedder) -> None:
    """Vectors of different models cannot share an index: refuse to mix them."""
    recorded = store.get_meta(MODEL_KEY)
    if recorded is None:
        store.set_meta(MODEL_KEY, embedder.model_id)
    elif recorded != embedder.model_id:
        raise IngestError(
            f"This archive was embedded with {recorded}, not {embedder.model_id}; "
            "ingest with the same model or use a new data directory."
        )


def ingest(
    results: Iterable[LoadResult],
    store: ArchiveStore,
    embedder: Embedder,
    *,
    target_words: int,
    max_words: int,
    cache: EmbeddingCache | None = None,
    on_progress: Callable[[IngestProgress], None] | None = None,
    group_size: int = GROUP_SIZE,
) -> IngestSummary:
    """Load `results` into `store`; returns what was added, replaced, unchanged and skipped."""
    if not 1 <= target_words <= max_words:
        raise ValueError("Passage sizes need 1 <= target_words <= max_words.")
    _check_model(store, embedder)
    run = _Ingest(store, embedder, cache, on_progress, (target_words, max_words, group_size))
    for result in results:
        run.take(result)
    run.flush()
    return run.summary


__all__ = ["IngestError", "IngestProgress", "IngestSummary", "Loaded", "Skipped", "ingest"]
