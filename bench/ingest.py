"""Ingest throughput: the bundled sample and the digital.gov archive, from cold.

Each run ingests into a fresh data directory with a fresh (empty) embedding cache, so the
model embeds every passage, as on a new user's first `ingest --sample sotu`. A second ingest
of the same data into another fresh directory shows what the shared embedding cache saves.
Baseline: the product bar, the whole sample embedded in 180 s on two cores.

Run: `python -m bench.ingest` (`--only sotu|digitalgov`, `--repeat N` for a median).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings

from ._util import SHARED_DATA, peak_rss_mb

DIGITALGOV_RAW = SHARED_DATA / "digitalgov-news" / "raw" / "content" / "news"
BAR_SECONDS = 180.0


def _ingest(kind: str, home: Path, cache: Path) -> tuple[float, int, int]:
    desk = Desk(Settings(home=home, cache_dir=cache))
    t0 = time.perf_counter()
    summary = desk.ingest_sample("sotu") if kind == "sotu" else desk.ingest([DIGITALGOV_RAW])
    seconds = time.perf_counter() - t0
    return seconds, summary.documents, desk.store.count_passages()


def measure(kind: str, repeat: int) -> dict[str, float]:
    cold: list[float] = []
    warm: list[float] = []
    docs = passages = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            seconds, docs, passages = _ingest(kind, base / "a", base / "cache")
            cold.append(seconds)
            seconds, _, _ = _ingest(kind, base / "b", base / "cache")
            warm.append(seconds)
    cold_s = statistics.median(cold)
    return {
        "documents": docs,
        "passages": passages,
        "cold_s": round(cold_s, 1),
        "cached_s": round(statistics.median(warm), 1),
        "passages_per_s": round(passages / cold_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["sotu", "digitalgov"])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["sotu", "digitalgov"]
    if "digitalgov" in kinds and not DIGITALGOV_RAW.exists():
        print(f"skipping digital.gov: {DIGITALGOV_RAW} not found")
        kinds.remove("digitalgov")
    print(
        "| archive | documents | passages | cold s (median) | passages/s | vs 180 s bar |"
        " with warm cache s |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind in kinds:
        r = measure(kind, args.repeat)
        ratio = r["cold_s"] / BAR_SECONDS
        print(
            f"| {kind} | {r['documents']:,} | {r['passages']:,} | {r['cold_s']} |"
            f" {r['passages_per_s']} | {ratio:.2f}x | {r['cached_s']} |"
        )
    print(
        f"peak RSS: this process {peak_rss_mb():.0f} MB, largest embedding worker "
        f"{peak_rss_mb(children=True):.0f} MB"
    )


if __name__ == "__main__":
    main()
