"""Ingest: loaded documents -> passages -> vectors -> the archive store.

Each loaded document is compared with its stored state (`Store.document_state`):

* not stored -> added;
* stored by another loader version (`Document.loader_version`; an empty stored version is a
  document from before versions) -> re-extracted: the freshly loaded text replaces the
  stored one, or, when the text came out the same, only its metadata and version are written;
* another text from the same loader version (the file changed) -> replaced;
* the same text, chunked with other passage sizes than `target_words/max_words` (or stored
  before the chunking was recorded) -> re-chunked;
* otherwise unchanged (only a metadata change, such as an edited title, is written).

A document to (re)store is chunked, and each passage's vector is looked up by text hash,
first in the archive, then in the shared embedding cache. Passages still without a vector are
embedded in groups that span documents (`group_size` texts per model call, so the model sees
big, length-sorted batches), then each document of the group is stored in its own
transaction (a replaced text is kept for receipts, `store/versions.py`) and the new vectors
go into the cache.

Invariants: a document is stored whole or not at all; a text is embedded at most once per
ingest; for stored documents, `passages_embedded + passages_reused` equals their passages;
every loaded document is counted in exactly one of the summary's outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..errors import DeskError
from ..hashing import sha256_text
from ..retrieval.embedder import Embedder, Vectors
from ..retrieval.embedders import EmbedderMismatch, check_embedder, vector_tag
from ..store.embedding_cache import EmbeddingCache
from ..store.protocol import Store
from ..types import Document, Passage
from .chunking import chunk, chunking_key
from .results import Loaded, LoadResult, Skipped

GROUP_SIZE = 2000

ProgressEvent = Literal["loaded", "skipped", "embedded", "stored"]


class IngestError(DeskError, RuntimeError):
    """Ingest cannot proceed (e.g. the archive was embedded with another model)."""


Outcome = Literal["added", "reextracted", "replaced", "rechunked", "updated", "unchanged"]


@dataclass
class IngestSummary:
    """What one ingest did; `skipped` holds (where, reason): a path, `file:line` or doc id."""

    added: int = 0
    replaced: int = 0  # the file's text changed (same loader version)
    unchanged: int = 0
    updated: int = 0  # same text, changed title/date/url/meta: only the metadata was written
    reextracted: int = 0  # stored by another loader version: read again, text replaced if new
    rechunked: int = 0  # same text, stored with other passage sizes: passages cut again
    skipped: list[tuple[str, str]] = field(default_factory=list)
    passages_embedded: int = 0
    passages_reused: int = 0

    @property
    def documents(self) -> int:
        """Documents loaded and accounted for (skips excluded), each in one outcome."""
        return (
            self.added
            + self.replaced
            + self.unchanged
            + self.updated
            + self.reextracted
            + self.rechunked
        )

    def count(self, outcome: Outcome) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)


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
    outcome: Outcome  # what storing it means; "unchanged" if the store already holds it


class _Ingest:
    """The state of one ingest call; see the module docstring for the flow."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        cache: EmbeddingCache | None,
        on_progress: Callable[[IngestProgress], None] | None,
        sizes: tuple[int, int, int],
    ) -> None:
        self.store, self.embedder, self.cache = store, embedder, cache
        self.on_progress = on_progress
        self.target_words, self.max_words, self.group_size = sizes
        self.chunking = chunking_key(self.target_words, self.max_words)
        self.tag = vector_tag(embedder)
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
        stored = self.store.document_state(doc.doc_id)
        if stored is None:
            self.queue(doc, result.source_path, "added")
            return
        reextracted = stored.loader_version != doc.loader_version
        if stored.content_sha256 != doc.content_sha256:
            self.queue(doc, result.source_path, "reextracted" if reextracted else "replaced")
        elif stored.chunking != self.chunking:
            self.queue(doc, result.source_path, "reextracted" if reextracted else "rechunked")
        elif self.store.update_metadata(doc, source_path=result.source_path):
            self.summary.count("reextracted" if reextracted else "updated")
        else:
            self.summary.count("unchanged")

    def queue(self, doc: Document, source_path: str | None, outcome: Outcome) -> None:
        passages = chunk(doc, self.target_words, self.max_words)
        if self.pending and len(self.pending) + len(passages) > self.group_size:
            self.flush()  # keep model calls at most group_size texts (unless one doc is bigger)
        hashes = [sha256_text(p.text) for p in passages]
        fresh = [h for h in dict.fromkeys(hashes) if h not in self.known and h not in self.pending]
        self.known.update(self.store.vectors_for_text_hashes(fresh))
        missing = [h for h in fresh if h not in self.known]
        if self.cache is not None and missing:
            cached = self.cache.get_many(self.embedder.model_id, self.tag, missing)
            self.known.update({h: v for h, v in cached.items() if v.shape == (self.embedder.dim,)})
        to_embed = {
            h: p.text
            for h, p in zip(hashes, passages, strict=True)
            if h not in self.known and h not in self.pending
        }
        self.pending.update(to_embed)
        self.queued += len(to_embed)
        self.summary.passages_reused += len(passages) - len(to_embed)
        self.jobs.append(_Job(doc, source_path, passages, hashes, outcome))
        if len(self.pending) >= self.group_size or len(self.jobs) >= self.group_size:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.embed_pending()
        for job in self.jobs:
            vectors = np.zeros((len(job.hashes), self.embedder.dim), dtype=np.float32)
            for row, digest in enumerate(job.hashes):
                vectors[row] = self.known[digest]
            written = self.store.upsert(
                job.doc,
                job.passages,
                vectors,
                chunking=self.chunking,
                source_path=job.source_path,
            )
            self.summary.count(job.outcome if written != "unchanged" else "unchanged")
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
            self.cache.put_many(self.embedder.model_id, self.tag, new)


def ingest(
    results: Iterable[LoadResult],
    store: Store,
    embedder: Embedder,
    *,
    target_words: int,
    max_words: int,
    cache: EmbeddingCache | None = None,
    on_progress: Callable[[IngestProgress], None] | None = None,
    group_size: int = GROUP_SIZE,
) -> IngestSummary:
    """Load `results` into `store`; returns what each document's outcome was (see the module
    docstring) and what was skipped."""
    if not 1 <= target_words <= max_words:
        raise ValueError("Passage sizes need 1 <= target_words <= max_words.")
    try:
        check_embedder(store, embedder)
    except EmbedderMismatch as exc:
        raise IngestError(str(exc)) from exc
    run = _Ingest(store, embedder, cache, on_progress, (target_words, max_words, group_size))
    for result in results:
        run.take(result)
    run.flush()
    return run.summary


__all__ = ["IngestError", "IngestProgress", "IngestSummary", "Loaded", "Skipped", "ingest"]
