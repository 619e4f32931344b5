"""Which parts of a page read from the web the answerer sees: excerpt, passages, quotations.

A read page is long; the desk shows the answerer a few exact pieces of it, chosen in steps
that can each be inspected afterwards (`PageSelection` keeps every window's score):

1. **Excerpt.** Windows of `window_chars` (1,200) characters start every `stride_chars`
   (1,000) characters; the last window ends at the text's end, so every character lies in
   a window. Each window is scored against the question's query terms; the best
   `max_windows` (5) with a positive score (ties: the earlier) form the excerpt, in text
   order, overlapping windows merged into one span, never past `max_excerpt_chars` (6,000;
   five windows cannot exceed it, the check guards other limits).
2. **Passages.** Units are the text's sentences (`textutil.sentence_spans`); a sentence
   longer than `max_passage_words` (80) is cut at white space into pieces of at most 80
   words, each with its exact offsets and marked `cut` (skipping it would lose the run-on
   "sentences" web pages are full of: lists, tables, captions). Units lying wholly inside
   one excerpt span are packed, in text order, into passages of at most 80 words (a passage
   closes when the next unit would take it past 80). Passages are scored; the best
   `max_passages` (8) with a positive score are kept, except exact or near duplicates of a
   better one (`duplicate_of`), which are recorded in `excluded`.
3. **Quotations.** Each kept passage carries a display quotation of at most
   `max_quote_words` (20) words: the run of words inside one of its units, between the
   page's own double quote marks, holding the most query-term weight, its edge punctuation
   trimmed. It is for showing to a reader; the passage is what the answerer reads.

Invariants (tested, the first property-tested on arbitrary text): every passage and every
quotation is `text[start:end]` exactly; a quotation lies inside its passage; a passage lies
inside one excerpt span; passages do not overlap; words are runs of non-white-space, as in
`archive/chunking.py`. Passage ids are `<doc_id>#<n>`, n counting the kept passages from 0
in text order; they name passages of this selection (another question selects others).

Scoring (windows and passages alike) is `sources/scoring.py`: term overlap, BM25, or
BM25 + embedding (hybrid); `window_scorer` may differ from the passages' `scorer`.

Measured by `python -m bench.passages` (1,190 XQuAD questions, 240 pages of 8,000-20,000
characters built around the gold paragraph): the share of questions whose gold sentence
lies in a kept passage / in the best-ranked passage, and the median ms of a page's first
selection (2 vCPUs shared with other jobs, load average 2-5; fp32 model):

    term-overlap           0.980  0.842     13 ms   (no model)
    bm25                   0.982  0.853     14 ms   (no model)
    bm25 windows + hybrid  0.988  0.866    829 ms   (model; +7.6 s to load it once)
    hybrid (both stages)   0.992  0.861  2,080 ms   (model)

Hybrid selects gold evidence best (vs BM25: 16 questions gained, 3 lost), partly because
its fused score is positive for every passage, so it always keeps all 8 (515 words a page
against 440). It needs the model and costs 20-160x the time (a `--quick` run on a quiet box:
bm25 15 ms, bm25 windows + hybrid 282 ms, hybrid 1,222 ms), so the winner depends on the
embedder: `default_scorers(None)` is BM25 for both stages (the default of
`select_passages`; term overlap is no better and no cheaper); `default_scorers(embedder)`
is BM25 windows with hybrid passages, most of hybrid's gain (top-1: 28 gained, 12 lost
against BM25) at a quarter to two fifths of its cost: the model reads the excerpt's
candidates, not every window. Caveat: XQuAD questions were written from their paragraph and
share its words, so the lexical scorers are near their ceiling here; paraphrased questions
(untested) may widen hybrid's lead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..retrieval.embedder import Embedder
from ..textutil import content_terms, sentence_spans, words
from ..types import Frozen
from .scoring import BM25, Hybrid, Idf, Query, Scorer, page_idf

_WORD = re.compile(r"\S+")
_QUOTE_FREE = re.compile(r'[^"“”]+')
# Trimmed from a quotation's ends: a reader sees it inside quote marks of the desk's own.
_QUOTE_EDGE_START = "\"'“”‘’([{«–—"  # not "-": it may be a minus sign
_QUOTE_EDGE_END = "\"'“”‘’)]}»,;:-–—"


@dataclass(frozen=True)
class SelectionLimits:
    """The bounds of one page's selection (the issue's figures are the defaults)."""

    window_chars: int = 1_200
    stride_chars: int = 1_000
    max_windows: int = 5
    max_excerpt_chars: int = 6_000
    max_passages: int = 8
    max_passage_words: int = 80
    max_quote_words: int = 20
    near_duplicate_jaccard: float = 0.8

    def __post_init__(self) -> None:
        if not 0 < self.stride_chars <= self.window_chars:
            raise ValueError("Windows need 0 < stride_chars <= window_chars.")
        if min(self.max_windows, self.max_excerpt_chars, self.max_passages) < 1:
            raise ValueError("Window, excerpt and passage limits must be at least 1.")
        if min(self.max_passage_words, self.max_quote_words) < 1:
            raise ValueError("Word limits must be at least 1.")


# --------------------------------------------------------------------------- values


class Window(Frozen):
    """One scored window of the text, `[start, end)`; `kept` when it is in the excerpt."""

    start: int
    end: int
    score: float
    kept: bool = False


class Span(Frozen):
    """A span of the text, `[start, end)`: an excerpt span (windows merged)."""

    start: int
    end: int


class Quotation(Frozen):
    """A display quotation: `text == page_text[start:end]`, at most 20 words."""

    text: str
    start: int
    end: int


class SelectedPassage(Frozen):
    """A kept reading passage: `text == page_text[start:end]`, whole units, <= 80 words."""

    id: str
    doc_id: str
    text: str
    start: int
    end: int
    score: float
    rank: int  # 1 for the page's best passage
    words: int
    cut: bool  # holds a piece of a sentence longer than the word limit
    quotation: Quotation


class Exclusion(Frozen):
    """A candidate passage left out as an exact or near duplicate of a better one."""

    start: int
    end: int
    score: float
    duplicate_of: str  # the id of the kept passage it repeats
    jaccard: float


class PageSelection(Frozen):
    """What one page contributes to evidence, and how it was chosen."""

    doc_id: str
    scorer: str
    query_terms: tuple[str, ...]
    windows: tuple[Window, ...]
    excerpt: tuple[Span, ...]
    candidates: int  # passages packed from the excerpt, before scoring and the cap
    passages: tuple[SelectedPassage, ...]  # in text order
    excluded: tuple[Exclusion, ...] = ()

    @property
    def excerpt_chars(self) -> int:
        return sum(s.end - s.start for s in self.excerpt)

    def best_first(self) -> list[SelectedPassage]:
        return sorted(self.passages, key=lambda p: p.rank)


# --------------------------------------------------------------------------- duplicates


def normalised(text: str) -> str:
    """The comparison form: lower-cased word tokens joined by single spaces."""
    return " ".join(words(text))


def shingles(text: str, n: int = 3) -> frozenset[tuple[str, ...]]:
    """Word n-grams of the normalised text (the whole text when it has fewer than n words)."""
    ws = words(text)
    if len(ws) < n:
        return frozenset({tuple(ws)}) if ws else frozenset()
    return frozenset(tuple(ws[i : i + n]) for i in range(len(ws) - n + 1))


def jaccard(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def duplicate_of(text: str, kept: Sequence[str], threshold: float) -> tuple[int, float] | None:
    """(index into `kept`, Jaccard) of the first kept text that `text` duplicates: the same
    normalised text, or word-3-shingle Jaccard >= threshold; None when it is new."""
    key, grams = normalised(text), shingles(text)
    for i, other in enumerate(kept):
        if normalised(other) == key:
            return i, 1.0
        similarity = jaccard(grams, shingles(other))
        if similarity >= threshold:
            return i, similarity
    return None


# --------------------------------------------------------------------------- windows


def window_spans(length: int, limits: SelectionLimits = SelectionLimits()) -> list[tuple[int, int]]:
    """[start, end) of each window over a text of `length` characters; the last one ends at
    `length`, so the windows cover the text (none for an empty text)."""
    spans: list[tuple[int, int]] = []
    for start in range(0, length, limits.stride_chars):
        spans.append((start, min(start + limits.window_chars, length)))
        if start + limits.window_chars >= length:
            break
    return spans


def excerpt_spans(windows: Sequence[Window], limits: SelectionLimits) -> list[tuple[int, int]]:
    """The excerpt: the best windows (positive score, earlier first on ties) merged in text
    order, while the merged length stays within `max_excerpt_chars`."""
    chosen: list[tuple[int, int]] = []
    for w in sorted(windows, key=lambda w: (-w.score, w.start)):
        if len(chosen) == limits.max_windows or w.score <= 0:
            break
        trial = _merged([*chosen, (w.start, w.end)])
        if sum(b - a for a, b in trial) <= limits.max_excerpt_chars:
            chosen.append((w.start, w.end))
    return _merged(chosen)


def _merged(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


# --------------------------------------------------------------------------- units


@dataclass(frozen=True)
class Unit:
    """A sentence, or a piece of one cut at white space: `[start, end)` of the text."""

    start: int
    end: int
    cut: bool


def units(text: str, max_words: int) -> list[Unit]:
    """The text's sentences in order, a sentence of more than `max_words` words cut into
    pieces of at most `max_words` (each piece from a word's start to a word's end)."""
    out: list[Unit] = []
    for a, b in sentence_spans(text):
        starts_ends = [(m.start(), m.end()) for m in _WORD.finditer(text, a, b)]
        if len(starts_ends) <= max_words:
            out.append(Unit(a, b, False))
            continue
        for i in range(0, len(starts_ends), max_words):
            piece = starts_ends[i : i + max_words]
            out.append(Unit(piece[0][0], piece[-1][1], True))
    return out


def pack(text: str, inside: Sequence[Unit], max_words: int) -> list[tuple[int, int, bool]]:
    """Consecutive units packed into (start, end, cut) passages of at most `max_words`
    words, in order; a passage closes when the next unit would take it past the limit."""
    out: list[tuple[int, int, bool]] = []
    open_at: Unit | None = None
    last: Unit | None = None
    cut = False
    for unit in inside:
        if open_at is not None and last is not None:
            if len(text[open_at.start : unit.end].split()) <= max_words:
                last, cut = unit, cut or unit.cut
                continue
            out.append((open_at.start, last.end, cut))
        open_at, last, cut = unit, unit, unit.cut
    if open_at is not None and last is not None:
        out.append((open_at.start, last.end, cut))
    return out


def _units_inside(all_units: Sequence[Unit], span: tuple[int, int]) -> list[Unit]:
    return [u for u in all_units if span[0] <= u.start and u.end <= span[1]]


# --------------------------------------------------------------------------- quotations


def quotation(
    text: str, passage_units: Sequence[Unit], query: Query, idf: Idf, max_words: int
) -> Quotation:
    """The best run of at most `max_words` words inside one quote-free stretch of one unit
    of a passage: the most query-term weight, then the earliest; ends trimmed of
    punctuation and quote marks. A stretch ends at a double quote mark, so a quotation
    never carries half of the page's own quotation marks."""
    wanted = set(query.terms)
    first = passage_units[0]
    opening = [w.end() for w in _WORD.finditer(text, first.start, first.end)][:max_words]
    best = (-1.0, first.start, opening[-1])  # (weight, start, end); a unit holds a word
    for unit in passage_units:
        for m in _QUOTE_FREE.finditer(text, unit.start, unit.end):
            spans = [(w.start(), w.end()) for w in _WORD.finditer(text, m.start(), m.end())]
            hits = [wanted & set(content_terms(text[a:b])) for a, b in spans]
            for i in range(max(len(spans) - max_words, 0) + 1):
                weight = sum(idf(t) for t in set().union(*hits[i : i + max_words]))
                if spans and weight > best[0] + 1e-12:
                    best = (weight, spans[i][0], spans[min(i + max_words, len(spans)) - 1][1])
    a, b = _trim_quote(text, best[1], best[2])
    return Quotation(text=text[a:b], start=a, end=b)


def _trim_quote(text: str, a: int, b: int) -> tuple[int, int]:
    start, end = a, b
    while start < end and (text[start] in _QUOTE_EDGE_START or text[start].isspace()):
        start += 1
    while end > start and (text[end - 1] in _QUOTE_EDGE_END or text[end - 1].isspace()):
        end -= 1
    return (start, end) if end > start else (a, b)


# --------------------------------------------------------------------------- selection


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    cut: bool
    units: tuple[Unit, ...]


def _scored_windows(
    text: str, q: Query, scorer: Scorer, idf: Idf, limits: SelectionLimits
) -> tuple[tuple[Window, ...], list[tuple[int, int]]]:
    """Every window with its score (`kept` set for those in the excerpt), and the excerpt."""
    spans = window_spans(len(text), limits)
    scores = scorer.score(q, [text[a:b] for a, b in spans], idf)
    scored = [Window(start=a, end=b, score=s) for (a, b), s in zip(spans, scores, strict=True)]
    excerpt = excerpt_spans(scored, limits)
    windows = tuple(
        w.model_copy(update={"kept": any(a <= w.start and w.end <= b for a, b in excerpt)})
        for w in scored
    )
    return windows, excerpt


def _candidates(
    text: str, all_units: Sequence[Unit], excerpt: Sequence[tuple[int, int]], max_words: int
) -> list[_Candidate]:
    out: list[_Candidate] = []
    for span in excerpt:
        inside = _units_inside(all_units, span)
        for a, b, cut in pack(text, inside, max_words):
            held = tuple(u for u in inside if a <= u.start and u.end <= b)
            out.append(_Candidate(a, b, cut, held))
    return out


def _keep(
    text: str, candidates: Sequence[_Candidate], scores: Sequence[float], limits: SelectionLimits
) -> tuple[list[int], list[tuple[int, int, float]]]:
    """Indexes of the kept candidates, best first, and the duplicates left out as
    (candidate, the kept candidate it repeats, Jaccard)."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], candidates[i].start))
    kept: list[int] = []
    kept_texts: list[str] = []
    repeats: list[tuple[int, int, float]] = []
    for i in order:
        if len(kept) == limits.max_passages or scores[i] <= 0:
            break
        c = candidates[i]
        dup = duplicate_of(text[c.start : c.end], kept_texts, limits.near_duplicate_jaccard)
        if dup is None:
            kept.append(i)
            kept_texts.append(text[c.start : c.end])
        else:
            repeats.append((i, kept[dup[0]], dup[1]))
    return kept, repeats


def select_passages(
    text: str,
    query: str | Sequence[str],
    *,
    doc_id: str,
    scorer: Scorer | None = None,
    window_scorer: Scorer | None = None,
    limits: SelectionLimits = SelectionLimits(),
) -> PageSelection:
    """The excerpt, passages and quotations of one page for a question's queries.

    `scorer` defaults to `DEFAULT_SCORER`; `window_scorer` (default: `scorer`) scores the
    excerpt windows, so a costly scorer can be kept to the passages.
    """
    passage_scorer = scorer or DEFAULT_SCORER
    q = Query.of(query)
    all_units = units(text, limits.max_passage_words)
    idf = page_idf([text[u.start : u.end] for u in all_units])
    windows, excerpt = _scored_windows(text, q, window_scorer or passage_scorer, idf, limits)
    candidates = _candidates(text, all_units, excerpt, limits.max_passage_words)
    scores = passage_scorer.score(q, [text[c.start : c.end] for c in candidates], idf)
    kept, repeats = _keep(text, candidates, scores, limits)
    rank = {i: r for r, i in enumerate(kept, start=1)}
    ids = {
        i: f"{doc_id}#{n}" for n, i in enumerate(sorted(kept, key=lambda i: candidates[i].start))
    }
    passages = [
        SelectedPassage(
            id=ids[i],
            doc_id=doc_id,
            text=text[candidates[i].start : candidates[i].end],
            start=candidates[i].start,
            end=candidates[i].end,
            score=round(scores[i], 6),
            rank=rank[i],
            words=len(text[candidates[i].start : candidates[i].end].split()),
            cut=candidates[i].cut,
            quotation=quotation(text, candidates[i].units, q, idf, limits.max_quote_words),
        )
        for i in sorted(kept, key=lambda i: candidates[i].start)
    ]
    excluded = [
        Exclusion(
            start=candidates[i].start,
            end=candidates[i].end,
            score=round(scores[i], 6),
            duplicate_of=ids[better],
            jaccard=round(similarity, 4),
        )
        for i, better, similarity in repeats
    ]
    return PageSelection(
        doc_id=doc_id,
        scorer=passage_scorer.name,
        query_terms=q.terms,
        windows=windows,
        excerpt=tuple(Span(start=a, end=b) for a, b in excerpt),
        candidates=len(candidates),
        passages=tuple(passages),
        excluded=tuple(excluded),
    )


# Chosen by bench/passages.py (module docstring): the best scorer that needs no model.
DEFAULT_SCORER: Scorer = BM25()


def default_scorers(embedder: Embedder | None) -> tuple[Scorer, Scorer]:
    """(passage scorer, window scorer) to select with: BM25 for both without an embedder;
    with one, hybrid passages over BM25 windows (the measured trade-off, docstring)."""
    if embedder is None:
        return DEFAULT_SCORER, DEFAULT_SCORER
    return Hybrid(embedder), DEFAULT_SCORER
