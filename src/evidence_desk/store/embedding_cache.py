"""A cache of passage embeddings shared by every data directory on the machine.

Embedding is the slow part of ingest (about 100–200 passages a second on two cores), and the
same text embedded by the same model at the same precision always gives the same vector. So
vectors are kept in one SQLite file under the cache directory, keyed by
(model id, precision, SHA-256 of the text); re-ingesting the sample into a fresh data
directory, or a test archive, then skips the model entirely.

The cache is an optimisation and never a reason to fail: with no directory it is disabled,
and any error it meets (a corrupt or locked file, a full disk) produces one `CacheWarning`
and disables it for the rest of the process.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy.typing as npt

from .rows import VECTOR_DTYPE, Vectors, blob_vector, vector_blob

FILE_NAME = "embeddings.sqlite3"
_BATCH = 500


class CacheWarning(UserWarning):
    """The embedding cache could not be used; ingest goes on without it."""


class EmbeddingCache:
    """Vectors by (model id, precision, text SHA-256); disabled when `directory` is None."""

    def __init__(self, directory: Path | str | None) -> None:
        self.path = Path(directory) / FILE_NAME if directory is not None else None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            with self._guard():
                self._db = self._open(self.path)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model_id TEXT NOT NULL, precision TEXT NOT NULL, "
            "text_sha256 TEXT NOT NULL, vector BLOB NOT NULL, "
            "PRIMARY KEY (model_id, precision, text_sha256)) WITHOUT ROWID"
        )
        return db

    @property
    def enabled(self) -> bool:
        return self._db is not None

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn any cache failure into one warning and a disabled cache."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            db, self._db = self._db, None
            if db is not None:
                with suppress(sqlite3.Error):
                    db.close()
            warnings.warn(
                f"The embedding cache at {self.path} is unusable ({exc}); continuing without it.",
                CacheWarning,
                stacklevel=4,
            )

    def get_many(self, model_id: str, precision: str, hashes: Iterable[str]) -> dict[str, Vectors]:
        """Cached vectors for these text hashes (missing ones are absent)."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, Vectors] = {}
        with self._lock, self._guard():
            for i in range(0, len(wanted), _BATCH):
                if self._db is None:
                    break
                batch = wanted[i : i + _BATCH]
                query = (
                    "SELECT text_sha256, vector FROM vectors WHERE model_id = ? AND precision = ? "
                    f"AND text_sha256 IN ({','.join('?' * len(batch))})"
                )
                for digest, blob in self._db.execute(query, (model_id, precision, *batch)):
                    if blob and len(blob) % VECTOR_DTYPE.itemsize == 0:
                        found[digest] = blob_vector(blob)
        return found

    def put_many(
        self, model_id: str, precision: str, vectors: Mapping[str, npt.NDArray[Any]]
    ) -> None:
        """Remember these vectors (text hash -> vector); existing entries are kept."""
        rows = [(model_id, precision, h, vector_blob(v)) for h, v in vectors.items()]
        if not rows:
            return
        with self._lock, self._guard():
            if self._db is None:
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR IGNORE INTO vectors (model_id, precision, text_sha256, vector) "
                    "VALUES (?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
