"""Noun phrases of a quote, and the one that says what a side of a comparison speaks of and
the other side does not: the closing pair of a comparison (`answerer.py`).

A noun phrase here is a run of words each of which LemmInflect's lexicon knows as a noun or
an adjective (`tax reduction and tax reform`, `unwarranted tax preferences`, `the tax
code`, `the development of atomic energy`), joined only by white space, a hyphen, or an
`and` or `of` (`of the`) after a noun, ending on a noun, with an article before it when it
has one. A noun of time does not open one (`this year of tax reduction` gives `tax
reduction`), nor a word that may be a verb after a subject or an auxiliary (`we have cut tax
rates` gives `tax rates`), and one that may be a verb after a plural does not end one (`the
Soviets beat`). Words the lexicon knows only as verbs or adverbs, stop
words and numbers end a run. The lexicon is the `lemminflect` package's word table, read as
data as `trust/lemmas.py` reads it.

A side's phrase must hold a term of the question (`tax` for "taxes") and a content word that
none of the other side's quotes holds: `Kennedy spoke of "tax reduction and tax reform"`
where Reagan's quotes speak of the tax code and tax rates. It is quoted verbatim, so the
gate checks it as any quote: at least 3 words, 2 of them not stop words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from ...textutil import STOPWORDS, stem, words
from ...trust.lemmas import parts_of_speech

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*")
_ARTICLES = frozenset({"the", "a", "an"})
_JOINERS = frozenset({"and", "of"})
# Words after which a word that may be a verb is one ("we have cut tax rates").
_SUBJECTS = frozenset(
    """i we you they he she it who have has had will would shall should must can could may
    might to not never also""".split()
)
# After a word that may be a verb in -s, these make it one ("remains unfair", "overshadows
# all other"); a modal after it leaves it a noun ("tax rates could").
_DETERMINERS = frozenset("the a an all this that these those our their his her its".split())
_MODIFIERS = frozenset({"adj", "noun", "verb"})
# Nouns of time that open no phrase ("the enactment this year of tax reduction").
_TIMES = frozenset(
    "year years month months week weeks day days time times today tonight century decade".split()
)
_NOMINAL = frozenset({"noun", "adj"})
MIN_WORDS, MAX_WORDS = 3, 7


@cache
def _nominal(word: str) -> bool:
    """A word the lexicon knows as a noun or adjective, and not a stop word."""
    return word not in STOPWORDS and bool(parts_of_speech(word) & _NOMINAL)


def _noun(word: str) -> bool:
    return "noun" in parts_of_speech(word)


def noun_phrases(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets in `text` of its noun phrases, in order (module docstring)."""
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _TOKEN.finditer(text)]
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(tokens):
        if not _nominal(tokens[k][2]):
            k += 1
            continue
        run = [k]
        j = k + 1
        while j < len(tokens) and _joined(text, tokens[j - 1], tokens[j]):
            word = tokens[j][2]
            if _nominal(word):
                run.append(j)
            elif word in _JOINERS and j + 1 < len(tokens):
                # `and` or `of` (`of the`) between two nominal words, never twice in a row
                nxt = j + 1
                if word == "of" and tokens[nxt][2] in _ARTICLES and nxt + 1 < len(tokens):
                    nxt += 1
                joined = all(_joined(text, tokens[i], tokens[i + 1]) for i in range(j, nxt))
                if not (joined and _nominal(tokens[nxt][2]) and _noun(tokens[j - 1][2])):
                    break
                run.extend(range(j, nxt))
                j = nxt
                continue
            else:
                break
            j += 1
        while run and not _noun(tokens[run[-1]][2]):
            run.pop()
        if len(run) > 1 and _acts(tokens[run[-2]], tokens[run[-1]]):
            run.pop()  # "the Soviets beat": a subject and its verb, not one noun
        while run and (tokens[run[0]][2] in _TIMES or tokens[run[0]][2] in _JOINERS):
            run.pop(0)  # "this year of tax reduction": the phrase is "tax reduction"
        if run and run[0] > 0 and tokens[run[0] - 1][2] in _SUBJECTS and _verb(tokens[run[0]]):
            run.pop(0)  # "we have cut tax rates": `cut` is the verb
        if len(run) > 1 and _ends_on_verb(tokens, run[-1]):
            run.pop()  # "the tax system remains unfair": `remains` is the verb
        if run:
            first = run[0]
            before = tokens[first - 1] if first > 0 else None
            if before and before[2] in _ARTICLES and _joined(text, before, tokens[first]):
                first -= 1
            out.append((tokens[first][0], tokens[run[-1]][1]))
        k = j
    return out


def _verb(token: tuple[int, int, str]) -> bool:
    return "verb" in parts_of_speech(token[2])


def _ends_on_verb(tokens: Sequence[tuple[int, int, str]], last: int) -> bool:
    """The word at `last` is a verb in -s, as the word after it shows: a determiner or an
    adjective (`remains unfair`, `overshadows all`)."""
    word, after = tokens[last][2], tokens[last + 1][2] if last + 1 < len(tokens) else ""
    if not (word.endswith("s") and _verb(tokens[last])):
        return False
    return after in _DETERMINERS or parts_of_speech(after) & _MODIFIERS == {"adj"}


def _acts(before: tuple[int, int, str], last: tuple[int, int, str]) -> bool:
    """The last word may be a verb whose subject is the plural before it (`Soviets beat`,
    `taxes rise`), not a noun that a singular modifies (`tax code`)."""
    word = before[2]
    plural = (
        word.endswith("s") and not word.endswith("ss") and (_noun(word[:-1]) or _noun(word[:-2]))
    )
    return plural and "verb" in parts_of_speech(last[2])


def _joined(text: str, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Nothing but white space between two tokens."""
    return not text[a[1] : b[0]].strip()


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS}


def distinct_phrase(
    quotes: Sequence[str], terms: Iterable[str], others: Sequence[str]
) -> str | None:
    """The first noun phrase of `quotes` (in order) holding a question term and a content
    word none of `others` holds, of `MIN_WORDS` to `MAX_WORDS` words, 2 of them not stop
    words; None when there is none."""
    asked = {stem(t) for t in terms}
    theirs = set().union(*(_stems(o) for o in others)) if others else set()
    for quote in quotes:
        for a, b in noun_phrases(quote):
            phrase = quote[a:b]
            said = words(phrase)
            content = [w for w in said if w not in STOPWORDS]
            if not MIN_WORDS <= len(said) <= MAX_WORDS or len(content) < 2:
                continue
            mine = {stem(w) for w in content}
            if mine & asked and mine - asked - theirs:
                return phrase
    return None
