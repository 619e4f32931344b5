"""The archive store on SQLite: documents, passages with their vectors, receipts, a generation.

One writer, many readers (datasette's rule): every write goes through one connection behind
one lock, inside one `BEGIN IMMEDIATE ... COMMIT`, so a failure anywhere in a write rolls all
of it back and nothing half-written is ever visible. Each reading thread gets its own
connection; WAL mode lets readers run while the writer writes.

`generation` (in the `meta` table) goes up by one on every change to documents or passages;
an index built from `export_index_rows()` is current while the generation is unchanged.
A document's replaced texts are kept (`versions.py`) so receipts quoting them still verify.
Receipts form a hash chain: `append_receipt` refuses a receipt whose `previous_sha256` is not
the last stored receipt's hash.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy.typing as npt

from ..clock import Clock
from ..errors import DeskError
from ..types import Document, Passage
from .accounts import Accounts
from .migrations import migrate
from .rows import (
    DOCUMENT_COLUMN_COUNT,
    DOCUMENT_COLUMNS,
    META_COLUMNS,
    STATE_COLUMNS,
    VECTOR_DTYPE,
    DocumentMeta,
    IndexRows,
    IndexRowsBuilder,
    ReceiptChainError,
    StoredReceipt,
    StoredState,
    StoredText,
    UpsertResult,
    Vectors,
    blob_vector,
    document_from_row,
    document_params,
    links_json,
    meta_from_row,
    meta_json,
    pages_json,
    passage_rows,
    receipt_from_row,
    state_from_row,
    vector_blob,
)
from .runs import RunRecords
from .snapshots import Snapshots
from .versions import keep_replaced_text, texts_by_hash

_BATCH = 500  # ids per `IN (...)` query, well under SQLite's variable limit
_GENERATION = "SELECT value FROM meta WHERE key = 'generation'"


class StoreError(DeskError, RuntimeError):
    """The archive database cannot be opened."""


def _batches(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


def _marks(n: int) -> str:
    return ",".join("?" * n)


class ArchiveStore:
    """The archive database at `path` (created and migrated on first use)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        try:
            self._writer = self._connect()
            with self._lock:
                migrate(self._writer)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"Cannot open the archive database {self.path}: {exc}.") from exc

    # ------------------------------------------------------------------ connections

    def _connect(self, *, readonly: bool = False) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        if readonly:
            db.execute("PRAGMA query_only=ON")
        return db

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._connect(readonly=True)
            self._local.db = db
            with self._lock:
                self._readers.append(db)
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction under the writer lock; any exception rolls it all back."""
        with self._lock:
            db = self._writer
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        db = self._reader()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    @cached_property
    def runs(self) -> RunRecords:
        """The runs stored as they go (`runs.py`), on the system clock."""
        return RunRecords(self._write, self._snapshot)

    def runs_on(self, clock: Clock) -> RunRecords:
        """The same records, their times read from `clock` (`Desk(clock=...)`)."""
        return RunRecords(self._write, self._snapshot, clock)

    def accounts_on(self, clock: Clock) -> Accounts:
        """The workspace's people, sessions, conversations, reviews and kill switch."""
        return Accounts(self._write, self._snapshot, clock)

    def snapshots_on(self, clock: Clock) -> Snapshots:
        """Pages read from outside the archive, and each run's searches and fetches."""
        return Snapshots(self._write, self._snapshot, clock)

    def close(self) -> None:
        with self._lock:
            for db in [*self._readers, self._writer]:
                db.close()
            self._readers.clear()

    def __enter__(self) -> ArchiveStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ meta and generation

    def generation(self) -> int:
        row = self._reader().execute(_GENERATION).fetchone()
        return int(row[0])

    def get_meta(self, key: str) -> str | None:
        row = self._reader().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting of the archive (not part of the generation)."""
        if key == "generation":
            raise ValueError("The generation is maintained by the store itself.")
        with self._write() as db:
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @staticmethod
    def _bump(db: sqlite3.Connection) -> None:
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    # ------------------------------------------------------------------ writing documents

    def upsert(
        self,
        doc: Document,
        passages: Sequence[Passage],
        vectors: npt.NDArray[Any],
        *,
        chunking: str,
        source_path: str | None = None,
    ) -> UpsertResult:
        """Store `doc` with its passages (cut with `chunking`, e.g. `"120/220"`) and their
        vectors, in one transaction.

        Same content hash and chunking as stored -> "unchanged" and nothing is written (see
        `update_metadata` for title/date/url changes). Otherwise a text being replaced is
        kept in `document_versions` (`versions.py`), the old passages are deleted, the
        document row replaced, the new passages inserted and the generation bumped.
        """
        rows = passage_rows(doc, passages, vectors, self.vector_dim())
        with self._write() as db:
            found = db.execute(
                "SELECT content_sha256, chunking FROM documents WHERE doc_id = ?", (doc.doc_id,)
            ).fetchone()
            if found is not None and tuple(found) == (doc.content_sha256, chunking):
                return "unchanged"
            keep_replaced_text(db, doc.doc_id, doc.content_sha256)
            db.execute("DELETE FROM passages WHERE doc_id = ?", (doc.doc_id,))
            db.execute(
                f"INSERT INTO documents ({DOCUMENT_COLUMNS}) "
                f"VALUES ({_marks(DOCUMENT_COLUMN_COUNT)}) "
                "ON CONFLICT(doc_id) DO UPDATE SET title = excluded.title, date = excluded.date, "
                "url = excluded.url, origin = excluded.origin, "
                "content_sha256 = excluded.content_sha256, ingested_at = excluded.ingested_at, "
                "text = excluded.text, pages = excluded.pages, meta = excluded.meta, "
                "source_path = excluded.source_path, links = excluded.links, "
                "loader_version = excluded.loader_version, chunking = excluded.chunking",
                document_params(doc, source_path, chunking),
            )
            db.executemany(
                'INSERT INTO passages (passage_id, doc_id, ordinal, start, "end", text_sha256, '
                "vector) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self._bump(db)
        return "added" if found is None else "replaced"

    def update_metadata(self, doc: Document, *, source_path: str | None = None) -> bool:
        """Refresh title, date, url, origin, pages, meta, links and loader version of a
        stored document whose text is unchanged. True when one of those changed (and the
        generation went up). Where the file came from is recorded too, but a move alone is
        not a change."""
        with self._write() as db:
            cur = db.execute(
                "UPDATE documents SET title = ?, date = ?, url = ?, origin = ?, pages = ?, "
                "meta = ?, links = ?, loader_version = ? WHERE doc_id = ? AND "
                "content_sha256 = ? AND NOT (title IS ? AND date IS ? AND url IS ? AND "
                "origin IS ? AND pages IS ? AND meta IS ? AND links IS ? AND "
                "loader_version IS ?)",
                (
                    *self._meta_params(doc),
                    doc.doc_id,
                    doc.content_sha256,
                    *self._meta_params(doc),
                ),
            )
            changed = cur.rowcount > 0
            if changed:
                self._bump(db)
            db.execute(
                "UPDATE documents SET source_path = ? WHERE doc_id = ? AND content_sha256 = ?",
                (source_path, doc.doc_id, doc.content_sha256),
            )
            return changed

    @staticmethod
    def _meta_params(doc: Document) -> tuple[Any, ...]:
        return (
            doc.title,
            doc.date,
            doc.url,
            doc.origin,
            pages_json(doc.pages),
            meta_json(doc.meta),
            links_json(doc.links),
            doc.loader_version or None,
        )

    def delete(self, doc_id: str) -> bool:
        """Remove a document and its passages (its kept earlier texts stay, for receipts).
        True when it existed."""
        with self._write() as db:
            cur = db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            if cur.rowcount:
                self._bump(db)
            return cur.rowcount > 0

    # ------------------------------------------------------------------ reading documents

    def document_sha(self, doc_id: str) -> str | None:
        row = (
            self._reader()
            .execute("SELECT content_sha256 FROM documents WHERE doc_id = ?", (doc_id,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def document_state(self, doc_id: str) -> StoredState | None:
        """The stored text's hash, loader version and chunking of `doc_id`, if stored."""
        query = f"SELECT {STATE_COLUMNS} FROM documents WHERE doc_id = ?"
        row = self._reader().execute(query, (doc_id,)).fetchone()
        return None if row is None else state_from_row(row)

    def texts_by_hash(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], StoredText]:
        """The text each (doc_id, content hash) names, current or kept (`versions.py`)."""
        with self._snapshot() as db:
            return texts_by_hash(db, pairs)

    def get_document(self, doc_id: str) -> Document | None:
        return self.get_documents([doc_id]).get(doc_id)

    def get_documents(self, ids: Iterable[str]) -> dict[str, Document]:
        """The stored documents among `ids` (unknown ids are absent from the result)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Document] = {}
        db = self._reader()
        for batch in _batches(wanted):
            marks = _marks(len(batch))
            query = f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE doc_id IN ({marks})"
            for row in db.execute(query, tuple(batch)):
                found[row["doc_id"]] = document_from_row(row)
        return found

    def iter_documents_meta(self) -> Iterator[DocumentMeta]:
        """Every stored document without its text, ordered by doc id."""
        cursor = self._reader().execute(f"SELECT {META_COLUMNS} FROM documents ORDER BY doc_id")
        while rows := cursor.fetchmany(1000):
            yield from (meta_from_row(row) for row in rows)

    def count_documents(self) -> int:
        return int(self._reader().execute("SELECT count(*) FROM documents").fetchone()[0])

    def count_passages(self) -> int:
        return int(self._reader().execute("SELECT count(*) FROM passages").fetchone()[0])

    def vector_dim(self) -> int | None:
        """Dimensions of the stored vectors (None while there are none)."""
        row = self._reader().execute("SELECT length(vector) FROM passages LIMIT 1").fetchone()
        return None if row is None else int(row[0]) // VECTOR_DTYPE.itemsize

    # ------------------------------------------------------------------ passages and vectors

    def vectors_for_text_hashes(self, hashes: Iterable[str]) -> dict[str, Vectors]:
        """Stored vectors of passages whose text has one of these SHA-256 hashes."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, Vectors] = {}
        db = self._reader()
        for batch in _batches(wanted):
            query = (
                "SELECT text_sha256, vector FROM passages "
                f"WHERE text_sha256 IN ({_marks(len(batch))})"
            )
            for digest, blob in db.execute(query, tuple(batch)):
                found.setdefault(digest, blob_vector(blob))
        return found

    def passage_texts(self) -> tuple[int, dict[str, str]]:
        """The store's generation and each distinct passage text by its SHA-256, in one
        snapshot: what re-embedding the archive has to embed."""
        with self._snapshot() as db:
            generation = int(db.execute(_GENERATION).fetchone()[0])
            texts = {
                digest: text
                for digest, text in db.execute(
                    'SELECT p.text_sha256, substr(d.text, p.start + 1, p."end" - p.start) '
                    "FROM passages p JOIN documents d ON d.doc_id = p.doc_id"
                )
            }
        return generation, texts

    def replace_vectors(
        self, vectors: Mapping[str, npt.NDArray[Any]], generation: int, meta: Mapping[str, str]
    ) -> int:
        """Every passage's vector by its text hash, and `meta` (the embedder that made
        them), in one transaction; the generation goes up. Refused when the store is no
        longer at `generation` (a change since the texts were read) or a stored text has
        no vector here: the archive then keeps its old vectors, all of them. Rows updated."""
        with self._write() as db:
            now = int(db.execute(_GENERATION).fetchone()[0])
            if now != generation:
                raise StoreError(
                    "The archive changed while it was being re-embedded; nothing was "
                    "replaced. Run the command again."
                )
            hashes = [row[0] for row in db.execute("SELECT DISTINCT text_sha256 FROM passages")]
            missing = [h for h in hashes if h not in vectors]
            if missing:
                raise StoreError(
                    f"{len(missing)} passage texts have no new vector; nothing was replaced."
                )
            cursor = db.executemany(
                "UPDATE passages SET vector = ? WHERE text_sha256 = ?",
                ((vector_blob(vectors[h]), h) for h in hashes),
            )
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                list(meta.items()),
            )
            self._bump(db)
            return int(cursor.rowcount)

    def passages_by_ids(self, ids: Sequence[str]) -> list[Passage]:
        """Passages in the order of `ids`; ids not in the store are left out."""
        found: dict[str, Passage] = {}
        db = self._reader()
        for batch in _batches(list(dict.fromkeys(ids))):
            query = (
                'SELECT p.passage_id, p.doc_id, p.start, p."end", '
                'substr(d.text, p.start + 1, p."end" - p.start) AS text '
                "FROM passages p JOIN documents d ON d.doc_id = p.doc_id "
                f"WHERE p.passage_id IN ({_marks(len(batch))})"
            )
            for pid, doc_id, start, end, text in db.execute(query, tuple(batch)):
                found[pid] = Passage(id=pid, doc_id=doc_id, text=text, start=start, end=end)
        return [found[pid] for pid in ids if pid in found]

    def export_index_rows(self) -> IndexRows:
        """Every passage with its text, document title and date, and vector, in one snapshot.

        Vectors stream straight into one preallocated (N, dim) float32 matrix, so peak memory
        is the matrix plus the documents' text, not a second copy of every blob.
        """
        with self._snapshot() as db:
            generation = int(db.execute(_GENERATION).fetchone()[0])
            count = int(db.execute("SELECT count(*) FROM passages").fetchone()[0])
            first = db.execute("SELECT length(vector) FROM passages LIMIT 1").fetchone()
            dim = int(first[0]) // VECTOR_DTYPE.itemsize if first else 0
            docs = {
                row[0]: (row[1], row[2], row[3])
                for row in db.execute("SELECT doc_id, title, date, text FROM documents")
            }
            cursor = db.execute(
                'SELECT passage_id, doc_id, start, "end", vector FROM passages '
                "ORDER BY doc_id, ordinal"
            )
            rows = IndexRowsBuilder(generation, count, dim)
            for pid, doc_id, start, end, blob in cursor:
                rows.add(pid, doc_id, start, end, blob, docs[doc_id])
        return rows.build()

    # ------------------------------------------------------------------ receipts

    def append_receipt(
        self,
        run_id: str,
        created_at: str,
        decision: str,
        canonical_sha256: str,
        previous_sha256: str | None,
        receipt_json: str,
    ) -> None:
        """Append a receipt to the chain; `previous_sha256` must be the last receipt's hash."""
        with self._write() as db:
            row = db.execute(
                "SELECT canonical_sha256 FROM receipts ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            last = None if row is None else row[0]
            if previous_sha256 != last:
                raise ReceiptChainError(
                    f"Receipt {run_id} links to {previous_sha256}, but the last receipt is {last}."
                )
            db.execute(
                "INSERT INTO receipts (run_id, created_at, decision, canonical_sha256, "
                "previous_sha256, json) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, created_at, decision, canonical_sha256, previous_sha256, receipt_json),
            )

    def last_receipt_sha(self) -> str | None:
        row = (
            self._reader()
            .execute("SELECT canonical_sha256 FROM receipts ORDER BY seq DESC LIMIT 1")
            .fetchone()
        )
        return None if row is None else str(row[0])

    def get_receipt(self, run_id: str) -> StoredReceipt | None:
        query = "SELECT * FROM receipts WHERE run_id = ?"
        row = self._reader().execute(query, (run_id,)).fetchone()
        return None if row is None else receipt_from_row(row)

    def iter_receipts(self) -> Iterator[StoredReceipt]:
        """Receipts in the order they were appended."""
        cursor = self._reader().execute("SELECT * FROM receipts ORDER BY seq")
        while rows := cursor.fetchmany(500):
            yield from (receipt_from_row(row) for row in rows)
