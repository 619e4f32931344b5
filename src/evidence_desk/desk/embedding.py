"""The desk's embedders: one per archive for its vectors and queries, one fp32 for judging.

`DeskEmbedding` is the part of `Desk` that knows which embedder an archive uses
(`retrieval/embedders.py`), builds the bulk embedder for ingest (worker processes, with a
watchdog that restarts hung workers), estimates how long an embedding job will take, and
re-embeds a whole archive when the settings name another embedder (`reembed`).

Estimates come from measurements, never from a constant: every ingest or re-embed that
embedded enough passages records its rate (passages/s) for its embedder and worker count in
`<cache>/embed-rates.json`; the next estimate uses the latest one. With no rate recorded yet,
the estimate times a small probe of the job's own texts in this process (a few seconds,
model load excluded) and scales it by the number of workers, less a tenth.

Child processes (embedding workers, the one-time model build) ignore SIGINT: Ctrl-C in a
terminal reaches the whole process group, and it is the parent that decides how its
children end (it terminates them), so none of them dies mid-chunk printing a traceback.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..archive.chunking import chunk
from ..archive.loaders import load_file, sample_files
from ..archive.results import Loaded, LoadResult
from ..errors import DeskError
from ..hashing import sha256_text
from ..retrieval.embedder import Embedder, TokenEmbedder, Vectors
from ..retrieval.embedders import (
    check_embedder,
    check_queries,
    chosen_name,
    describe,
    describe_embedder,
    make_embedder,
    meta_items,
    models_home,
    recorded,
    same_vectors,
    target_name,
    vector_tag,
)
from ..retrieval.onnxembed import OnnxEmbedder
from ..retrieval.parallel import ParallelEmbedder, resolve_workers
from ..settings import Settings
from ..store.embedding_cache import EmbeddingCache
from ..store.protocol import Store

RATES_FILE = "embed-rates.json"
MIN_RATED = 500  # passages: a job shorter than this says little about the rate
PROBE = 48  # passages embedded in-process to estimate a job with no recorded rate
LONG_JOB = 2000  # passages: below this no estimate is printed (it would take seconds)
SAMPLE_FILES = 64  # files read to estimate an ingest of folders ...
SAMPLE_BYTES = 8 * 1024 * 1024  # ... and about this many of their bytes at most
SAMPLE_MIN_BYTES = 512 * 1024  # less than this in all: too short a job to estimate


@dataclass(frozen=True)
class Estimate:
    """How long embedding `passages` should take with `embedder` on this machine."""

    passages: int
    seconds: float
    rate: float  # passages per second
    embedder: str
    basis: str  # where the rate comes from, for the message
    counted: str = ""  # how the passages were counted when not all of them were (a sample)

    def sentence(self) -> str:
        minutes = self.seconds / 60
        took = f"about {minutes:.0f} minutes" if minutes >= 1.5 else "about a minute"
        if self.seconds < 45:
            took = f"about {self.seconds:.0f} s"
        many = f"{self.passages:,} passages"
        if self.counted:
            many = f"about {_rounded(self.passages):,} passages ({self.counted})"
        return (
            f"Embedding {many} with {self.embedder}: {took} "
            f"(~{self.rate:.0f} passages/s, {self.basis})."
        )


def _rounded(n: int) -> int:
    """Two significant figures: an extrapolated count claims no more."""
    digits = max(len(str(n)) - 2, 0)
    return int(round(n, -digits))


@dataclass(frozen=True)
class ReembedSummary:
    """What `reembed` did: passages rewritten, from which embedder to which, and how fast."""

    passages: int
    texts_embedded: int
    texts_cached: int
    before: str
    after: str
    seconds: float


def worker_embedder(
    name: str,
    models: str,
    precision: str,
    batch_size: int,
    threads: int | None = None,
) -> TokenEmbedder:
    """Builds the named embedder inside a worker process (picklable through `partial`)."""
    if multiprocessing.parent_process() is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends its workers
    settings = Settings(
        cache_dir=Path(models), embed_precision=precision, embed_batch_size=batch_size
    )
    return make_embedder(name, settings, threads=threads)


def _build_model(name: str, models: str, precision: str, batch_size: int) -> None:
    """A child process's whole work: build `name`'s model file (`DeskEmbedding.build_apart`).
    Terminated, it exits through `SystemExit`, so its temporary build files are removed."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    embedder = worker_embedder(name, models, precision, batch_size)
    ensure = getattr(embedder, "ensure_built", None)
    if ensure is not None:
        ensure()


class DeskEmbedding:
    """Embedders of one data directory; `Desk.embedder`, `Desk.reembed` and the estimates."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store

    # ------------------------------------------------------------------ in-process embedders

    @cached_property
    def query(self) -> TokenEmbedder:
        """The archive's own embedder, for its queries (one thread: see `Desk.embedder`)."""
        embedder = make_embedder(chosen_name(self.settings, self.store), self.settings, threads=1)
        check_queries(self.store, embedder)
        return embedder

    @cached_property
    def judge(self) -> Embedder:
        """What the offline answerer, auditor and web-page scoring embed with: the query
        embedder when it is an fp32 one, else the fp32 ONNX path (the PyTorch vectors to
        ~1e-7, on which the auditor's thresholds were calibrated)."""
        name = chosen_name(self.settings, self.store)
        if name in ("torch", "onnx-fp32"):
            return self.query
        # Beside int8 vectors, or an archive made by an embedder this desk cannot name (a
        # test's), judging needs no archive vectors: the fp32 path of the same model.
        return make_embedder("onnx-fp32" if name == "onnx-int8" else "torch", self.settings)

    def bulk_name(self) -> str:
        """The embedder an ingest writes with: the settings' when they name one, else the
        archive's own (a mismatch is refused by the ingest, naming `reembed`)."""
        s = self.settings
        return s.embedder if s.embedder != "auto" else chosen_name(s, self.store)

    def check_ingest(self, name: str) -> None:
        """Refuses an ingest by `name` into an archive of another embedder, before any model
        file is built or worker started (the ingest itself checks again)."""
        check_embedder(self.store, make_embedder(name, self.settings))

    def prepare(self, name: str, notice: Callable[[str], None]) -> None:
        """Builds `name`'s model file now when the cache has none, saying so first through
        `notice`: the one-time export takes about half a minute, which would otherwise pass in
        silence before an ingest's estimate or first progress. (An int8 build makes the fp32
        file the judge uses too.)"""
        embedder = make_embedder(name, self.settings)
        sentence = self.build_notice(name)
        if sentence is None or not isinstance(embedder, OnnxEmbedder):
            return
        notice(sentence)
        embedder.ensure_built()

    def build_notice(self, name: str) -> str | None:
        """What building `name`'s model file means, when this machine has none yet (else
        None: nothing to build)."""
        embedder = make_embedder(name, self.settings)
        if not isinstance(embedder, OnnxEmbedder) or embedder.is_built():
            return None
        quantised = " and quantised to int8" if name == "onnx-int8" else ""
        return (
            f"Preparing {describe_embedder(embedder)} on this machine, once: the shipped "
            f"weights are exported to ONNX{quantised} and checked (about half a minute)."
        )

    def build_apart(self, name: str, stopped: Callable[[], bool], poll: float = 0.2) -> bool:
        """Builds `name`'s model file in a child process, so that `stopped()` turning true
        ends the build at once (the child is terminated; a build is renamed into place whole
        or not at all, `onnxbuild.py`) instead of after the export's half minute. False when
        stopped; a failed build is a `DeskError`, its traceback on stderr."""
        s = self.settings
        child = multiprocessing.get_context("spawn").Process(
            target=_build_model,
            args=(name, str(models_home(s)), s.embed_precision, s.embed_batch_size),
            name="evidence-desk-build",
            daemon=True,
        )
        child.start()
        try:
            while child.is_alive():
                if stopped():
                    child.terminate()
                    child.join(10)
                    return False
                child.join(poll)
        finally:
            if child.is_alive():
                child.kill()
                child.join()
        if child.exitcode != 0:
            raise DeskError(
                f"Building the {name} embedder failed (exit status {child.exitcode}); "
                "see the error above."
            )
        return True

    def bulk(self, name: str, on_restart: Callable[[str], None] | None = None) -> ParallelEmbedder:
        """Worker processes running `name`, its model file built first (once per cache)."""
        s = self.settings
        factory = functools.partial(
            worker_embedder, name, str(models_home(s)), s.embed_precision, s.embed_batch_size
        )
        bulk = ParallelEmbedder.from_settings(s, factory=factory, on_restart=on_restart)
        ensure = getattr(bulk.local, "ensure_built", None)
        if ensure is not None:
            try:
                ensure()
            except BaseException:
                bulk.close()
                raise
        return bulk

    # ------------------------------------------------------------------ estimates

    def to_embed(
        self, results: Sequence[LoadResult], name: str, embedder: Embedder | None = None
    ) -> dict[str, str]:
        """Texts an ingest of `results` would have to embed with `name` (or with `embedder`
        itself, when given) by hash: the passages that neither the archive nor the
        embedding cache holds a vector for."""
        s = self.settings
        texts: dict[str, str] = {}
        for result in results:
            if isinstance(result, Loaded):
                for p in chunk(result.document, s.passage_words, s.passage_max_words):
                    texts.setdefault(sha256_text(p.text), p.text)
        rec = recorded(self.store)
        probe = embedder or make_embedder(name, s)
        if rec is not None and same_vectors(rec, probe):
            for digest in self.store.vectors_for_text_hashes(list(texts)):
                texts.pop(digest, None)
        cache = self._cache()
        if cache is not None and texts:
            for digest in cache.get_many(probe.model_id, vector_tag(probe), list(texts)):
                texts.pop(digest, None)
        return texts

    def estimate_files(self, paths: Sequence[Path], name: str) -> Estimate | None:
        """How long an ingest of `paths` embeds with `name`, from an even sample of their
        files: the sample's passages still to embed, scaled by all the files' bytes over the
        sample's. Their passages are known only once every file is read, and reading a
        sample costs seconds, not a second pass over the archive."""
        sample = sample_files(paths, SAMPLE_FILES, SAMPLE_BYTES)
        if sample.total_bytes < SAMPLE_MIN_BYTES or not sample.sampled_bytes:
            return None
        results = [r for path, doc_id in sample.files for r in load_file(path, doc_id)]
        texts = list(self.to_embed(results, name).values())
        everything = len(sample.files) == sample.total_files
        counted = "" if everything else f"from {len(sample.files)} of {sample.total_files:,} files"
        scale = sample.total_bytes / sample.sampled_bytes
        return self.estimate(texts, name, scale, counted)

    def estimate(
        self,
        texts: Sequence[str],
        name: str,
        scale: float = 1.0,
        counted: str = "",
        *,
        probe: bool = True,
    ) -> Estimate | None:
        """How long embedding `texts` with `name` takes here; None for a short job. `texts`
        may be a sample standing for `scale` times as many (`counted` says how it was made).
        Without `probe`, only a rate on record answers (the probe loads the model)."""
        passages = round(len(texts) * scale)
        if passages < LONG_JOB:
            return None
        workers = resolve_workers(self.settings.embed_workers)
        embedder = make_embedder(name, self.settings)
        rate = self._recorded_rate(name, workers)
        basis = "the rate of the last ingest on this machine"
        if rate is None and not probe:
            return None
        if rate is None:
            rate = self._probe_rate(embedder, texts) * workers * 0.9
            basis = f"a {PROBE}-passage probe, scaled to {workers} workers"
        return Estimate(
            passages, passages / rate, rate, describe_embedder(embedder), basis, counted
        )

    def record_rate(self, name: str, passages: int, seconds: float) -> None:
        """Remembers how fast `name` embedded a job of `passages` (ignored when short)."""
        if passages < MIN_RATED or seconds <= 0:
            return
        path = self._rates_path()
        rates = self._rates()
        rates[f"{name}/{resolve_workers(self.settings.embed_workers)}"] = round(
            passages / seconds, 2
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(rates, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            return  # a rate is a hint for the next estimate, never a reason to fail

    # ------------------------------------------------------------------ re-embedding

    def reembed(
        self, name: str, progress: Callable[[int, int], None] | None = None
    ) -> ReembedSummary:
        """Every passage's vector made again by `name`, stored in one transaction with the
        new embedder's record; on any failure the archive keeps all of its old vectors."""
        started = time.perf_counter()
        generation, texts = self.store.passage_texts()
        if not texts:
            raise DeskError("The archive has no passages to re-embed.")
        rec = recorded(self.store)
        before = "none" if rec is None else f"{rec.name or 'torch'}"
        target = make_embedder(name, self.settings)
        vectors: dict[str, Vectors] = {}
        cache = self._cache()
        if cache is not None:
            vectors.update(cache.get_many(target.model_id, vector_tag(target), list(texts)))
        todo = [h for h in texts if h not in vectors]
        done = len(vectors)
        if progress is not None:
            progress(done, len(texts))
        if todo:
            fresh = self._embed_all(name, [texts[h] for h in todo], done, len(texts), progress)
            new = dict(zip(todo, fresh, strict=True))
            vectors.update(new)
            if cache is not None:
                cache.put_many(target.model_id, vector_tag(target), new)
            self.record_rate(name, len(todo), time.perf_counter() - started)
        rows = self.store.replace_vectors(vectors, generation, meta_items(target))
        self.__dict__.pop("query", None)
        self.__dict__.pop("judge", None)
        return ReembedSummary(
            passages=rows,
            texts_embedded=len(todo),
            texts_cached=len(texts) - len(todo),
            before=before,
            after=name,
            seconds=time.perf_counter() - started,
        )

    def _embed_all(
        self,
        name: str,
        texts: list[str],
        done: int,
        total: int,
        progress: Callable[[int, int], None] | None,
    ) -> Vectors:
        count = [done]

        def step(n: int) -> None:
            count[0] += n
            if progress is not None:
                progress(count[0], total)

        with self.bulk(name) as bulk:
            out = np.asarray(bulk.embed(texts, progress=step), dtype=np.float32)
        return out

    # ------------------------------------------------------------------ helpers

    def summary(self) -> str:
        """The archive's embedder for `status`, and what `reembed` would switch to."""
        rec = recorded(self.store)
        if rec is None:
            return f"none yet (a first ingest uses {self.target()})"
        line = describe(rec)
        target = make_embedder(self.target(), self.settings)
        if self.settings.embedder != "auto" and not same_vectors(rec, target):
            line += f"; the settings name {self.target()}: run `evidence-desk reembed`"
        return line

    def target(self) -> str:
        return target_name(self.settings)

    def _cache(self) -> EmbeddingCache | None:
        d = self.settings.cache_dir
        return EmbeddingCache(d) if d else None

    def _rates_path(self) -> Path:
        return models_home(self.settings) / RATES_FILE

    def _rates(self) -> dict[str, Any]:
        path = self._rates_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _recorded_rate(self, name: str, workers: int) -> float | None:
        value = self._rates().get(f"{name}/{workers}")
        return float(value) if isinstance(value, int | float) and value > 0 else None

    @staticmethod
    def _probe_rate(embedder: TokenEmbedder, texts: Sequence[str]) -> float:
        sample = list(texts[:: max(1, len(texts) // PROBE)][:PROBE])
        embedder.embed(sample[:2])  # the model loads outside the timing
        t0 = time.perf_counter()
        embedder.embed(sample)
        return len(sample) / max(time.perf_counter() - t0, 1e-6)
