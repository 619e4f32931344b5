"""Faithful drafts, written the ways people write, which the contract says must publish.

A contract that holds everything is as useless as one that holds nothing, so every hostile
family is measured next to these: a frame with the right speaker and year and a verbatim
quote; American punctuation (a period or comma inside the closing mark where the source has
a comma); curly and single quotes; a quote crossing a passage boundary; faithful negations,
quoted and unquoted; extractive paraphrase (articles or one or two harmless words dropped,
word forms unchanged, in source order); a quote that starts mid-sentence; a quote followed
by the rest of the sentence unquoted; the document's own date in a frame; and two-sentence
drafts mixing them, citing one source or two.
"""

from __future__ import annotations

import datetime as dt
import random

from evidence_desk.textutil import STOPWORDS

from .cases import (
    ARTICLES,
    AUXILIARIES,
    DISCLAIMERS,
    FAITHFUL,
    PREPOSITIONS,
    SUBORDINATE,
    Case,
    Kind,
    Pools,
    cite,
    decap,
    ends,
    has_negation,
    lower_words,
    meaningful,
    numeric,
    pick,
    qualified,
    quoted,
    said_frame,
    that_frame,
    who,
)
from .corpus import DocView
from .fam_breaks import MONTHS
from .fam_context import REPORTED


def _case(kind: str, doc: DocView, answer: str) -> Case:
    return Case(FAITHFUL, kind, doc.archive, answer, (doc.doc_id,))


def frame_quote(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    return None if s is None else _case("frame_quote", doc, quoted(said_frame(doc, rng), s.text))


def _statement(clause: str) -> bool:
    """A clause that reads as a statement of its own when a period ends it: five words or
    more, not led by a conjunction or preposition, with a finite verb (an auxiliary stands
    in for one), not ending on a function word."""
    words = lower_words(clause)
    return (
        len(words) >= 5
        and meaningful(clause)
        and not any(ch in clause for ch in ":;—–()")
        and words[0] not in SUBORDINATE | PREPOSITIONS
        and words[-1] not in STOPWORDS | SUBORDINATE
        and any(w in AUXILIARIES for w in words[1:])
    )


def american(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """`Roosevelt said, "we must act now." [S1]` where the source has `we must act now,`."""

    def usable_clause(t: str) -> bool:
        head, _, rest = t.partition(", ")
        return bool(rest) and _statement(head) and not qualified(rest)

    s = pick(rng, doc, usable_clause)
    if s is None:
        return None
    clause = s.text.split(", ")[0]
    name = who(doc, rng).replace("The article", "the article")
    if rng.random() < 0.5:
        return _case("american", doc, f'{name[0].upper() + name[1:]} said, "{clause}." [S1]')
    verb = "says" if doc.speaker is None else "said"
    return _case("american", doc, f'"{clause}," {name} {verb} [S1].')


def curly(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    if s is None:
        return None
    o, c = rng.choice([("“", "”"), ("‘", "’")])
    return _case(f"curly {o}{c}", doc, f"{said_frame(doc, rng)} {o}{s.text}{c} [S1]")


def _words_before(text: str, start: int, sentence_start: int) -> list[str]:
    return lower_words(text[sentence_start:start])[-8:]


def _function_word(word: str) -> bool:
    found = lower_words(word)
    return not found or found[-1] in STOPWORDS


def cross_passage(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The last words of passage k and the first words of passage k+1, quoted as one."""
    k = rng.randrange(len(doc.passages) - 1) if len(doc.passages) > 1 else -1
    if k < 0:
        return None
    last = [s for s in doc.sentences if s.passage == k][-1]
    first = next(s for s in doc.sentences if s.passage == k + 1)
    if not (last.text in {s.text for s in doc.clean} and first.text in {s.text for s in doc.clean}):
        return None
    tail = last.text.split()[-rng.randint(3, 6) :]
    words = first.text.split()
    n = rng.randint(3, 6)
    while n < min(len(words), 9) and _function_word(words[n - 1]):  # end on a content word
        n += 1
    if _function_word(words[n - 1]) or qualified(" ".join(words[n:])):
        return None
    head = ends(" ".join(words[:n]))
    text = doc.doc.text
    start = last.end - len(" ".join(tail))
    if text[start : last.end] != " ".join(tail) or text[start - 1].isalnum():
        return None
    if any(w in DISCLAIMERS for w in _words_before(text, start, last.start)):
        return None
    quote = f"{' '.join(tail)} {head}"
    if not meaningful(quote):
        return None
    return _case("cross_passage", doc, quoted(said_frame(doc, rng), quote))


def negation_quote(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc, has_negation)
    return None if s is None else _case("negation_quote", doc, quoted(said_frame(doc, rng), s.text))


def _not_a_question(text: str) -> bool:
    """A draft that states a source's question asserts what the source only asks."""
    return not text.rstrip(" \"'”’)").endswith("?")


def negation_unquoted(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc, lambda t: has_negation(t) and _not_a_question(t))
    if s is None:
        return None
    body = f"{that_frame(doc, rng)} {decap(s.text)}" if rng.random() < 0.6 else s.text
    return _case("negation_unquoted", doc, cite(body))


_HARMLESS = frozenset(
    "a an the this that these those very really truly indeed now also too".split()
)


def extractive(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A real sentence with its articles, or one or two words that only point or stress
    (`this`, `very`, `indeed`), left out. Dropping an adjective or a verb is a paraphrase:
    `faithful_prose.py` measures those."""
    s = pick(rng, doc, _not_a_question)
    if s is None:
        return None
    words = s.text.split()
    plain = [i for i, w in enumerate(words) if w.isalpha() and w.islower() and i > 0]
    drop: set[int] = set()
    if rng.random() < 0.4:
        drop = {i for i in plain if words[i] in ARTICLES}
    else:
        harmless = [i for i in plain[:-1] if words[i] in _HARMLESS]
        if harmless:
            i = rng.choice(harmless)
            run = rng.choice([1, 1, 2])
            drop = {j for j in range(i, i + run) if j in harmless}
    if not drop:
        return None
    kept = " ".join(w for i, w in enumerate(words) if i not in drop)
    body = f"{that_frame(doc, rng)} {decap(kept)}" if rng.random() < 0.4 else kept
    return _case(f"extractive -{len(drop)}", doc, cite(body))


def mid_quote(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A quote that starts mid-sentence, with no negation or disclaimer just before it, nor
    a view the sentence gives to others (`those who believed that ...`)."""
    s = pick(rng, doc, lambda t: len(t.split()) >= 10)
    if s is None:
        return None
    words = s.text.split()
    k = rng.randint(2, len(words) - 4)
    if any(w in DISCLAIMERS for w in lower_words(" ".join(words[max(0, k - 8) : k]))):
        return None
    if REPORTED.search(" ".join(words[:k]) + " "):
        return None
    quote = " ".join(words[k:])
    lead = lower_words(words[k])[:1]
    if not words[k][0].isalpha() or not lead or not meaningful(quote):
        return None
    if lead[0] in SUBORDINATE | PREPOSITIONS:
        return None
    return _case("mid_quote", doc, quoted(said_frame(doc, rng), quote))


def quote_then_words(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The first words quoted, the rest of the same sentence unquoted."""
    s = pick(rng, doc, lambda t: len(t.split()) >= 10)
    if s is None:
        return None
    words = s.text.split()
    k = rng.randint(4, len(words) - 3)
    quote, rest = " ".join(words[:k]), ends(" ".join(words[k:]))
    if numeric(words[k - 1]) or numeric(words[k]):  # never cut a figure in two
        return None
    if not meaningful(quote) or quote[-1] in ",;:" or not rest[:1].isalnum():
        return None
    return _case("quote_then_words", doc, f'{that_frame(doc, rng)} "{quote}" {rest} [S1].')


def date_frame(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    if s is None or doc.doc.date is None:
        return None
    day = dt.date.fromisoformat(doc.doc.date[:10])
    month = MONTHS[day.month - 1]
    lead = rng.choice(
        [
            f"On {month} {day.day}, {day.year}",
            f"On {day.day} {month} {day.year}",
            f"In {month} {day.year}",
            f"In {day.year}",
        ]
    )
    name = doc.speaker or "the article"
    return _case("date_frame", doc, quoted(f"{lead}, {name} said:", s.text))


SINGLE: tuple[Kind, ...] = (
    frame_quote,
    american,
    curly,
    cross_passage,
    negation_quote,
    negation_unquoted,
    extractive,
    mid_quote,
    quote_then_words,
    date_frame,
)


def two_sentences(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """Two faithful sentences: both from S1, or the second from another document as S2."""
    first = rng.choice(SINGLE)(rng, doc, pools)
    if first is None:
        return None
    others = [d for d in pools.get(doc.archive, ()) if d is not doc]
    other = rng.choice(others) if others and rng.random() < 0.5 else doc
    second = rng.choice(SINGLE)(rng, other, pools)
    if second is None:
        return None
    answer2 = second.answer if other is doc else second.answer.replace("[S1]", "[S2]")
    ids = (doc.doc_id,) if other is doc else (doc.doc_id, other.doc_id)
    kind = f"two: {first.kind} + {second.kind}"
    return Case(FAITHFUL, kind, doc.archive, f"{first.answer} {answer2}", ids)


KINDS: tuple[Kind, ...] = (*SINGLE, two_sentences, two_sentences)
