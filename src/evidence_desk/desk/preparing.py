"""A sample archive prepared in the background while the workspace already serves.

`serve --sample sotu` on an empty data directory listens at once and hands the sample to a
`SamplePreparation`: one thread that reads the sample, builds the embedder (once per
machine, in a child process), embeds the passages with the ingest's worker processes, and
only then stores the documents and builds the index. How far it has come, and the time
left, is a `progress.ArchiveProgress`, which the terminal, every page and `/api/preparing`
show.

Readers never see half an archive. Nothing is written to the store while passages are
embedded: their vectors go to the embedding cache slice by slice (an interrupted
preparation's next run embeds only what is left) and are kept in memory. The documents are
then stored by the ingest, one transaction each, under a `preparing` mark in the archive's
meta, which `Desk` reads as "not ready" in this process and in any other; the mark goes
once the last document is stored. Until the preparation is ready, asking is refused with
`ArchivePreparing` (a 503 on the web) and no run is opened. Stopped (Ctrl-C), the thread
ends at its next progress step, the worker processes or the build are terminated, and the
documents it had stored are deleted: the archive is as it was before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..archive.ingest import IngestProgress, IngestSummary, ingest
from ..archive.results import Loaded, LoadResult
from ..archive.sample import load_sample
from ..errors import DeskError
from ..hashing import sha256_text
from ..progress import ArchiveProgress, ProgressTracker
from ..retrieval.embedder import Embedder, Vectors
from ..retrieval.embedders import make_embedder, vector_tag
from ..retrieval.parallel import ParallelEmbedder
from ..store.embedding_cache import EmbeddingCache
from .archive import PREPARING_KEY
from .workspace.errors import WorkspaceError

if TYPE_CHECKING:
    from .facade import Desk

SLICE = 1024  # passages per embedding call: how often vectors reach the cache
# Measured on 2 shared cores (`python -m bench.first_hour`): exporting, quantising and
# checking the ONNX model took 11 s at load 2.4; storing the sample (12.2 MB of text),
# building its index and opening the desk's parts took 3 s.
BUILD_SECONDS = 15.0
INDEX_SECONDS_PER_MB = 0.3
READ_SECONDS = 2.0

log = logging.getLogger("evidence_desk.prepare")


class PreparationStopped(Exception):
    """The preparation was asked to stop (the server is shutting down)."""


class ArchivePreparing(WorkspaceError):
    """A question asked before the archive is ready: refused, no run opened, a 503.

    `question` and `mode` are the refused question's, so the page saying so can keep it."""

    status = 503

    def __init__(
        self,
        progress: ArchiveProgress | None,
        question: str = "",
        mode: str = "quick",
        sentence: str | None = None,
    ) -> None:
        self.progress = progress
        self.question = question
        self.mode = mode
        super().__init__(sentence or refusal(progress))


def refusal(progress: ArchiveProgress | None) -> str:
    """`The archive is still being prepared: about 4 minutes left. Ask again once it is ready.`"""
    if progress is None or progress.eta is None:
        return "The archive is still being prepared. Ask again once it is ready."
    return f"The archive is still being prepared: {progress.left()}. Ask again once it is ready."


def unfinished(home: object, name: str) -> ArchivePreparing:
    """The refusal for an archive whose preparation left its mark and no thread here."""
    return ArchivePreparing(
        None,
        sentence=(
            f"The archive in {home} is still being prepared (the {name} sample) and is not "
            f"complete: wait for it, or run `evidence-desk serve --sample {name}` to finish it."
        ),
    )


class SamplePreparation:
    """The background preparation of one sample (see the module docstring).

    `load` reads what to ingest (default: the bundled sample `name`); `clock` is the
    progress tracker's (tests move it by hand).
    """

    def __init__(
        self,
        desk: Desk,
        name: str,
        *,
        load: Callable[[], Sequence[LoadResult]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.desk = desk
        self.name = name
        self._load = load or (lambda: list(load_sample(name)))
        self.tracker = ProgressTracker(clock)
        self.summary: IngestSummary | None = None
        self._stop = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._hooks: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._run, name=f"prepare-{name}", daemon=True)

    # ------------------------------------------------------------------ the outside's view

    def start(self) -> None:
        self._thread.start()

    def progress(self) -> ArchiveProgress:
        return self.tracker.snapshot()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the preparation has ended (ready, failed or stopped)."""
        return self._done.wait(timeout)

    def stop(self, timeout: float = 60.0) -> None:
        """Stops it at its next step and waits for its thread (and so its processes) to end.
        Safe to call twice, and after it ended."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("the preparation did not stop within %.0f s", timeout)

    @property
    def stopping(self) -> bool:
        """True once `stop` was called."""
        return self._stop.is_set()

    def when_ready(self, hook: Callable[[], None]) -> None:
        """Calls `hook` once the archive is ready (at once when it is already)."""
        with self._lock:
            if not self._done.is_set():
                self._hooks.append(hook)
                return
        if self.progress().ready:
            hook()

    def require_ready(self, question: str = "", mode: str = "quick") -> None:
        """`ArchivePreparing` while it works; a `DeskError` if it failed; else nothing."""
        progress = self.progress()
        if progress.working:
            raise ArchivePreparing(progress, question, mode)
        if progress.stage == "failed":
            raise DeskError(f"The archive could not be prepared: {progress.error}")

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        try:
            self._prepare()
        except PreparationStopped:
            self.tracker.finish("stopped")
        except DeskError as exc:
            log.error("the archive could not be prepared: %s", exc)
            self.tracker.finish("failed", str(exc))
        except Exception as exc:  # a bug: its traceback in the log, a sentence on the page
            log.exception("the archive could not be prepared")
            self.tracker.finish("failed", f"{type(exc).__name__}: {exc}")
        else:
            self.tracker.finish("ready")
        with self._lock:
            self._done.set()
            hooks, self._hooks = self._hooks, []
        if self.progress().ready:
            for hook in hooks:
                try:
                    hook()
                except Exception:  # a hook's failure is its own, not the preparation's
                    log.exception("a hook run once the archive was ready failed")

    def _check(self) -> None:
        if self._stop.is_set():
            raise PreparationStopped

    def _prepare(self) -> None:
        desk = self.desk
        name = desk.embedding.bulk_name()
        given = desk.given_embedder
        self.tracker.begin("reading", seconds=READ_SECONDS, later=None)
        results = list(self._load())
        self._check()
        if not any(isinstance(r, Loaded) for r in results):
            skipped = next((str(r) for r in results if not isinstance(r, Loaded)), "")
            raise DeskError(
                f"No document of the {self.name} sample could be read"
                + (f" ({skipped})." if skipped else ".")
            )
        if given is None:  # an archive of another embedder is refused before any build
            desk.embedding.check_ingest(name)
        texts = desk.embedding.to_embed(results, name, given)
        megabytes = sum(len(r.document.text) for r in results if isinstance(r, Loaded)) / 1e6
        index_seconds = INDEX_SECONDS_PER_MB * megabytes
        self._check()
        rate = None
        if given is None:
            self._build(name, texts, index_seconds)
            estimate = desk.embedding.estimate(list(texts.values()), name) if texts else None
            rate = estimate.rate if estimate else None
        self._check()
        self.tracker.begin("embedding", len(texts), "passages", rate=rate, later=index_seconds)
        vectors = self._embed(texts, name, given)
        documents = sum(isinstance(r, Loaded) for r in results)
        self.tracker.begin("indexing", documents, "documents", seconds=index_seconds)
        identity: Embedder = given or make_embedder(name, desk.settings)
        self._store(results, _Embedded(identity, vectors))
        desk.open_parts()  # the index is built here, and every part a run needs opened

    def _build(self, name: str, texts: Mapping[str, str], index_seconds: float) -> None:
        """The one-time model build, when this machine has none (else nothing)."""
        notice = self.desk.embedding.build_notice(name)
        if notice is None:
            return
        log.info(notice)
        # Time left: the build's, and the embedding's at the rate on record. With no rate
        # on record it is not known yet: a probe of the rate needs the model being built.
        later: float | None = index_seconds
        if texts:
            estimate = self.desk.embedding.estimate(list(texts.values()), name, probe=False)
            later = None if estimate is None else estimate.seconds + index_seconds
        self.tracker.begin("building the embedder", seconds=BUILD_SECONDS, later=later)
        if not self.desk.embedding.build_apart(name, self._stop.is_set):
            raise PreparationStopped

    def _embed(
        self, texts: Mapping[str, str], name: str, given: Embedder | None
    ) -> dict[str, Vectors]:
        """Every text's vector, in slices of `SLICE`, each slice's into the cache at once.
        Texts go in the order of their hashes, not the archive's: each slice is then a fair
        sample of the whole job (the sample's earliest addresses average 168 tokens a
        passage, its latest 159), so the rate measured so far is the rate of what is left."""
        if not texts:
            return {}
        s = self.desk.settings
        cache = EmbeddingCache(s.cache_dir) if s.cache_dir else None
        bulk = given or self.desk.embedding.bulk(name)
        started = time.perf_counter()
        done = 0
        out: dict[str, Vectors] = {}

        def step(n: int) -> None:
            nonlocal done
            done += n
            self.tracker.advance(done)
            self._check()

        items = sorted(texts.items())
        try:
            for i in range(0, len(items), SLICE):
                part = items[i : i + SLICE]
                made = np.asarray(bulk.embed([t for _, t in part], progress=step), np.float32)
                new = {digest: vector for (digest, _), vector in zip(part, made, strict=True)}
                out.update(new)
                if cache is not None:
                    cache.put_many(bulk.model_id, vector_tag(bulk), new)
        finally:
            if isinstance(bulk, ParallelEmbedder):
                bulk.close()
            if cache is not None:
                cache.close()
        if given is None:
            self.desk.embedding.record_rate(name, len(texts), time.perf_counter() - started)
        return out

    def _store(self, results: Sequence[LoadResult], embedded: _Embedded) -> None:
        """The ingest, under the `preparing` mark; stopped or failed, what it stored goes."""
        desk = self.desk
        store, s = desk.store, desk.settings
        before = store.get_meta(PREPARING_KEY) or ""
        existing = {m.doc_id for m in store.iter_documents_meta()}
        stored: list[str] = []

        def on_event(event: IngestProgress) -> None:
            if event.event == "stored":
                stored.append(event.item)
                self.tracker.count(event.documents_stored)
            self._check()

        cache = EmbeddingCache(s.cache_dir) if s.cache_dir else None  # the vectors made before
        store.set_meta(PREPARING_KEY, self.name)
        try:
            self.summary = ingest(
                results,
                store,
                embedded,
                target_words=s.passage_words,
                max_words=s.passage_max_words,
                cache=cache,
                on_progress=on_event,
            )
        except BaseException:
            for doc_id in stored:
                if doc_id not in existing:
                    store.delete(doc_id)
            store.set_meta(PREPARING_KEY, before)
            raise
        finally:
            if cache is not None:
                cache.close()
        store.set_meta(PREPARING_KEY, "")


class _Embedded:
    """The bulk embedder's identity over the vectors it has already made, so the ingest
    stores them without embedding again (a text it lacks is embedded by `inner`)."""

    def __init__(self, inner: Embedder, vectors: Mapping[str, Vectors]) -> None:
        self.model_id = inner.model_id
        self.dim = inner.dim
        for attr in ("name", "tag", "precision"):  # what `embedders.py` reads, if present
            if hasattr(inner, attr):
                setattr(self, attr, getattr(inner, attr))
        self._inner = inner
        self._vectors = vectors

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        hashes = [sha256_text(t) for t in texts]
        missing = [t for h, t in zip(hashes, texts, strict=True) if h not in self._vectors]
        extra: dict[str, Vectors] = {}
        if missing:  # made before but no longer found (the cache was disabled since)
            log.warning("embedding %d passages again, in this process", len(missing))
            extra = dict(zip(map(sha256_text, missing), self._inner.embed(missing), strict=True))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, digest in enumerate(hashes):
            out[row] = self._vectors[digest] if digest in self._vectors else extra[digest]
        if progress is not None and texts:
            progress(len(texts))
        return out

    def embed_query(self, text: str) -> Vectors:
        return self._inner.embed_query(text)
