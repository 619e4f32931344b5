"""Variants: two words that are forms of one verb, or (for the paraphrase tier) synonyms.

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

Synonyms are for the paraphrase tier alone (`paraphrase.py`), never for the extractive
contract: two content words are synonyms when WordNet 3.0 puts them in one synset among the
first `SYNONYM_SENSES` senses of each (its index lists a word's senses most frequent first,
so a rare sense never makes two words one: `cut` and `reduce` share their common sense,
`nation` and `country` theirs). The index files are read as data from the directory of
Debian's `wordnet-base` package (or `$WNSEARCHDIR`); without them no word has a synonym.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import os
from functools import cache, lru_cache
from pathlib import Path

from .units import STOP, fold

_MIN_LETTERS = 3
_TABLE = ("resources", "lemma_lu.csv.gz")
SYNONYM_SENSES = 3
_WORDNET_DIRS = ("/usr/share/wordnet",)
_WORDNET_POS = ("noun", "verb", "adj", "adv")


def _lexicon_path() -> Path:
    """Where the installed `lemminflect` package keeps its word table (found, not imported)."""
    spec = importlib.util.find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the lemminflect package (the verb lexicon) is not installed")
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*_TABLE)


@cache
def _lexicon() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(word -> its VERB lemmas, for every verb form; word -> the parts of speech the
    lexicon gives it), from one read of the table."""
    verbs: dict[str, frozenset[str]] = {}
    parts: dict[str, set[str]] = {}
    with gzip.open(_lexicon_path(), "rt", encoding="utf-8", newline="") as rows:
        for word, pos, lemmas in csv.reader(rows):
            parts.setdefault(word.lower(), set()).add(pos)
            if pos == "verb":
                verbs[word.lower()] = frozenset(lemma.lower() for lemma in lemmas.split("/"))
    return verbs, {word: frozenset(p) for word, p in parts.items()}


def _verbs() -> dict[str, frozenset[str]]:
    return _lexicon()[0]


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech LemmInflect's lexicon gives a word (`noun`, `verb`, `adj`, `adv`,
    ...), none for a word it does not know. The offline answerer reads noun phrases by them
    (`agents/offline/phrases.py`)."""
    return _lexicon()[1].get(word.lower(), frozenset())


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


def wordnet_dir() -> Path | None:
    """The directory of WordNet's index files, or None when none is installed."""
    for d in (os.environ.get("WNSEARCHDIR", ""), *_WORDNET_DIRS):
        if d and Path(d, "index.noun").is_file():
            return Path(d)
    return None


@cache
def _senses() -> dict[str, frozenset[tuple[str, str]]]:
    """Folded lemma -> its (part of speech, synset) pairs among its first senses."""
    out: dict[str, set[tuple[str, str]]] = {}
    root = wordnet_dir()
    for pos in _WORDNET_POS if root is not None else ():
        assert root is not None
        path = root / f"index.{pos}"
        if not path.is_file():
            continue
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                if line.startswith(" "):  # the license text at the top of each file
                    continue
                parts = line.split()
                lemma, count = parts[0], int(parts[2])
                if "_" in lemma:  # a phrase: never one word's synonym
                    continue
                synsets = parts[len(parts) - count :][:SYNONYM_SENSES]
                out.setdefault(fold(lemma), set()).update((pos, s) for s in synsets)
    return {word: frozenset(s) for word, s in out.items()}


@lru_cache(maxsize=1 << 16)
def _synsets(word: str) -> frozenset[tuple[str, str]]:
    senses = _senses()
    forms = {word, *verb_lemmas(word)}
    return frozenset(s for form in forms for s in senses.get(form, ()))


def senses(word: str) -> frozenset[tuple[str, str]]:
    """The WordNet senses of a folded content word (its first `SYNONYM_SENSES` in each part
    of speech, its verb lemmas' too): two words sharing one are synonyms. None for a stop
    word. Coverage reads them to credit a reader's synonym (`retrieval/coverage.py`)."""
    return frozenset() if word in STOP else _synsets(word)


def synonym(a: str, b: str, protected: frozenset[str] = frozenset()) -> bool:
    """`a` and `b` (folded content words) are variants, or share a common WordNet sense; a
    `protected` or stop word is only ever itself."""
    if variant(a, b, protected):
        return True
    if a in protected or b in protected or a in STOP or b in STOP:
        return False
    return bool(_synsets(a) & _synsets(b))
