"""The shapes the archive store hands out, and their conversion to and from SQLite rows.

Vectors are stored as little-endian float32 blobs; pages, links and metadata as JSON. Keeping the
conversions here keeps `sqlite.py` about transactions and queries.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..hashing import sha256_text
from ..types import Document, Link, PageSpan, Passage

Vectors = npt.NDArray[np.float32]
VECTOR_DTYPE = np.dtype("<f4")

DOCUMENT_COLUMNS = (
    "doc_id, title, date, url, origin, content_sha256, ingested_at, text, pages, meta, "
    "source_path, links, loader_version, chunking"
)
DOCUMENT_COLUMN_COUNT = DOCUMENT_COLUMNS.count(",") + 1
META_COLUMNS = "doc_id, title, date, url, origin, content_sha256, ingested_at, meta, source_path"
STATE_COLUMNS = "content_sha256, loader_version, chunking"

# What storing a document did: it was new, its text changed, or nothing changed.
UpsertResult = Literal["added", "replaced", "unchanged"]

Channel = Literal["workspace", "widget"]


@dataclass(frozen=True)
class RunOwner:
    """Whose a run is: the reader who asked, the conversation it was asked in (None: none)
    and where (the workspace or the public widget). It travels as data from the workspace to
    the store, which writes it in the transaction that opens the run (`RunRecords.open`)."""

    owner_id: str
    conversation_id: str | None
    channel: Channel


@dataclass(frozen=True)
class StoredState:
    """What ingest compares a freshly loaded document with: its stored text's hash, the
    loader version that made it and the chunking its passages were cut with (`""` for
    either when it was stored before they were recorded)."""

    content_sha256: str
    loader_version: str
    chunking: str


@dataclass(frozen=True)
class StoredText:
    """One text a document has had: the current one, or one kept when a re-ingest replaced it."""

    text: str
    loader_version: str
    current: bool


@dataclass(frozen=True)
class DocumentMeta:
    """A stored document without its text."""

    doc_id: str
    title: str
    date: str | None
    url: str | None
    origin: str
    content_sha256: str
    ingested_at: str
    meta: dict[str, str]
    source_path: str | None


@dataclass(frozen=True)
class IndexRows:
    """Everything an index build needs, one entry per passage, in (doc_id, ordinal) order.

    `generation` is the store generation this snapshot was read at: an index built from it
    is current while `ArchiveStore.generation()` still returns the same number.
    """

    generation: int
    passage_ids: list[str]
    doc_ids: list[str]
    texts: list[str]
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    titles: list[str]
    dates: list[str | None]
    vectors: Vectors = field(repr=False)

    def __len__(self) -> int:
        return len(self.passage_ids)


@dataclass(frozen=True)
class StoredReceipt:
    """One receipt as stored: the chain fields and the receipt's JSON text."""

    seq: int
    run_id: str
    created_at: str
    decision: str
    canonical_sha256: str
    previous_sha256: str | None
    json: str


class ReceiptChainError(ValueError):
    """A receipt does not link to the last stored receipt (another run appended first)."""


def vector_blob(vector: npt.NDArray[Any]) -> bytes:
    return np.ascontiguousarray(vector, dtype=VECTOR_DTYPE).tobytes()


def blob_vector(blob: bytes) -> Vectors:
    """A writable float32 copy of a stored vector."""
    return np.frombuffer(blob, dtype=VECTOR_DTYPE).astype(np.float32)


def pages_json(pages: tuple[PageSpan, ...]) -> str:
    return json.dumps([page.model_dump() for page in pages], ensure_ascii=False)


def meta_json(meta: dict[str, str]) -> str:
    return json.dumps(meta, ensure_ascii=False, sort_keys=True)


def links_json(links: tuple[Link, ...]) -> str:
    return json.dumps([link.model_dump() for link in links], ensure_ascii=False)


def document_params(doc: Document, source_path: str | None, chunking: str) -> tuple[Any, ...]:
    """Parameters in DOCUMENT_COLUMNS order; an empty loader version is stored as NULL."""
    return (
        doc.doc_id,
        doc.title,
        doc.date,
        doc.url,
        doc.origin,
        doc.content_sha256,
        doc.ingested_at,
        doc.text,
        pages_json(doc.pages),
        meta_json(doc.meta),
        source_path,
        links_json(doc.links),
        doc.loader_version or None,
        chunking,
    )


def document_from_row(row: sqlite3.Row) -> Document:
    return Document(
        doc_id=row["doc_id"],
        title=row["title"],
        date=row["date"],
        url=row["url"],
        origin=row["origin"],
        content_sha256=row["content_sha256"],
        ingested_at=row["ingested_at"],
        text=row["text"],
        pages=tuple(PageSpan(**page) for page in json.loads(row["pages"])),
        links=tuple(Link(**link) for link in json.loads(row["links"])),
        loader_version=row["loader_version"] or "",
        meta=json.loads(row["meta"]),
    )


def state_from_row(row: sqlite3.Row) -> StoredState:
    return StoredState(
        content_sha256=row["content_sha256"],
        loader_version=row["loader_version"] or "",
        chunking=row["chunking"] or "",
    )


def meta_from_row(row: sqlite3.Row) -> DocumentMeta:
    return DocumentMeta(
        doc_id=row["doc_id"],
        title=row["title"],
        date=row["date"],
        url=row["url"],
        origin=row["origin"],
        content_sha256=row["content_sha256"],
        ingested_at=row["ingested_at"],
        meta=json.loads(row["meta"]),
        source_path=row["source_path"],
    )


def receipt_from_row(row: sqlite3.Row) -> StoredReceipt:
    return StoredReceipt(
        seq=row["seq"],
        run_id=row["run_id"],
        created_at=row["created_at"],
        decision=row["decision"],
        canonical_sha256=row["canonical_sha256"],
        previous_sha256=row["previous_sha256"],
        json=row["json"],
    )


class IndexRowsBuilder:
    """Accumulates `IndexRows` row by row (see `ArchiveStore.export_index_rows`)."""

    def __init__(self, generation: int, count: int, dim: int) -> None:
        self.generation = generation
        self.vectors = np.empty((count, dim), dtype=np.float32)
        self.starts = np.empty(count, dtype=np.int64)
        self.ends = np.empty(count, dtype=np.int64)
        self.ids: list[str] = []
        self.doc_ids: list[str] = []
        self.texts: list[str] = []
        self.titles: list[str] = []
        self.dates: list[str | None] = []

    def add(
        self,
        pid: str,
        doc_id: str,
        start: int,
        end: int,
        blob: bytes,
        doc: tuple[str, str | None, str],
    ) -> None:
        i = len(self.ids)
        title, date, text = doc
        self.ids.append(pid)
        self.doc_ids.append(doc_id)
        self.texts.append(text[start:end])
        self.titles.append(title)
        self.dates.append(date)
        self.starts[i], self.ends[i] = start, end
        self.vectors[i] = np.frombuffer(blob, dtype=VECTOR_DTYPE)

    def build(self) -> IndexRows:
        return IndexRows(
            generation=self.generation,
            passage_ids=self.ids,
            doc_ids=self.doc_ids,
            texts=self.texts,
            starts=self.starts,
            ends=self.ends,
            titles=self.titles,
            dates=self.dates,
            vectors=self.vectors,
        )


def passage_rows(
    doc: Document, passages: Sequence[Passage], vectors: npt.NDArray[Any], dim: int | None
) -> list[tuple[Any, ...]]:
    """Validated `passages` table rows; raises ValueError before anything is written.

    Each passage must be an exact window of `doc.text`, with one vector per passage of the
    archive's dimension `dim` (None while the archive has no vectors).
    """
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != len(passages):
        raise ValueError(
            f"Expected one vector per passage ({len(passages)}), got shape {vectors.shape}."
        )
    if passages and dim is not None and vectors.shape[1] != dim:
        raise ValueError(f"Vectors have {vectors.shape[1]} dimensions; the archive uses {dim}.")
    rows: list[tuple[Any, ...]] = []
    for ordinal, (passage, vector) in enumerate(zip(passages, vectors, strict=True)):
        window = doc.text[passage.start : passage.end]
        if passage.doc_id != doc.doc_id or passage.text != window:
            raise ValueError(f"Passage {passage.id!r} is not a window of {doc.doc_id!r}.")
        digest = sha256_text(passage.text)
        rows.append(
            (
                passage.id,
                doc.doc_id,
                ordinal,
                passage.start,
                passage.end,
                digest,
                vector_blob(vector),
            )
        )
    return rows
