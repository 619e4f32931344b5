"""How well a text of a page answers the question: the scorers of passage selection.

`sources/passages.py` scores two kinds of text of one page against the question's queries:
its excerpt windows and its candidate passages. A `Scorer` scores a batch of them at once,
with term weights (IDF) taken from the page itself, its sentences as the collection (a page
read from the web has no archive statistics). Terms are stemmed content terms
(`textutil.content_terms`), so a term here is what the BM25 index and the coverage check
call a term.

* `TermOverlap`: the IDF-weighted share of the query's terms a text contains, in [0, 1];
* `BM25`: Okapi BM25 (k1 1.2, b 0.75), text length counted in content terms;
* `Hybrid`: BM25 normalised by the batch's best, plus the cosine of the text's embedding
  to the query's (`retrieval/fusion.score_fusion`, weights 0.5 / 0.5). It takes any
  `retrieval.embedder.Embedder`: the real model, or `testing.embedder.HashingEmbedder`.

The first two need no model. Which one selection uses by default, and why, is measured by
`bench/passages.py` and stated in `sources/passages.py` (BM25 without an embedder; hybrid
passages over BM25 windows with one).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..retrieval.embedder import Embedder
from ..retrieval.fusion import score_fusion
from ..textutil import content_terms, unique

Idf = Callable[[str], float]


@dataclass(frozen=True)
class Query:
    """The question's query texts and their stemmed content terms (unique, in order)."""

    texts: tuple[str, ...]
    terms: tuple[str, ...]

    @classmethod
    def of(cls, query: str | Sequence[str]) -> Query:
        texts = (query,) if isinstance(query, str) else tuple(query)
        return cls(texts, tuple(unique(t for q in texts for t in content_terms(q))))


class Scorer(Protocol):
    """Scores texts against a query: one float per text, higher is better; a text that
    shows nothing of the query scores 0 or less and is never selected."""

    name: str

    def score(self, query: Query, texts: Sequence[str], idf: Idf) -> list[float]: ...


class TermOverlap:
    """The IDF-weighted share of the query's terms a text contains, in [0, 1]."""

    name = "term-overlap"

    def score(self, query: Query, texts: Sequence[str], idf: Idf) -> list[float]:
        total = sum(idf(t) for t in query.terms)
        if total <= 0:
            return [0.0] * len(texts)
        wanted = set(query.terms)
        return [sum(idf(t) for t in wanted & set(content_terms(x))) / total for x in texts]


class BM25:
    """Okapi BM25 with the page's IDF; document length is counted in content terms."""

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def score(self, query: Query, texts: Sequence[str], idf: Idf) -> list[float]:
        bags = [Counter(content_terms(x)) for x in texts]
        lengths = [sum(bag.values()) for bag in bags]
        average = max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0
        out: list[float] = []
        for bag, length in zip(bags, lengths, strict=True):
            norm = self.k1 * (1.0 - self.b + self.b * length / average)
            out.append(
                sum(idf(t) * bag[t] * (self.k1 + 1.0) / (bag[t] + norm) for t in query.terms)
            )
        return out


class Hybrid:
    """BM25 (normalised by the batch's best) fused with embedding cosine to the query.

    A text's cosine is its best over the query texts. The fused score can be positive for a
    text sharing no query term: that is what the embedding is for (paraphrase).
    """

    name = "hybrid"

    def __init__(
        self,
        embedder: Embedder,
        lexical_weight: float = 0.5,
        dense_weight: float = 0.5,
        lexical: BM25 | None = None,
    ) -> None:
        self.embedder = embedder
        self.lexical_weight = lexical_weight
        self.dense_weight = dense_weight
        self.lexical = lexical or BM25()

    def score(self, query: Query, texts: Sequence[str], idf: Idf) -> list[float]:
        if not texts:
            return []
        lex = self.lexical.score(query, texts, idf)
        vectors = self.embedder.embed(list(texts))
        cosines = [0.0] * len(texts)
        if query.texts:
            queries = np.stack([self.embedder.embed_query(q) for q in query.texts])
            cosines = (vectors @ queries.T).max(axis=1).tolist()
        by_lex = sorted(enumerate(lex), key=lambda kv: (-kv[1], kv[0]))
        by_cos = sorted(enumerate(cosines), key=lambda kv: (-kv[1], kv[0]))
        fused = score_fusion(
            by_lex,
            by_cos,
            lexical_weight=self.lexical_weight,
            dense_weight=self.dense_weight,
        )
        scores = {f.key: f.score for f in fused}
        return [scores[i] for i in range(len(texts))]


def page_idf(unit_texts: Sequence[str]) -> Idf:
    """Smoothed BM25 IDF with the page's units as the collection; unseen terms weigh most."""
    df: Counter[str] = Counter()
    for text in unit_texts:
        df.update(set(content_terms(text)))
    n = len(unit_texts)
    weights = {t: math.log(1.0 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    unseen = math.log(1.0 + (n + 0.5) / 0.5)
    return lambda t: weights.get(t, unseen)
