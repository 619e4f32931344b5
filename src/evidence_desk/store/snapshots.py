"""What the desk read from outside its archive: page snapshots, and each run's record of its
searches and fetches.

A snapshot is the bytes a fetch brought back (after the content encoding was undone), what
the fetch saw on the way (URL, final URL, hops, content type, retrieval time) and the
document read from those bytes. It is named by its final URL and body hash
(`snapshot_id_of`), written once and never changed, so a cited page re-opens exactly as it
was read, and a receipt's quotes are checked against the very text the run quoted (the
document's id is the snapshot's id; its content hash names its text).

`run_effects` is each run's record of its external effects, one row per idempotency key
(`effect_key`, made by the run from what the effect asks for): the first record under a key
stands, so a run resumed after a crash reads a search's results or a fetch's snapshot back
instead of doing it again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..clock import Clock, iso_ms, system_clock
from ..types import Document
from .runs import Transaction

SnapshotOrigin = Literal["web", "upload"]
EffectKind = Literal["search", "fetch"]
EffectOutcome = Literal["done", "refused", "failed"]


# A snapshot's id is the id of the document read from it: `web-...` for a fetched page,
# `upload-...` for an attached file. The archive is asked first, so an archive file that
# happens to be named `web-...` keeps its own document.
SNAPSHOT_PREFIXES = ("web-", "upload-")


def snapshot_id_of(final_url: str, body_sha256: str, origin: SnapshotOrigin = "web") -> str:
    """`web-<20 hex>` (or `upload-...`): the same bytes read from the same place are one
    snapshot."""
    digest = hashlib.sha256(f"{final_url}\n{body_sha256}".encode()).hexdigest()
    return f"{origin}-{digest[:20]}"


@dataclass(frozen=True)
class Snapshot:
    snapshot_id: str
    url: str
    final_url: str
    origin: SnapshotOrigin
    content_type: str
    charset: str | None
    body_sha256: str
    body: bytes
    retrieved_at: str
    fetch: dict[str, Any] = field(default_factory=dict)
    document: Document | None = None


@dataclass(frozen=True)
class Effect:
    run_id: str
    effect_key: str
    kind: EffectKind
    outcome: EffectOutcome
    detail: dict[str, Any]
    snapshot_id: str | None
    at: str


_COLUMNS = (
    "snapshot_id, url, final_url, origin, content_type, charset, body_sha256, body, "
    "retrieved_at, fetch, document"
)


def _snapshot(row: sqlite3.Row) -> Snapshot:
    doc = row["document"]
    return Snapshot(
        snapshot_id=row["snapshot_id"],
        url=row["url"],
        final_url=row["final_url"],
        origin=row["origin"],
        content_type=row["content_type"],
        charset=row["charset"],
        body_sha256=row["body_sha256"],
        body=bytes(row["body"]),
        retrieved_at=row["retrieved_at"],
        fetch=json.loads(row["fetch"]),
        document=Document.model_validate_json(doc) if doc else None,
    )


def _effect(row: sqlite3.Row) -> Effect:
    return Effect(
        run_id=row["run_id"],
        effect_key=row["effect_key"],
        kind=row["kind"],
        outcome=row["outcome"],
        detail=json.loads(row["detail"]),
        snapshot_id=row["snapshot_id"],
        at=row["at"],
    )


class Snapshots:
    """Snapshots and run effects in the archive database (`ArchiveStore.snapshots_on`)."""

    def __init__(self, write: Transaction, read: Transaction, clock: Clock = system_clock) -> None:
        self._write = write
        self._read = read
        self.clock = clock

    def put(self, snap: Snapshot) -> None:
        """Store `snap`; a snapshot already stored keeps its first record (its document is
        filled in when the first record had none)."""
        if hashlib.sha256(snap.body).hexdigest() != snap.body_sha256:
            raise ValueError(f"snapshot {snap.snapshot_id}: body does not match its SHA-256")
        doc = snap.document.model_dump_json() if snap.document is not None else None
        with self._write() as db:
            db.execute(
                f"INSERT OR IGNORE INTO snapshots ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    snap.snapshot_id,
                    snap.url,
                    snap.final_url,
                    snap.origin,
                    snap.content_type,
                    snap.charset,
                    snap.body_sha256,
                    snap.body,
                    snap.retrieved_at,
                    json.dumps(snap.fetch, sort_keys=True),
                    doc,
                ),
            )
            if doc is not None:
                db.execute(
                    "UPDATE snapshots SET document = ? WHERE snapshot_id = ? AND document IS NULL",
                    (doc, snap.snapshot_id),
                )

    def get(self, snapshot_id: str) -> Snapshot | None:
        with self._read() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM snapshots WHERE snapshot_id = ?", (snapshot_id,)
            ).fetchone()
        return _snapshot(row) if row else None

    def documents(self, ids: Iterable[str]) -> dict[str, Document]:
        """The documents read from the snapshots `ids` name (those that have one)."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, Document] = {}
        with self._read() as db:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for row in db.execute(
                    "SELECT snapshot_id, document FROM snapshots "
                    f"WHERE snapshot_id IN ({marks}) AND document IS NOT NULL",
                    chunk,
                ):
                    out[row["snapshot_id"]] = Document.model_validate_json(row["document"])
        return out

    def record_effect(
        self,
        run_id: str,
        effect_key: str,
        kind: EffectKind,
        outcome: EffectOutcome,
        detail: dict[str, Any],
        snapshot_id: str | None = None,
    ) -> Effect:
        """Record an effect under its key, or return the one already recorded there."""
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO run_effects "
                "(run_id, effect_key, kind, outcome, detail, snapshot_id, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    effect_key,
                    kind,
                    outcome,
                    json.dumps(detail, sort_keys=True),
                    snapshot_id,
                    iso_ms(self.clock()),
                ),
            )
            row = db.execute(
                "SELECT * FROM run_effects WHERE run_id = ? AND effect_key = ?",
                (run_id, effect_key),
            ).fetchone()
        return _effect(row)

    def effect(self, run_id: str, effect_key: str) -> Effect | None:
        with self._read() as db:
            row = db.execute(
                "SELECT * FROM run_effects WHERE run_id = ? AND effect_key = ?",
                (run_id, effect_key),
            ).fetchone()
        return _effect(row) if row else None

    def effects(self, run_id: str) -> list[Effect]:
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM run_effects WHERE run_id = ? ORDER BY at, effect_key", (run_id,)
            ).fetchall()
        return [_effect(r) for r in rows]
