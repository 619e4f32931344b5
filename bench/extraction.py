"""Main-text extraction on 181 real news pages: how close our web reader's text is to the truth.

    .venv/bin/python -m bench.extraction            # all 181 pages, plus plain trafilatura
    .venv/bin/python -m bench.extraction --quick    # the first 20 pages, our reader only

Data: the article-extraction-benchmark of Scrapinghub/Zyte (MIT; `html/*.html.gz`, fetched
with JS disabled, UTF-8, and `ground-truth.json`, the article body of each page), read from
the shared data folder (`article-extraction/`). Each page goes through `read_page` exactly
as a fetched page would (`text/html; charset=utf-8`, the page's URL, default limits), one
child process per page, back to back: each page waits for the spare child to warm up, so
the per-page time is a throughput figure. The latency of a page that finds the spare ready
(and of a cold child) is measured apart, on trivial pages, in the first table.

Scoring is the repository's `evaluate.py`, re-implemented: text -> `\\w+` tokens -> 4-gram
shingles (multisets); per page TP/FP/FN normalised to sum 1; precision and recall are the
means over pages, F1 is computed from those two means; accuracy is the share of pages whose
token sequence equals the truth's. The same is printed for single words (n=1), the plain
word-level figure. A refused page scores as an empty prediction.

Published figures (the repository's README.rst at 4a3bc979, the commit the data comes
from; 4-gram shingles):

    extractor          version   F1     precision  recall  accuracy
    trafilatura        2.0.0     0.958  0.938      0.978   0.293
    go_trafilatura     ae7ea06   0.960  0.940      0.980   0.287
    newspaper4k        0.9.3.1   0.949  0.964      0.934   0.326
    readability_js     0.6.0     0.947  0.914      0.982   0.166
    readability-lxml   0.8.4.1   0.922  0.913      0.931   0.315
    goose3             3.1.20    0.896  0.940      0.856   0.232
    boilerpipe         ab3694d   0.860  0.850      0.870   0.006
    html-text          0.7.0     0.665  0.500      0.994   0.000   (the whole page's text)

Results on this box (2 vCPUs shared with other jobs, load ~3.6), all 181 pages, trafilatura
2.3.1; no page was refused:

    reader                          unit    F1     precision  recall  accuracy  s/page
    read_page (child per page)      4-gram  0.960  0.942      0.979   0.287     0.93
    read_page (child per page)      1-gram  0.965  0.947      0.984   0.287
    trafilatura.extract in process  4-gram  0.960  0.942      0.978   0.293     0.032

    overhead on a trivial page: cold child 1.4 s (text 1.47, HTML 1.37); warm spare
    0.021 s (text) and 0.040 s (HTML)

Our text (trafilatura's tree walked by `htmltree.py`, links and tables kept) scores as
plain `trafilatura.extract` does, and as the published trafilatura 2.0.0 figure. Pages read
back to back cost ~0.9 s each: the spare's start and warm-up, not the extraction.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import SHARED_DATA, load_average, median, print_table
from evidence_desk.sources.reading import ReadLimits, ReadRefused, read_page

DATA = SHARED_DATA / "article-extraction"
QUICK_PAGES = 20
URL = "https://example.invalid/page"

PUBLISHED: list[tuple[str, str, float, float, float, float]] = [
    ("trafilatura", "2.0.0", 0.958, 0.938, 0.978, 0.293),
    ("go_trafilatura", "ae7ea06", 0.960, 0.940, 0.980, 0.287),
    ("newspaper4k", "0.9.3.1", 0.949, 0.964, 0.934, 0.326),
    ("readability_js", "0.6.0", 0.947, 0.914, 0.982, 0.166),
    ("readability-lxml", "0.8.4.1", 0.922, 0.913, 0.931, 0.315),
    ("goose3", "3.1.20", 0.896, 0.940, 0.856, 0.232),
    ("boilerpipe", "ab3694d", 0.860, 0.850, 0.870, 0.006),
    ("html-text", "0.7.0", 0.665, 0.500, 0.994, 0.000),
]
"""(extractor, version, F1, precision, recall, accuracy) from the repository's README."""

# --------------------------------------------------------------------------- scoring

_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def shingles(text: str, n: int) -> Counter[tuple[str, ...]]:
    """The multiset of `n`-token shingles (one shorter shingle for a text under n tokens)."""
    words = tokens(text)
    return Counter(
        tuple(words[i : i + n]) for i in range(max(1, len(words) - n + 1)) if words[i : i + n]
    )


@dataclass(frozen=True)
class Match:
    """One page's TP/FP/FN, normalised to sum 1 (all 0 when both texts are empty)."""

    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp == self.fp == 0 else self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp == self.fn == 0 else self.tp / (self.tp + self.fn)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def match(true: str, pred: str, n: int = 4) -> Match:
    """The repository's `string_shingle_matching`."""
    t, p = shingles(true, n), shingles(pred, n)
    tp = float(sum((t & p).values()))
    fp = float(sum((p - t).values()))
    fn = float(sum((t - p).values()))
    total = tp + fp + fn
    return Match(tp / total, fp / total, fn / total) if total else Match(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    accuracy: float
    median_f1: float


def scores(pairs: Sequence[tuple[str, str]], n: int) -> Scores:
    """The repository's `metrics_from_tp_fp_fns` (plus accuracy and the median page F1)."""
    matches = [match(true, pred, n) for true, pred in pairs]
    precision = statistics.mean(m.precision for m in matches if m.tp + m.fp > 0)
    recall = statistics.mean(m.recall for m in matches if m.tp + m.fn > 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = statistics.mean(float(tokens(t) == tokens(p)) for t, p in pairs)
    return Scores(precision, recall, f1, accuracy, median([m.f1 for m in matches]))


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Page:
    key: str
    url: str
    html: bytes
    truth: str


def load_pages(limit: int | None) -> list[Page]:
    truth = json.loads((DATA / "ground-truth.json").read_text(encoding="utf-8"))
    out: list[Page] = []
    for key in sorted(truth)[:limit]:
        html = gzip.decompress((DATA / "html" / f"{key}.html.gz").read_bytes())
        item = truth[key]
        out.append(Page(key, str(item.get("url") or ""), html, str(item.get("articleBody") or "")))
    return out


def ours(page: Page) -> str:
    url = page.url or f"https://example.invalid/{page.key}"
    document = read_page(page.html, "text/html; charset=utf-8", doc_id=page.key, url=url)
    return document.text


def plain_trafilatura(page: Page) -> str:
    """The repository's own trafilatura run (`extract(html)`), in this process."""
    import trafilatura

    return trafilatura.extract(page.html.decode("utf-8"), include_comments=False) or ""


def run(
    extractor: Callable[[Page], str], pages: Sequence[Page]
) -> tuple[list[str], list[float], list[str]]:
    """(predictions, per-page seconds, refusal sentences)."""
    predictions: list[str] = []
    seconds: list[float] = []
    refusals: list[str] = []
    for page in pages:
        t0 = time.perf_counter()
        try:
            predictions.append(extractor(page))
        except ReadRefused as refused:
            predictions.append("")
            refusals.append(f"{page.key[:12]}: {refused}")
        seconds.append(time.perf_counter() - t0)
    return predictions, seconds, refusals


def overhead_seconds(repeat: int, pause: float = 4.0) -> list[list[object]]:
    """Median wall seconds of `read_page` on a trivial page of each kind, two ways.

    Cold: limits no spare matches, so a child starts, imports and warms up on the page's
    clock. Warm: default limits after a `pause`, so the spare `reading.py` keeps is ready.
    """
    html = b"<html><body><article><p>" + b"A short paragraph of text. " * 10 + b"</p></article>"
    trivial = {"text/plain": b"A line of text.", "text/html": html + b"</body></html>"}
    rows: list[list[object]] = []
    for content_type, body in trivial.items():
        cold, warm = [], []
        for i in range(repeat):
            limits = ReadLimits(memory_bytes=2**30 + 4096 * (i + 1))  # matches no spare
            t0 = time.perf_counter()
            read_page(body, content_type, doc_id="x", url=URL, limits=limits)
            cold.append(time.perf_counter() - t0)
        read_page(body, content_type, doc_id="x", url=URL)  # leaves a default spare behind
        for _ in range(repeat):
            time.sleep(pause)
            t0 = time.perf_counter()
            read_page(body, content_type, doc_id="x", url=URL)
            warm.append(time.perf_counter() - t0)
        rows.append([content_type, median(cold), median(warm)])
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"the first {QUICK_PAGES} pages")
    args = parser.parse_args(argv)
    if not (DATA / "ground-truth.json").exists():
        print(f"skipped: the article-extraction data is not at {DATA}")
        return 0
    pages = load_pages(QUICK_PAGES if args.quick else None)
    print(f"{len(pages)} pages from {DATA} ({load_average()})")
    print_table(
        ["trivial page", "cold child s", "warm spare s"],
        overhead_seconds(3 if args.quick else 5),
        title="read_page overhead: a cold child (start, imports, warm-up) and a warm spare",
    )
    runs = {"evidence-desk read_page": ours}
    if not args.quick:
        runs["trafilatura.extract (in process)"] = plain_trafilatura
    rows: list[list[object]] = []
    for name, extractor in runs.items():
        predictions, seconds, refusals = run(extractor, pages)
        pairs = [(page.truth, pred) for page, pred in zip(pages, predictions, strict=True)]
        for n in (4, 1):
            s = scores(pairs, n)
            row: list[object] = [name, f"{n}-gram", s.f1, s.precision, s.recall, s.accuracy]
            rows.append([*row, s.median_f1, median(seconds), len(refusals)])
        for line in refusals:
            print(f"  refused {line}")
    print_table(
        [
            *("reader", "unit", "F1", "precision", "recall", "accuracy", "median page F1"),
            *("median s/page", "refused"),
        ],
        rows,
        title="Main-text extraction (means over pages, as the repository computes them)",
    )
    print_table(
        ["extractor", "version", "F1", "precision", "recall", "accuracy"],
        [list(row) for row in PUBLISHED],
        title="Published (repository README.rst @ 4a3bc979, 4-gram shingles, all 181 pages)",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
