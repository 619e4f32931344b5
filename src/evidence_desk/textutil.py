"""Sentence segmentation and term analysis shared by chunking, retrieval and the offline engine.

Sentence spans are offsets into the original text, never copies with altered white space,
so a sentence picked from a passage can be quoted verbatim. Term analysis uses tantivy's own
English stemmer, so the offline engine, the coverage check and the BM25 index agree on what
a "term" is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set
from functools import lru_cache

import tantivy

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before white space
# and an upper-case letter, digit or opening quote; or at a blank line.
_SENT_END = re.compile(r"""[.!?]["'”’)\]]*(\s+)(?=["'“‘(\[]?[A-Z0-9])|\n\s*\n""")
_BLANK_LINE = re.compile(r"\n\s*\n")
_INITIALS = re.compile(r"(?:[a-z]\.)*[a-z]")
# Abbreviations after which a period does not end a sentence.
_ABBREV = frozenset(
    "mr mrs ms dr st jr sr gen col capt lt sgt gov sen rep hon rev prof vs etc no nos "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.s.a d.c a.m p.m i.e e.g".split()
)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves said say says tell told mention mentioned""".split()
)


def _is_abbreviation(text: str, end: int) -> bool:
    """True when the period at `end - 1` closes a known abbreviation or an initial."""
    j = end - 1
    if j < 0 or text[j] != ".":
        return False
    k = j
    while k > 0 and (text[k - 1].isalpha() or text[k - 1] == "."):
        k -= 1
    word = text[k:j].lower()
    # Initials ("J.", "J.D.") never end a sentence.
    return word in _ABBREV or _INITIALS.fullmatch(word) is not None


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence (start, end) offsets within text[start:end], trimmed of surrounding white space."""
    stop = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in _SENT_END.finditer(text, start, stop):
        # The sentence keeps its closing punctuation and quotes; the white space goes.
        end_of_sentence = m.start(1) if m.group(1) is not None else m.start()
        inline = m.group(1) is not None and not _BLANK_LINE.search(m.group(1))
        if inline and _is_abbreviation(text, m.start() + 1):
            continue
        _append_trimmed(text, cursor, end_of_sentence, spans)
        cursor = m.end()
    _append_trimmed(text, cursor, stop, spans)
    return spans


def _append_trimmed(text: str, a: int, b: int, out: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        out.append((a, b))


@lru_cache(maxsize=1)
def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (no stemming)."""
    return [w.lower() for w in _WORD.findall(text)]


def stem_terms(text: str) -> list[str]:
    """Stemmed terms, in order, as the BM25 index sees them (stop words kept)."""
    return list(_analyzer().analyze(text))


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    out = _analyzer().analyze(word)
    return out[0] if out else word.lower()


def content_terms(text: str) -> list[str]:
    """Stemmed terms without stop words, in order, duplicates kept."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1]


def term_in(term: str, terms: Set[str]) -> bool:
    """True when a stem, or a stem sharing its prefix, is among `terms`.

    Stemmers leave related forms apart ("rail"/"railroad", "hundredth"/"hundred",
    "battleship"/"battl"); a shared prefix of at least four letters counts as a mention.
    """
    if term in terms:
        return True
    return len(term) >= 4 and any(
        len(t) >= 4 and (t.startswith(term) or term.startswith(t)) for t in terms
    )


def unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
