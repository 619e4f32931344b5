"""Passage selection for web pages: does the gold evidence survive, and what does it cost?

    .venv/bin/python -m bench.passages            # every XQuAD question (1,190)
    .venv/bin/python -m bench.passages --quick    # 40 pages (~200 questions)

XQuAD (English; SQuAD format, /work/shared/data/xquad) has 240 paragraphs of 48 Wikipedia
articles, each with questions and answer offsets. A paragraph is far shorter than a web page,
so each becomes a **page**: the gold paragraph among the other paragraphs of its article,
then paragraphs of other articles (seeded), joined by blank lines, until the page reaches a
length drawn from 8,000-20,000 characters; the gold paragraph sits at a seeded random
position. Every question of the gold paragraph is asked of its page
(`sources.passages.select_passages`, the question as the one query, default limits).

Measured per question: is the **gold unit** (the sentence holding the answer's first
character, or the piece of it when the sentence is longer than 80 words) inside the
excerpt, and inside a kept passage (recall)? Also: the answer text inside a kept passage,
the kept words per page, and the median wall time of one selection. Scorers:

* term-overlap, bm25: no model;
* hybrid: BM25 + all-MiniLM-L6-v2 cosine on windows and passages;
* bm25 > hybrid: BM25 windows, hybrid passages (the model reads only the excerpt's passages).

Hybrid rows use the real embedder when it loads; vectors are cached in memory per text, so
a page's later questions reuse its window vectors, and the "cold ms" column times only the
first question of each page (what one run pays per page). Bootstrap 95% intervals (1,000
resamples of questions) come with each recall.

Results on this box (2 vCPUs shared with other jobs, load average 2-5, fp32 model; full
run, 1,190 questions, 240 pages of 8,286-19,987 characters, 27 minutes, nearly all of it
embedding). Recall with a bootstrap 95% interval; "+/-" counts the questions this scorer
got and BM25 missed / the reverse (kept passages); cold ms is a page's first selection:

    scorer         excerpt  kept passage        best passage        best 3  +/-      words  cold ms
    term-overlap   0.988    0.980 [.971,.987]   0.842 [.822,.862]   0.955   3/5      428       13
    bm25           0.989    0.982 [.974,.989]   0.853 [.832,.872]   0.963   -        440       14
    bm25 > hybrid  0.989    0.988 [.982,.994]   0.866 [.846,.884]   0.970   8/0      505      829
    hybrid         0.993    0.992 [.987,.997]   0.861 [.840,.880]   0.967   16/3     515    2,080

    best passage vs BM25 (+/-): term-overlap 37/50, bm25 > hybrid 28/12, hybrid 33/24.
    median ms over all selections (later questions reuse a page's cached window vectors):
    12, 14, 313, 200.

Hybrid keeps more gold evidence, partly because it keeps more words (every fused score is
positive, so it always fills its 8 passages); it needs the model (7.6 s to load) and 20-160x
the time per page (`--quick` on a quiet box, load 0.6: cold ms 12 / 15 / 282 / 1,222).
The choice made from these figures is in src/evidence_desk/sources/passages.py.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import (
    BENCH_CACHE,
    SHARED_DATA,
    DiskCachedEmbedder,
    load_average,
    median,
    print_table,
)
from evidence_desk.retrieval.embedder import Embedder
from evidence_desk.sources.passages import (
    PageSelection,
    SelectionLimits,
    select_passages,
    units,
)
from evidence_desk.sources.scoring import BM25, Hybrid, Scorer, TermOverlap

# Never saved: each hybrid run embeds afresh, in memory (the timing must not profit).
PASSAGE_VECTORS = BENCH_CACHE / "passages-embeddings-unsaved.npz"

XQUAD = SHARED_DATA / "xquad" / "xquad.en.json"
MIN_CHARS, MAX_CHARS = 8_000, 20_000
QUICK_PAGES = 40
SEED = 13


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    start: int  # offset of the answer in the page text


@dataclass(frozen=True)
class Page:
    doc_id: str
    text: str
    gold_start: int
    gold_end: int
    questions: tuple[Question, ...]


def build_pages(data: dict[str, Any], seed: int = SEED) -> list[Page]:
    """One page per XQuAD paragraph: the gold paragraph among fillers (same article first)."""
    articles = [[p for p in art["paragraphs"]] for art in data["data"]]
    pages: list[Page] = []
    for a, paragraphs in enumerate(articles):
        for g, gold in enumerate(paragraphs):
            rng = random.Random(f"{seed}:{a}:{g}")
            target = rng.randint(MIN_CHARS, MAX_CHARS)
            same = [p["context"] for i, p in enumerate(paragraphs) if i != g]
            rng.shuffle(same)
            others = [p["context"] for j, art in enumerate(articles) if j != a for p in art]
            rng.shuffle(others)
            fillers: list[str] = []
            total = len(gold["context"])
            for ctx in same + others:
                if total >= target:
                    break
                if total + len(ctx) + 2 <= MAX_CHARS:
                    fillers.append(ctx)
                    total += len(ctx) + 2
            pos = rng.randint(0, len(fillers))
            before = "\n\n".join(fillers[:pos])
            offset = len(before) + 2 if before else 0
            text = "\n\n".join([*fillers[:pos], gold["context"], *fillers[pos:]])
            assert text[offset : offset + len(gold["context"])] == gold["context"]
            qs = tuple(
                Question(
                    qa["question"],
                    qa["answers"][0]["text"],
                    offset + qa["answers"][0]["answer_start"],
                )
                for qa in gold["qas"]
            )
            for q in qs:
                assert text[q.start : q.start + len(q.answer)] == q.answer
            end = offset + len(gold["context"])
            pages.append(Page(f"xquad-{a}-{g}", text, offset, end, qs))
    return pages


@dataclass
class Tally:
    """Per-question outcomes of one scorer."""

    excerpt: list[bool] = field(default_factory=list)
    passage: list[bool] = field(default_factory=list)
    answer: list[bool] = field(default_factory=list)
    top1: list[bool] = field(default_factory=list)
    top3: list[bool] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)
    words: list[int] = field(default_factory=list)


def _gold_unit(page: Page, q: Question, limits: SelectionLimits) -> tuple[int, int]:
    for u in units(page.text, limits.max_passage_words):
        if u.start <= q.start < u.end:
            return u.start, u.end
    return q.start, q.start + len(q.answer)  # the answer sits in white space between units


def _inside(a: int, b: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s <= a and b <= e for s, e in spans)


def run_scorer(
    pages: Sequence[Page],
    scorer: Scorer,
    window_scorer: Scorer | None,
    limits: SelectionLimits,
    gold: dict[tuple[str, int], tuple[int, int]],
) -> Tally:
    tally = Tally()
    for page in pages:
        for n, q in enumerate(page.questions):
            t0 = time.perf_counter()
            sel: PageSelection = select_passages(
                page.text,
                q.text,
                doc_id=page.doc_id,
                scorer=scorer,
                window_scorer=window_scorer,
                limits=limits,
            )
            elapsed = (time.perf_counter() - t0) * 1000.0
            tally.ms.append(elapsed)
            if n == 0:
                tally.cold_ms.append(elapsed)
            a, b = gold[(page.doc_id, q.start)]
            kept = [(p.start, p.end) for p in sel.passages]
            tally.excerpt.append(_inside(a, b, [(s.start, s.end) for s in sel.excerpt]))
            tally.passage.append(_inside(a, b, kept))
            tally.answer.append(_inside(q.start, q.start + len(q.answer), kept))
            ranked = [(p.start, p.end) for p in sel.best_first()]
            tally.top1.append(_inside(a, b, ranked[:1]))
            tally.top3.append(_inside(a, b, ranked[:3]))
            tally.words.append(sum(p.words for p in sel.passages))
    return tally


def _interval(hits: Sequence[bool], rng: np.random.Generator) -> str:
    x = np.asarray(hits, dtype=float)
    means = x[rng.integers(0, len(x), size=(1000, len(x)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return f"{x.mean():.3f} [{lo:.3f}, {hi:.3f}]"


def _paired(a: Sequence[bool], b: Sequence[bool]) -> str:
    """Questions only `a` got / only `b` got (the discordant pairs of a McNemar test)."""
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    return f"{only_a} / {only_b}"


def load_embedder() -> Embedder | None:
    try:
        from evidence_desk.retrieval.embedder import MiniLMEmbedder

        model = MiniLMEmbedder()
        model.embed(["warm up"])
        return model
    except Exception as exc:  # the bench still reports the model-free scorers
        print(f"hybrid skipped: the embedding model did not load ({exc})")
        return None


def _run_all(
    runs: dict[str, Callable[[], tuple[Scorer, Scorer | None]]],
    pages: Sequence[Page],
    limits: SelectionLimits,
    gold: dict[tuple[str, int], tuple[int, int]],
    tallies: dict[str, Tally],
) -> None:
    for name, make in runs.items():
        scorer, window_scorer = make()
        t0 = time.perf_counter()
        tallies[name] = run_scorer(pages, scorer, window_scorer, limits, gold)
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_PAGES} pages only")
    parser.add_argument("--no-model", action="store_true", help="skip the hybrid scorers")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    if not XQUAD.exists():
        print(f"XQuAD is not at {XQUAD}; set EVIDENCE_DESK_SHARED_DATA to the shared data folder.")
        return 0
    data = json.loads(XQUAD.read_text(encoding="utf-8"))
    pages = build_pages(data, args.seed)
    if args.quick:
        pages = random.Random(args.seed).sample(pages, QUICK_PAGES)
    limits = SelectionLimits()
    gold = {(p.doc_id, q.start): _gold_unit(p, q, limits) for p in pages for q in p.questions}
    n_questions = sum(len(p.questions) for p in pages)
    lengths = [len(p.text) for p in pages]
    print(
        f"{len(pages)} pages ({min(lengths):,}-{max(lengths):,} chars, median "
        f"{median(lengths):,.0f}), {n_questions} questions; {load_average()}"
    )
    bm25 = BM25()
    runs: dict[str, Callable[[], tuple[Scorer, Scorer | None]]] = {
        "term-overlap": lambda: (TermOverlap(), None),
        "bm25": lambda: (bm25, None),
    }
    tallies: dict[str, Tally] = {}
    _run_all(runs, pages, limits, gold, tallies)
    # The model loads only after the lexical runs: torch's idle worker threads would
    # otherwise share the CPUs with them and inflate their times.
    model = None if args.no_model else load_embedder()
    if model is not None:
        inner = model
        hybrid_runs: dict[str, Callable[[], tuple[Scorer, Scorer | None]]] = {
            # a fresh cache per run, so no run profits from another's vectors
            "bm25 > hybrid": lambda: (Hybrid(DiskCachedEmbedder(inner, PASSAGE_VECTORS)), bm25),
            "hybrid": lambda: (Hybrid(DiskCachedEmbedder(inner, PASSAGE_VECTORS)), None),
        }
        _run_all(hybrid_runs, pages, limits, gold, tallies)
    rng = np.random.default_rng(args.seed)
    base = tallies["bm25"]
    print_table(
        [
            "scorer",
            "gold unit in excerpt",
            "gold unit in a kept passage",
            "answer in a kept passage",
            "in the best passage",
            "in the best 3",
            "passage, top-1 vs bm25 (only this / only bm25)",
            "kept words/page",
            "median ms",
            "cold ms",
        ],
        [
            [
                name,
                _interval(t.excerpt, rng),
                _interval(t.passage, rng),
                f"{np.mean(t.answer):.3f}",
                _interval(t.top1, rng),
                f"{np.mean(t.top3):.3f}",
                f"{_paired(t.passage, base.passage)}; {_paired(t.top1, base.top1)}",
                median(t.words),
                median(t.ms),
                median(t.cold_ms),
            ]
            for name, t in tallies.items()
        ],
        title="Gold evidence surviving selection (XQuAD pages of 8,000-20,000 chars)",
    )
    ms = {name: median(t.cold_ms) for name, t in tallies.items()}
    print(
        "\ncold ms per page relative to term-overlap: "
        + ", ".join(f"{name} {v / ms['term-overlap']:.1f}x" for name, v in ms.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
