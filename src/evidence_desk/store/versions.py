"""Earlier texts of documents, kept so that receipts written against them still verify.

A receipt records each source's `content_sha256` and quote offsets into the text that was
stored when it was written. When a re-ingest replaces a document's text (its file changed,
or a new loader version reads it differently), the text it replaces is kept in
`document_versions`, one row per distinct (doc_id, content hash); verification then looks a
source's text up by that hash (`texts_by_hash`), current or kept.

Invariants: a kept row never has the hash of its document's current text (the row is
removed when a re-ingest brings that text back); rows are written only inside the
transaction that replaces the text, so a failed replacement keeps nothing. Deleting a
document keeps its earlier texts: receipts may still cite them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from ..hashing import utc_now
from .rows import StoredText

_BATCH = 200  # (doc_id, hash) pairs per query: 4 variables each, under the old 999 limit


def keep_replaced_text(db: sqlite3.Connection, doc_id: str, new_sha256: str) -> None:
    """Inside a write transaction, before `doc_id`'s row is replaced by a text whose hash is
    `new_sha256`: keep the current text if it differs, and forget a kept copy of the new one."""
    db.execute(
        "INSERT OR IGNORE INTO document_versions "
        "(doc_id, content_sha256, text, loader_version, replaced_at) "
        "SELECT doc_id, content_sha256, text, loader_version, ? FROM documents "
        "WHERE doc_id = ? AND content_sha256 != ?",
        (utc_now(), doc_id, new_sha256),
    )
    db.execute(
        "DELETE FROM document_versions WHERE doc_id = ? AND content_sha256 = ?",
        (doc_id, new_sha256),
    )


def _batches(pairs: Sequence[tuple[str, str]]) -> Iterator[Sequence[tuple[str, str]]]:
    for i in range(0, len(pairs), _BATCH):
        yield pairs[i : i + _BATCH]


def texts_by_hash(
    db: sqlite3.Connection, pairs: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], StoredText]:
    """For each (doc_id, content hash) the archive holds a text for, that text: the current
    one when it has that hash, else the kept one. Pairs it holds no such text for are absent."""
    wanted = list(dict.fromkeys(pairs))
    found: dict[tuple[str, str], StoredText] = {}
    for batch in _batches(wanted):
        where = " OR ".join(["(doc_id = ? AND content_sha256 = ?)"] * len(batch))
        params = tuple(value for pair in batch for value in pair)
        query = (
            f"SELECT doc_id, content_sha256, text, loader_version, 1 FROM documents WHERE {where} "
            "UNION ALL SELECT doc_id, content_sha256, text, loader_version, 0 "
            f"FROM document_versions WHERE {where}"
        )
        for doc_id, sha, text, version, current in db.execute(query, params + params):
            key = (doc_id, sha)
            if key not in found or current:
                found[key] = StoredText(text, version or "", bool(current))
    return found
