"""What the floors above ask of a store: one Protocol, `Store`, that a back end implements.

`ArchiveStore` (`sqlite.py`) is the embedded one. Outside `store/`, only the desk's parts
(`desk/parts.py`) name a store class, to build it; the rest of the desk, ingest and
retrieval type what they are handed as `Store`, and mypy checks at that one place that
`ArchiveStore` satisfies it. A second back end (PostgreSQL, say) implements this Protocol
and is chosen there.

The contract each method keeps beyond its types:

* `generation()` goes up by one on every change to documents or passages; an index built
  from `export_index_rows()` is current while it is unchanged. `set_meta` never sets it.
* Every write is all or nothing: a failure leaves nothing half-written visible.
* `upsert` keeps a replaced text (`texts_by_hash` still finds it), so receipts quoting it
  verify; `delete` keeps them too.
* `append_receipt` refuses (`ReceiptChainError`) a receipt whose `previous_sha256` is not
  `last_receipt_sha()`, so receipts form one chain.

The run records, accounts and snapshots are still handed out as the SQLite classes
(`runs_on`, `accounts_on`, `snapshots_on`); `runs/` already reaches the first and the last
through the `RunLog` and `EffectLog` Protocols of `runs/logs.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy.typing as npt

from ..clock import Clock
from ..types import Document, Passage
from .rows import (
    DocumentMeta,
    IndexRows,
    StoredReceipt,
    StoredState,
    StoredText,
    UpsertResult,
    Vectors,
)

if TYPE_CHECKING:
    from .accounts import Accounts
    from .runs import RunRecords
    from .snapshots import Snapshots


class Store(Protocol):
    """Documents, passages with their vectors, receipts and settings, and the records kept
    beside them."""

    # ------------------------------------------------------------------ the records beside

    @property
    def runs(self) -> RunRecords:
        """The runs stored as they go, on the system clock."""
        ...

    def runs_on(self, clock: Clock) -> RunRecords:
        """The same records, their times read from `clock`."""
        ...

    def accounts_on(self, clock: Clock) -> Accounts:
        """The workspace's people, sessions, conversations, reviews and kill switch."""
        ...

    def snapshots_on(self, clock: Clock) -> Snapshots:
        """Pages read from outside the archive, and each run's searches and fetches."""
        ...

    def close(self) -> None: ...

    # ------------------------------------------------------------------ settings, generation

    def generation(self) -> int: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting of the archive (not part of the generation)."""
        ...

    # ------------------------------------------------------------------ documents

    def upsert(
        self,
        doc: Document,
        passages: Sequence[Passage],
        vectors: npt.NDArray[Any],
        *,
        chunking: str,
        source_path: str | None = None,
    ) -> UpsertResult:
        """Store `doc` with its passages (cut with `chunking`) and their vectors."""
        ...

    def update_metadata(self, doc: Document, *, source_path: str | None = None) -> bool:
        """Refresh a stored document's metadata without touching its text or passages."""
        ...

    def delete(self, doc_id: str) -> bool: ...

    def document_sha(self, doc_id: str) -> str | None: ...

    def document_state(self, doc_id: str) -> StoredState | None: ...

    def texts_by_hash(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], StoredText]:
        """The text each (doc_id, content hash) names, current or kept."""
        ...

    def get_document(self, doc_id: str) -> Document | None: ...

    def get_documents(self, ids: Iterable[str]) -> dict[str, Document]: ...

    def iter_documents_meta(self) -> Iterator[DocumentMeta]: ...

    def count_documents(self) -> int: ...

    # ------------------------------------------------------------------ passages, vectors

    def count_passages(self) -> int: ...

    def vector_dim(self) -> int | None: ...

    def vectors_for_text_hashes(self, hashes: Iterable[str]) -> dict[str, Vectors]: ...

    def passage_texts(self) -> tuple[int, dict[str, str]]:
        """The generation and each distinct passage text by its SHA-256, in one snapshot."""
        ...

    def replace_vectors(
        self, vectors: Mapping[str, npt.NDArray[Any]], generation: int, meta: Mapping[str, str]
    ) -> int:
        """Every passage's vector by its text hash, and `meta`, in one transaction; refused
        when the store is no longer at `generation`. The number of rows updated."""
        ...

    def passages_by_ids(self, ids: Sequence[str]) -> list[Passage]: ...

    def export_index_rows(self) -> IndexRows: ...

    # ------------------------------------------------------------------ receipts

    def append_receipt(
        self,
        run_id: str,
        created_at: str,
        decision: str,
        canonical_sha256: str,
        previous_sha256: str | None,
        receipt_json: str,
    ) -> None: ...

    def last_receipt_sha(self) -> str | None: ...

    def get_receipt(self, run_id: str) -> StoredReceipt | None: ...

    def iter_receipts(self) -> Iterator[StoredReceipt]: ...
