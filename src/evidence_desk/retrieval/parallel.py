"""Bulk embedding for ingest, spread over worker processes.

Ingest embeds every passage of an archive once; on a small CPU that is the slowest step of
ingest by far, so it gets its own engine. `ParallelEmbedder` keeps the `Embedder` protocol
and splits the work across N spawned worker processes, each holding one copy of the model
(any `TokenEmbedder`: the worker builds it from a picklable factory) and running it with
one intra-op thread:

* the parent tokenizes everything first (the Rust tokenizer is fast), sorts by token count
  and cuts the sorted order into chunks of a few model batches, so each batch is padded
  to almost nothing;
* chunks go to the workers longest first through one shared queue: a worker takes the next
  chunk when it is free, so token counts even out and all workers finish within one short
  chunk of each other;
* progress callbacks fire as chunks come back, in any order; results land in their rows;
* a worker that dies (killed, out of memory) or stops answering — no chunk came back for
  `worker_timeout` seconds — gets the pool torn down (live workers are terminated) and a
  new one started; the chunks not yet back are redone, so the result is the same as
  without the failure. After `max_restarts` restarts within one call the call fails with
  `EmbeddingWorkerError`: a fault that repeats is not retried for ever.

Few texts (under `min_parallel`) or one worker run in this process: spawning workers and
loading the model twice costs seconds. Query embedding always stays in this process.

Measured with `python -m bench.embedding` (2 vCPUs with AVX512-BF16/AMX, shared with other
jobs at load 0.8-2.3; 1,000 sample passages of 164 tokens on average; medians of 2 runs):

    setup (all-MiniLM-L6-v2)                    passages/s  CPU ms/passage
    in-process fp32, 2 threads, batch 32 (base)     43-45       44-46
    in-process bf16, 2 threads, batch 32             90          22
    in-process bf16, 2 threads, batch 16            100          20
    in-process bf16, 1 thread,  batch 32             76          14
    2 workers x 1 thread, bf16, batch 8              99          20
    2 workers x 1 thread, bf16, batch 16         126-132         15-16
    2 workers x 1 thread, bf16, batch 32            108          16
    2 workers x 1 thread, bf16, batch 64             73          21
    batch 16, default inter-op threads              120          16

So: two single-threaded workers beat one process with two threads (OpenMP threads in one
process stall on each other and on other jobs), and batches of 16 beat larger ones. The
whole sample (14,605 passages, 2.40 M tokens) took 123 s end to end with 2 workers and
batch 16, worker start-up and model load included (118 passages/s); 259 s with batch 32
while other jobs held about one core. Set `embed_batch_size` to 16 for ingest.

The in-process model runs torch with one thread (`query_threads`): a single query took
12.8 ms p50 / 17.5 ms p95 that way on the busy box, against 76 / 492 ms with two threads.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ..errors import DeskError
from ..settings import Settings
from .embedder import DIM, MiniLMEmbedder, TokenEmbedder, Vectors

Precision = Literal["auto", "fp32", "bf16"]
MAX_AUTO_WORKERS = 4
WORKER_TIMEOUT = 120.0
MAX_RESTARTS = 2
# Makes one worker's (or the parent's) embedder; `threads` is its intra-op thread count.
# It crosses to spawned workers by pickling: a module-level function or a partial of one.
EmbedderFactory = Callable[..., TokenEmbedder]

if TYPE_CHECKING:
    _Finalizer = weakref.finalize[[ProcessPoolExecutor, bool], "ParallelEmbedder"]
# The one embedder of a worker process, made by `_init_worker` before any chunk arrives.
_worker_embedder: TokenEmbedder | None = None


class EmbeddingWorkerError(DeskError, RuntimeError):
    """Embedding workers kept dying or hanging; the pool has been shut down."""


def torch_embedder(
    threads: int | None,
    precision: Precision = "auto",
    batch_size: int = 16,
    interop_threads: int | None = None,
) -> TokenEmbedder:
    """The PyTorch reference embedder, as a worker factory."""
    return MiniLMEmbedder(
        precision=precision,
        batch_size=batch_size,
        threads=threads,
        interop_threads=interop_threads,
    )


def _init_worker(factory: EmbedderFactory, threads: int) -> None:
    global _worker_embedder
    _worker_embedder = factory(threads=threads)


def _worker_pid() -> int:
    return os.getpid()


def _worker_embed(chunk: list[npt.NDArray[np.int32]]) -> Vectors:
    assert _worker_embedder is not None, "worker initializer did not run"
    return _worker_embedder.embed_token_ids(chunk)


def resolve_workers(requested: int) -> int:
    """`embed_workers` from settings: 0 means one per CPU core, at most 4."""
    if requested > 0:
        return requested
    return max(1, min(os.cpu_count() or 1, MAX_AUTO_WORKERS))


def plan_chunks(lengths: Sequence[int], chunk_size: int) -> list[npt.NDArray[np.intp]]:
    """Row indices per chunk: length-sorted runs of `chunk_size`, longest chunk first.

    Invariant: every row appears in exactly one chunk.
    """
    order = np.argsort(np.asarray(lengths, dtype=np.int64), kind="stable")[::-1]
    return [order[i : i + chunk_size] for i in range(0, len(order), chunk_size)]


class ParallelEmbedder:
    """One embedder across worker processes for bulk work; in-process for queries."""

    def __init__(
        self,
        workers: int = 0,
        precision: Precision = "auto",
        batch_size: int = 16,
        threads_per_worker: int = 1,
        interop_threads: int | None = 1,
        batches_per_chunk: int = 4,
        min_parallel: int = 256,
        query_threads: int | None = 1,
        *,
        factory: EmbedderFactory | None = None,
        worker_timeout: float = WORKER_TIMEOUT,
        max_restarts: int = MAX_RESTARTS,
        on_restart: Callable[[str], None] | None = None,
    ) -> None:
        self.workers = resolve_workers(workers)
        self._factory: EmbedderFactory = factory or functools.partial(
            torch_embedder,
            precision=precision,
            batch_size=batch_size,
            interop_threads=interop_threads,
        )
        self._threads = threads_per_worker
        self._chunk_size = batch_size * batches_per_chunk
        self._min_parallel = min_parallel
        self._timeout = worker_timeout
        self._max_restarts = max_restarts
        self.on_restart = on_restart
        self.restarts = 0  # over this embedder's life: what an ingest reports
        # The in-process model serves queries (and small batches) while workers do bulk
        # work; with one worker it does everything and may use every core.
        self._local = self._factory(threads=query_threads if self.workers > 1 else None)
        self.model_id = self._local.model_id
        self.dim = self._local.dim
        self.name = self._local.name
        self._pool: ProcessPoolExecutor | None = None
        self._finalizer: _Finalizer | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, factory: EmbedderFactory | None = None, **kwargs: Any
    ) -> ParallelEmbedder:
        """Built from `embed_workers`, `embed_precision`, `embed_batch_size` and
        `embed_worker_timeout`; `factory` names another embedder than the torch one."""
        return cls(
            workers=settings.embed_workers,
            precision=settings.embed_precision,
            batch_size=settings.embed_batch_size,
            factory=factory,
            worker_timeout=settings.embed_worker_timeout,
            **kwargs,
        )

    @property
    def precision(self) -> str:
        """The precision the workers run in (`auto` resolved for this CPU)."""
        return self._local.precision

    @property
    def tag(self) -> str:
        return self._local.tag

    @property
    def local(self) -> TokenEmbedder:
        """The in-process embedder (queries, small jobs, tokenizing for the workers)."""
        return self._local

    # ------------------------------------------------------------------ Embedder protocol

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        if self.workers <= 1 or len(texts) < self._min_parallel:
            return self._local.embed(texts, progress)
        ids = self._local.tokenize(texts)
        todo = plan_chunks([len(x) for x in ids], self._chunk_size)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        restarts = 0
        while todo:
            problem = self._run_chunks(ids, todo, out, progress)
            if problem is None:
                break
            restarts += 1
            self.restarts += 1
            if restarts > self._max_restarts:
                raise EmbeddingWorkerError(
                    f"Embedding workers failed {restarts} times in a row ({problem}); "
                    "lower embed_workers or embed_batch_size and ingest again."
                )
            if self.on_restart is not None:
                self.on_restart(problem)
        return out

    def _run_chunks(
        self,
        ids: Sequence[npt.NDArray[np.int32]],
        todo: list[npt.NDArray[np.intp]],
        out: Vectors,
        progress: Callable[[int], None] | None,
    ) -> str | None:
        """Runs `todo` through the pool, removing each chunk that comes back.

        None when all came back; else why the pool was torn down (the rest stay in `todo`).
        """
        pool = self._ensure_pool()
        pending: dict[Future[Vectors], npt.NDArray[np.intp]] = {}
        try:
            for rows in todo:
                pending[pool.submit(_worker_embed, [ids[r] for r in rows])] = rows
            while pending:
                done, _ = wait(pending, timeout=self._timeout, return_when=FIRST_COMPLETED)
                if not done:
                    self._abort()
                    return f"no batch came back for {self._timeout:g} s: a worker hung"
                for fut in done:
                    rows = pending.pop(fut)
                    out[rows] = fut.result()
                    _remove(todo, rows)
                    if progress is not None:
                        progress(len(rows))
        except BrokenProcessPool:
            self._abort()
            return "a worker process stopped unexpectedly (killed or out of memory)"
        except BaseException:
            self._abort()
            raise
        return None

    def embed_query(self, text: str) -> Vectors:
        return self._local.embed_query(text)

    # ------------------------------------------------------------------ pool lifetime

    def start(self) -> list[int]:
        """Starts the worker processes now (models load with the first chunk); their pids."""
        pool = self._ensure_pool()
        try:
            # With the spawn context each submit starts one more worker, up to `workers`.
            for fut in [pool.submit(_worker_pid) for _ in range(self.workers)]:
                fut.result()
        except BrokenProcessPool as exc:
            self._abort()
            raise EmbeddingWorkerError(
                "An embedding worker process failed to start; see the error above."
            ) from exc
        return self.worker_pids()

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (empty when no pool is running)."""
        if self._pool is None:
            return []
        procs = getattr(self._pool, "_processes", None) or {}
        return sorted(int(pid) for pid in procs)

    def close(self) -> None:
        """Stops the workers after their current chunk. Safe to call twice."""
        if self._finalizer is not None:
            self._finalizer()
        self._pool, self._finalizer = None, None

    def __enter__(self) -> ParallelEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=get_context("spawn"),
                initializer=_init_worker,
                initargs=(self._factory, self._threads),
            )
            self._pool = pool
            self._finalizer = weakref.finalize(self, _shutdown, pool, False)
        return self._pool

    def _abort(self) -> None:
        """Tears the pool down without waiting: workers still busy are terminated."""
        pool = self._pool
        if pool is None:
            return
        if self._finalizer is not None:
            self._finalizer.detach()
        self._pool, self._finalizer = None, None
        _shutdown(pool, True)


def _shutdown(pool: ProcessPoolExecutor, terminate: bool) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=not terminate, cancel_futures=True)
    if terminate:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(timeout=5)


def _remove(todo: list[npt.NDArray[np.intp]], rows: npt.NDArray[np.intp]) -> None:
    for i, chunk in enumerate(todo):
        if chunk is rows:
            del todo[i]
            return
