"""The archive as a run sees it: search, documents, statistics and the planner's profile.

It joins the store (documents, passages: the source of truth) with the hybrid index
(derived, rebuilt whenever the store's generation has moved on) and the query embedder.
Everything derived from the store is cached per store generation.

An archive whose meta carries the `preparing` mark is being stored by a background
preparation (`preparing.py`): some of its documents are there, not all. It is never
searched: a run that reaches it anyway (the desk refuses to open one) fails in one sentence.
"""

from __future__ import annotations

import bisect
import fcntl
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..agents.base import ArchiveProfile
from ..archive.entities import entities_from_documents
from ..clock import system_clock
from ..retrieval.coverage import ArchiveStats
from ..retrieval.embedder import Embedder, Vectors
from ..retrieval.index import HybridIndex, IndexRows
from ..settings import Settings
from ..store.protocol import Store
from ..store.snapshots import SNAPSHOT_PREFIXES
from ..types import Document, Hit, TimeWindow

PREPARING_KEY = "preparing"  # archive meta: the sample whose documents are being stored


@contextmanager
def _exclusive(directory: Path) -> Iterator[None]:
    """An exclusive lock on `<directory>.lock`, held until the block ends (POSIX flock)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.with_name(directory.name + ".lock"), "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class DeskArchive:
    """Implements the pipeline's `ArchiveAccess` over one store and its index."""

    def __init__(self, store: Store, settings: Settings, embedder: Callable[[], Embedder]) -> None:
        """`embedder` makes the query embedder, on the first search: what reads the index's
        statistics alone (`check` reading a question) loads no model."""
        self.store = store
        self.settings = settings
        self._embedder = embedder
        self._made: tuple[Embedder, Callable[[str], Vectors]] | None = None
        self._index: HybridIndex | None = None
        self._derived_generation = -1
        self._profile = ArchiveProfile()
        self._dates: list[str] = []
        self._snapshots = store.snapshots_on(system_clock)
        self._lock = threading.RLock()

    def _query_embedder(self) -> tuple[Embedder, Callable[[str], Vectors]]:
        """The query embedder and its cached `embed_query`, made on first use (once,
        whichever thread asks first)."""
        with self._lock:
            if self._made is None:
                made = self._embedder()
                self._made = (made, lru_cache(maxsize=256)(made.embed_query))
            return self._made

    @property
    def embedder(self) -> Embedder:
        return self._query_embedder()[0]

    def _embed(self, query: str) -> Vectors:
        return self._query_embedder()[1](query)

    # ------------------------------------------------------------------ index lifecycle

    def index_if_current(self) -> HybridIndex | None:
        index = self._index or HybridIndex.open(self.settings.index_dir)
        if index is not None and index.generation == self.store.generation():
            return index
        return None

    def refresh(self) -> HybridIndex | None:
        """Open the index, rebuilding it first when the store has changed since it was built.

        Safe from several threads and processes: one thread of this desk at a time, and
        one process at a time per index directory (an exclusive lock on `<dir>.lock`,
        under which the index is opened again, so a build another process just finished
        is used, not repeated)."""
        with self._lock:
            generation = self.store.generation()
            if self._index is not None and self._index.generation == generation:
                return self._index
            index = HybridIndex.open(self.settings.index_dir)
            if index is None or index.generation != generation:
                with _exclusive(self.settings.index_dir):
                    index = HybridIndex.open(self.settings.index_dir)
                    if index is None or index.generation != generation:
                        index = self._build()
            self._index = index
            return index

    def _build(self) -> HybridIndex | None:
        rows = self.store.export_index_rows()
        if len(rows) == 0:
            return None
        return HybridIndex.build(
            self.settings.index_dir,
            IndexRows(
                rows.passage_ids, rows.doc_ids, rows.texts, rows.titles, rows.dates, rows.vectors
            ),
            rows.generation,
        )

    def _current(self) -> HybridIndex:
        if self.store.get_meta(PREPARING_KEY):
            raise LookupError("The archive is still being prepared: ask again once it is ready.")
        with self._lock:
            index = self.refresh()
            if index is None:
                raise LookupError("The archive has no passages to search.")
            if self._derived_generation != index.generation:
                self._load_derived()
                self._derived_generation = index.generation
            return index

    def _load_derived(self) -> None:
        metas = list(self.store.iter_documents_meta())
        dates = sorted(m.date[:10] for m in metas if m.date)
        self._dates = dates
        self._profile = ArchiveProfile(
            min_date=dates[0] if dates else None,
            max_date=dates[-1] if dates else None,
            entities=entities_from_documents(metas),
        )

    # ------------------------------------------------------------------ ArchiveAccess

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]:
        index = self._current()
        s = self.settings
        ranked = index.search(
            query,
            self._embed(query),
            k=k,
            windows=tuple(windows),
            mode="hybrid",
            fusion=s.fusion,
            candidates=s.retrieve_k,
            rrf_k=s.rrf_k,
        )
        passages = {p.id: p for p in self.store.passages_by_ids([r.passage_id for r in ranked])}
        return [
            Hit(
                passage=passages[r.passage_id],
                score=r.score,
                lexical_score=r.lexical_score,
                lexical_rank=r.lexical_rank,
                dense_score=r.dense_score,
                dense_rank=r.dense_rank,
                doc_date=r.doc_date,
            )
            for r in ranked
            if r.passage_id in passages
        ]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        """Archive documents, and pages and files read for runs (`web-...` snapshots)."""
        found = self.store.get_documents(doc_ids)
        rest = [d for d in doc_ids if d not in found and d.startswith(SNAPSHOT_PREFIXES)]
        if rest:
            found.update(self._snapshots.documents(rest))
        return found

    def texts(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The text each (doc_id, content hash) names: the archive's, current or kept since
        a re-ingest, or a snapshot's (whose text never changes)."""
        wanted = list(pairs)
        out = {key: found.text for key, found in self.store.texts_by_hash(wanted).items()}
        rest = [(d, sha) for d, sha in wanted if (d, sha) not in out]
        if rest:
            docs = self._snapshots.documents(d for d, _ in rest)
            for d, sha in rest:
                doc = docs.get(d)
                if doc is not None and doc.content_sha256 == sha:
                    out[d, sha] = doc.text
        return out

    def stats(self) -> ArchiveStats:
        index = self._current()
        return ArchiveStats(
            num_passages=index.count,
            doc_freq=index.doc_freq,
            phrase_freq=index.phrase_freq,
            docs_in_window=self.docs_in_window,
        )

    def docs_in_window(self, window: TimeWindow) -> int:
        self._current()
        lo = bisect.bisect_left(self._dates, window.start[:10])
        hi = bisect.bisect_right(self._dates, window.end[:10])
        return max(0, hi - lo)

    def profile(self) -> ArchiveProfile:
        self._current()
        return self._profile
