"""Family 1, `unquoted`: sentences built from the cited document's own words, saying else.

No quotes, so no verbatim check can stop them: only "one passage carries every word, in
order" can. Kinds: an antonym swapped in, a different actor, two figures swapped, a wrong
item in a list, stance words around a real sentence ("It is false that ..."), a true
sentence followed by `; ` and a false clause, a sentence stitched from the first half of
one real sentence and the second half of another, a negation added or removed, a qualifier
left out (`may`, `only`, `nearly`), the clause after a short `if ...,` or a `not ... say
that` stated on its own, and a main clause stated without the `if` / `unless` after it.
"""

from __future__ import annotations

import random
import re
from functools import cache

from .cases import (
    CUT,
    NUMBER,
    WORD,
    Case,
    Kind,
    Pools,
    antonym_spots,
    antonym_swap,
    cite,
    conditional_head,
    decap,
    ends,
    falsify,
    has_negation,
    like_case,
    lower_words,
    negate,
    pick,
    same_word,
    swap_span,
    that_frame,
    unnegate,
)
from .corpus import DocView

FAMILY = "unquoted"
QUALIFIERS = frozenset(
    "only may might nearly almost partly perhaps some most many several few probably".split()
)
_LIST = re.compile(r"\b([A-Za-z]+), ([A-Za-z]+),? and ([A-Za-z]+)\b")


def _case(kind: str, doc: DocView, false: str, rng: random.Random, frame: bool = True) -> Case:
    body = f"{that_frame(doc, rng)} {decap(false)}" if frame and rng.random() < 0.4 else false
    answer = cite(body)
    return Case(FAMILY, kind, doc.archive, answer, (doc.doc_id,), false=(answer,))


def _checked(doc: DocView, text: str | None) -> str | None:
    return None if text is None or doc.says(ends(text)) else text


def antonym(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc, lambda t: bool(antonym_spots(t)))
    if s is None:
        return None
    out = _checked(doc, antonym_swap(s.text, rng))
    return None if out is None else _case("antonym", doc, out, rng)


@cache
def _names(doc: DocView) -> tuple[str, ...]:
    """Capitalised words seen mid-sentence in the document (names of people, places, bodies)."""
    found: dict[str, None] = {}
    for s in doc.clean:
        for m in WORD.finditer(s.text):
            w = m.group()
            if m.start() > 0 and w[0].isupper() and len(w) >= 4 and w.isalpha():
                found.setdefault(w)
    return tuple(found)


def actor(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    names = _names(doc)
    s = pick(rng, doc, lambda t: any(w in names for w in WORD.findall(t)))
    if s is None:
        return None
    spots = [m for m in WORD.finditer(s.text) if m.group() in names]
    m = spots[0]
    others = [n for n in names if n not in s.text and not same_word(n, m.group())]
    if not others:
        return None
    out = _checked(doc, swap_span(s.text, m.start(), m.end(), rng.choice(others)))
    return None if out is None else _case("actor", doc, out, rng)


def figures(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    def two(t: str) -> bool:
        return len({m.group() for m in NUMBER.finditer(t)}) >= 2

    s = pick(rng, doc, two)
    if s is None:
        return None
    found = list(NUMBER.finditer(s.text))
    a = found[0]
    b = next(m for m in found[1:] if m.group() != a.group())
    text = s.text
    out = text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]
    out2 = _checked(doc, out)
    return None if out2 is None else _case("figures", doc, out2, rng)


def list_item(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc, lambda t: _LIST.search(t) is not None)
    if s is None:
        return None
    m = _LIST.search(s.text)
    assert m is not None
    g = rng.randint(1, 3)
    item = m.group(g)
    pool = (
        _names(doc)
        if item[0].isupper()
        else tuple(
            w for t in doc.clean for w in WORD.findall(t.text) if w.islower() and len(w) >= 5
        )
    )
    choices = [w for w in pool if w.lower() not in s.text.lower() and not same_word(w, item)]
    if not choices:
        return None
    new = like_case(item, rng.choice(choices))
    out = _checked(doc, swap_span(s.text, m.start(g), m.end(g), new))
    return None if out is None else _case("list_item", doc, out, rng)


def negation(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A `not` added after the first auxiliary, or the sentence's own `not` taken out."""
    s = pick(rng, doc, lambda t: negate(t) is not None or unnegate(t) is not None)
    if s is None:
        return None
    out = _checked(doc, negate(s.text) or unnegate(s.text))
    return None if out is None else _case("negation", doc, " ".join(out.split()), rng)


def qualifier(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A qualifier left out (`may`, `only`, `nearly`, `some`): the claim says more."""
    s = pick(rng, doc, lambda t: any(w in QUALIFIERS for w in lower_words(t)))
    if s is None:
        return None
    spots = [m for m in WORD.finditer(s.text) if m.group().lower() in QUALIFIERS and m.start()]
    if not spots:
        return None
    m = rng.choice(spots)
    out = _checked(doc, " ".join(swap_span(s.text, m.start(), m.end(), "").split()))
    return None if out is None else _case("qualifier", doc, out, rng)


def cut_away(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The clause after a short `if ...,` or a `not ... say that`, unquoted, as a statement."""

    def clause_cut(text: str) -> re.Match[str] | None:
        m = CUT.search(text)
        whole_clause = m and (m.group().rstrip().endswith("that") or m.group()[0] in "iIuUwW")
        return m if whole_clause else None

    s = pick(rng, doc, lambda t: clause_cut(t) is not None)
    m = None if s is None else clause_cut(s.text)
    if s is None or m is None:
        return None
    rest = s.text[m.end() :]
    if len(rest.split()) < 4 or has_negation(rest):
        return None
    return _case("cut_away", doc, f"{that_frame(doc, rng)} {rest}", rng, frame=False)


def condition_after(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A main clause stated without the `if` / `unless` that follows it in the source."""
    s = pick(rng, doc, lambda t: conditional_head(t) is not None)
    main = None if s is None else conditional_head(s.text)
    if main is None or len(main.split()) < 5:
        return None
    return _case("condition_after", doc, main, rng)


def stance(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    if s is None:
        return None
    name = doc.last_name or "The article"
    template = rng.choice(
        [
            "It is false that {s}",
            "{n} rejected the claim that {s}",
            "{n} refused to accept that {s}",
            "{n} opposed the idea that {s}",
            "{n} falsely claimed that {s}",
            "{n} denied that {s}",
            "Falsely, {s}",
        ]
    )
    out = template.format(n=name, s=decap(s.text))
    return _case("stance", doc, out, rng, frame=False)


def semicolon(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc, lambda t: len(t.split()) <= 30)
    t = pick(rng, doc, lambda t: len(t.split()) <= 25)
    if s is None or t is None or s == t:
        return None
    clause = falsify(t.text, rng, doc)
    if clause is None:
        return None
    out = f"{ends(s.text)}; {decap(ends(clause))}"
    return _case("semicolon", doc, out, rng)


def stitched(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    a = pick(rng, doc)
    b = pick(rng, doc)
    if a is None or b is None or abs(a.passage - b.passage) < 2:
        return None
    wa, wb = a.text.split(), b.text.split()
    head = wa[: max(len(wa) * rng.randint(40, 60) // 100, 3)]
    tail = wb[len(wb) * rng.randint(40, 60) // 100 :]
    out = _checked(doc, " ".join(head + tail))
    return None if out is None else _case("stitched", doc, out, rng)


KINDS: tuple[Kind, ...] = (
    antonym,
    actor,
    figures,
    list_item,
    stance,
    semicolon,
    stitched,
    negation,
    qualifier,
    cut_away,
    condition_after,
)
