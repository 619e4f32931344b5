"""Evidence at sentence grain, shared by the offline answerer and auditor.

Both roles read the same thing: the sentences of the sources' passages, each an exact
slice of its passage text (so a picked sentence can be quoted verbatim), with its stemmed
content terms. Term weights come from rarity among the sentences at hand unless a caller
supplies an IDF function (for instance the archive index's own).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ...textutil import content_terms, sentence_spans, stem, words
from ...types import Source

Idf = Callable[[str], float]
# Stop words that still name a topic ("freedom of speech", "the Union"): kept as terms of
# evidence sentences so a question's topic phrase can match them.
_TOPICAL = "speech state union"
TOPICAL_STOPWORDS = frozenset(_TOPICAL.split())
QUOTE_CHARS = '"“”'
_QUOTE_SPLIT = re.compile(r"[\"“”]")
_EDGE_PUNCT = " \t\n,;:-–—("


@dataclass(frozen=True)
class EvidenceSentence:
    """One sentence of one passage of one source.

    Invariant: `text` equals the passage's text[a:b] for the sentence span (a, b), so any
    substring of it is a verbatim quote of the stored source.
    """

    source_id: str
    passage_id: str
    order: int
    text: str
    terms: frozenset[str]  # stemmed content terms, plus topical stop words
    n_words: int
    passage_score: float


def collapse(text: str) -> str:
    """White-space runs collapsed to one space, ends trimmed (the quote comparison form)."""
    return " ".join(text.split())


def evidence_sentences(sources: Sequence[Source]) -> list[EvidenceSentence]:
    """All sentences of the sources' passages, in source then text order, duplicates once.

    Overlapping passage windows may repeat a sentence; it is kept once, under the passage
    that holds it first.
    """
    out: list[EvidenceSentence] = []
    for source in sources:
        seen: set[str] = set()
        order = 0
        for passage in sorted(source.passages, key=lambda p: (p.start, p.id)):
            for a, b in sentence_spans(passage.text):
                text = passage.text[a:b]
                key = collapse(text)
                if key in seen:
                    continue
                seen.add(key)
                topical = {stem(w) for w in words(text) if w in TOPICAL_STOPWORDS}
                terms = frozenset(content_terms(text)) | topical
                out.append(
                    EvidenceSentence(
                        source.id, passage.id, order, text, terms, len(text.split()), passage.score
                    )
                )
                order += 1
    return out


def local_idf(sentences: Sequence[EvidenceSentence], extra: Iterable[str] = ()) -> Idf:
    """Smoothed BM25-style IDF over the sentences at hand; unseen terms weigh the most."""
    df: Counter[str] = Counter()
    for s in sentences:
        df.update(s.terms)
    n = len(sentences)
    cache = {t: math.log(1.0 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    unseen = math.log(1.0 + (n + 0.5) / 0.5)
    for t in extra:
        cache.setdefault(t, unseen)
    return lambda t: cache.get(t, unseen)


def coverage(terms: Sequence[str], covered: Iterable[str], idf: Idf) -> float:
    """IDF-weighted fraction of `terms` found in `covered` (1.0 when there are no terms)."""
    total = sum(idf(t) for t in terms)
    if total <= 0:
        return 1.0
    have = set(covered)
    return sum(idf(t) for t in terms if t in have) / total


def greedy_cover(
    terms: Sequence[str],
    candidates: Sequence[EvidenceSentence],
    idf: Idf,
    max_sentences: int,
    pre_covered: Iterable[str] = (),
) -> tuple[float, list[EvidenceSentence]]:
    """Best coverage of `terms` by up to `max_sentences` candidates, picked greedily.

    Each step takes the sentence adding the most uncovered weight; ties go to the
    earlier candidate, so the result is deterministic.
    """
    covered = set(pre_covered)
    chosen: list[EvidenceSentence] = []
    wanted = set(terms)
    for _ in range(max_sentences):
        best, gain = None, 0.0
        for s in candidates:
            g = sum(idf(t) for t in (s.terms & wanted) - covered)
            if g > gain + 1e-12:
                best, gain = s, g
        if best is None:
            break
        chosen.append(best)
        covered |= best.terms
    return coverage(terms, covered, idf), chosen


def quotable(sentence: str, min_words: int = 8) -> str | None:
    """The sentence itself, or its longest part free of double quotes (>= min_words words).

    The result is a substring of `sentence` (only trimmed at its ends), so it stays
    verbatim; None when no part is long enough.
    """
    if not any(c in sentence for c in QUOTE_CHARS):
        return sentence.strip()
    parts = [p.strip(_EDGE_PUNCT) for p in _QUOTE_SPLIT.split(sentence)]
    parts = [p for p in parts if len(p.split()) >= min_words]
    if not parts:
        return None
    return max(parts, key=lambda p: len(p.split()))
