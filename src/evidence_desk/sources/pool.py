"""The run's evidence pool: the passages of all its pages under one token budget.

Each page's selection (`sources/passages.py`) is a candidate list; the pool decides what
the answerer is actually shown, within `budget_tokens` (10,000) shared by every source:

* **Admission is best-first, fairly.** Passages are admitted in the order (rank within its
  page, score, page order): every page's best passage before any page's second, so one long
  page cannot crowd out the others, and scores of different pages (each scored with its
  own term weights) are compared only between passages of the same rank.
* **A source's metadata line costs tokens** (title, site, date, URL: `SourceMeta.line`),
  charged with its first admitted passage; a source with no admitted passage is not shown
  and costs nothing.
* **Never cut short.** A passage that does not fit what is left (with its source's line,
  when it would be the first) is dropped whole and recorded (`PoolDrop`, reason
  `"budget"`); smaller passages after it may still fit.
* **No repeats across sources.** A passage that is an exact or near duplicate of one
  already admitted, from any page of the run, is dropped (reason `"duplicate"`, the
  admitted passage named): syndicated copies and quoted paragraphs are shown once.

Token count: `estimate_tokens`, ceil(characters / 4), the usual rule for English prose
under BPE tokenizers. No tokenizer of the answering model is in the repo (the embedder's
WordPiece counts another model's tokens), and an estimate must not depend on which model
answers. Invariant: `Pool.used_tokens` = the kept passages' and kept sources' lines' tokens,
never more than `budget_tokens`.

Diversity: the distinct publishers (the page's site name, else its domain) and domains (the
URL's host without `www.`) among the shown sources, reported with `DIVERSITY_CAVEAT`: many
sites repeating one report are many publishers and one piece of evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit

from ..types import Document, Frozen
from .passages import PageSelection, SelectedPassage, duplicate_of

DEFAULT_BUDGET_TOKENS = 10_000
CHARS_PER_TOKEN = 4
NEAR_DUPLICATE_JACCARD = 0.8  # the same threshold as one page's selection (SelectionLimits)
DIVERSITY_CAVEAT = (
    "Distinct publishers and domains are not independent corroboration: several sites can "
    "repeat one report, wire story or press release."
)
# Metadata keys that name a page's publisher, most specific first (the HTML loader writes
# `sitename`).
PUBLISHER_KEYS = ("publisher", "sitename", "site_name", "site")


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): 0 for an empty text, at least 1 otherwise."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def domain_of(url: str | None) -> str | None:
    """The URL's host, lower-cased, without a leading `www.`; None without a host."""
    host = (urlsplit(url).hostname or "") if url else ""
    host = host.removeprefix("www.")
    return host or None


class SourceMeta(Frozen):
    """What the answerer is told about a source besides its passages."""

    doc_id: str
    title: str
    site: str | None = None
    date: str | None = None
    url: str | None = None

    @property
    def domain(self) -> str | None:
        return domain_of(self.url)

    @property
    def publisher(self) -> str | None:
        """The site name when the page states one, else its domain."""
        return self.site or self.domain

    @property
    def line(self) -> str:
        """`title · site · date · url`, the parts it has."""
        parts = (self.title, self.site, self.date, self.url)
        return " · ".join(p for p in parts if p)


def source_meta(doc: Document) -> SourceMeta:
    site = next((doc.meta[k] for k in PUBLISHER_KEYS if doc.meta.get(k)), None)
    return SourceMeta(doc_id=doc.doc_id, title=doc.title, site=site, date=doc.date, url=doc.url)


class PoolDrop(Frozen):
    """A passage the pool left out, and why."""

    doc_id: str
    passage_id: str
    reason: Literal["budget", "duplicate"]
    tokens: int  # what admitting it would have cost (its source's line included if first)
    detail: str


class PooledSource(Frozen):
    """A source shown to the answerer: its metadata and admitted passages, in text order."""

    meta: SourceMeta
    metadata_tokens: int
    passages: tuple[SelectedPassage, ...]

    @property
    def tokens(self) -> int:
        return self.metadata_tokens + sum(estimate_tokens(p.text) for p in self.passages)


class Diversity(Frozen):
    """Distinct publishers and domains among the shown sources, and what that does not mean."""

    sources: int
    publishers: tuple[str, ...]
    domains: tuple[str, ...]
    caveat: str = DIVERSITY_CAVEAT

    @property
    def summary(self) -> str:
        def count(n: int, word: str) -> str:
            return f"{n} {word}" if n == 1 else f"{n} {word}s"

        return (
            f"{count(len(self.publishers), 'publisher')} and "
            f"{count(len(self.domains), 'domain')} across {count(self.sources, 'source')}. "
            f"{self.caveat}"
        )


class Pool(Frozen):
    """The run's evidence: sources in page order, what was dropped, and diversity."""

    budget_tokens: int
    used_tokens: int
    sources: tuple[PooledSource, ...]
    drops: tuple[PoolDrop, ...]
    diversity: Diversity


def diversity_of(metas: Sequence[SourceMeta]) -> Diversity:
    publishers = sorted({m.publisher.casefold() for m in metas if m.publisher})
    domains = sorted({d for m in metas if (d := m.domain)})
    return Diversity(sources=len(metas), publishers=tuple(publishers), domains=tuple(domains))


def _admission_order(selections: Sequence[PageSelection]) -> list[tuple[int, SelectedPassage]]:
    """(page index, passage), every page's rank-1 passage first, then rank 2, ..."""
    pairs = [(i, p) for i, sel in enumerate(selections) for p in sel.passages]
    return sorted(pairs, key=lambda ip: (ip[1].rank, -ip[1].score, ip[0], ip[1].start))


def pool_evidence(
    selections: Sequence[PageSelection],
    metadata: Sequence[SourceMeta],
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    near_duplicate_jaccard: float = NEAR_DUPLICATE_JACCARD,
) -> Pool:
    """The passages of the run's pages that fit `budget_tokens`, with their sources' lines.

    `metadata[i]` describes `selections[i]`'s page.
    """
    if len(selections) != len(metadata):
        raise ValueError("pool_evidence needs one SourceMeta per page selection.")
    if budget_tokens < 0:
        raise ValueError("The evidence budget cannot be negative.")
    admitted: dict[int, list[SelectedPassage]] = {}
    admitted_texts: list[str] = []
    admitted_ids: list[str] = []
    drops: list[PoolDrop] = []
    used = 0
    for page, passage in _admission_order(selections):
        line_cost = 0 if page in admitted else estimate_tokens(metadata[page].line)
        cost = estimate_tokens(passage.text) + line_cost
        dup = duplicate_of(passage.text, admitted_texts, near_duplicate_jaccard)
        if dup is not None:
            detail = f"repeats {admitted_ids[dup[0]]} (shingle Jaccard {dup[1]:.2f})"
            drops.append(_drop(passage, "duplicate", cost, detail))
            continue
        if used + cost > budget_tokens:
            detail = f"needs {cost} tokens, {budget_tokens - used} left"
            drops.append(_drop(passage, "budget", cost, detail))
            continue
        used += cost
        admitted.setdefault(page, []).append(passage)
        admitted_texts.append(passage.text)
        admitted_ids.append(passage.id)
    sources = tuple(
        PooledSource(
            meta=metadata[page],
            metadata_tokens=estimate_tokens(metadata[page].line),
            passages=tuple(sorted(admitted[page], key=lambda p: p.start)),
        )
        for page in sorted(admitted)
    )
    return Pool(
        budget_tokens=budget_tokens,
        used_tokens=used,
        sources=sources,
        drops=tuple(drops),
        diversity=diversity_of([s.meta for s in sources]),
    )


def _drop(
    passage: SelectedPassage, reason: Literal["budget", "duplicate"], tokens: int, detail: str
) -> PoolDrop:
    return PoolDrop(
        doc_id=passage.doc_id, passage_id=passage.id, reason=reason, tokens=tokens, detail=detail
    )
