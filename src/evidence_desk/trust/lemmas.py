"""Inflection variants: two words that are forms of one verb.

`proposed`, `proposes` and `proposing` are one verb in three tenses and persons; a writer who
reports `I am proposing` writes `Kennedy proposed`. The grounding contract lets a sentence's
word stand for a passage's word when LemmInflect's lexicon gives both a VERB lemma in
common. The lexicon is the `lemminflect` package's word table (`resources/lemma_lu.csv.gz`:
word, part of speech, lemmas), read here as data: its code (and the numpy it loads) is never
imported, so trust stays pure. Nothing else varies: not nouns or adjectives (`better` is not
`good`), not a stop word or a critical one (`will` is not `would`, `can` is not `cannot`),
not a number or a word of one or two letters. The words compared are folded
(`units.fold`) first, as the contract compares words; a word the lexicon does not know is
only ever itself.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
from functools import cache, lru_cache
from pathlib import Path

from .units import STOP

_MIN_LETTERS = 3
_TABLE = ("resources", "lemma_lu.csv.gz")


def _lexicon_path() -> Path:
    """Where the installed `lemminflect` package keeps its word table (found, not imported)."""
    spec = importlib.util.find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the lemminflect package (the verb lexicon) is not installed")
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*_TABLE)


@cache
def _verbs() -> dict[str, frozenset[str]]:
    """Word -> its VERB lemmas, for every verb form in the lexicon."""
    out: dict[str, frozenset[str]] = {}
    with gzip.open(_lexicon_path(), "rt", encoding="utf-8", newline="") as rows:
        for word, pos, lemmas in csv.reader(rows):
            if pos == "verb":
                out[word.lower()] = frozenset(lemma.lower() for lemma in lemmas.split("/"))
    return out


@lru_cache(maxsize=1 << 16)
def verb_lemmas(word: str) -> frozenset[str]:
    """The VERB lemmas of a (folded) word, or none for a word that may not vary."""
    if len(word) < _MIN_LETTERS or not word.isalpha() or word in STOP:
        return frozenset()
    verbs = _verbs()
    # `fold` took an -s or -es (`proposes` -> `propos`): the forms it may have been
    forms = (word, word + "s", word + "es")
    return frozenset(lemma for form in forms for lemma in verbs.get(form, ()))


def variant(a: str, b: str, protected: frozenset[str] = frozenset()) -> bool:
    """`a` and `b` (folded words) are the same word, or forms of one verb; a `protected` word
    (the contract's critical words) is only ever itself."""
    if a == b:
        return True
    if a in protected or b in protected:
        return False
    return bool(verb_lemmas(a) & verb_lemmas(b))
