"""Family 2, `quote_meaning`: quotes that are verbatim and still make the sentence false.

Every quote here is found in the cited text, so the old verbatim check passes them all.
Kinds: a quote that starts or ends inside a word ("possible" out of "impossible"); one- or
two-word quotes, a single letter or a full stop in a false frame; a quote cut away from the
"not" / "cannot" / "not ... say that" / short "if ...," right before it; a main clause
quoted without the "if" / "unless" after it; a long true quote inside a false frame ("X
denied that ..."); a quoted head of one sentence run on into the tail of another; a true
quote followed by an antonym outside it; a wrong speaker or a wrong year in an attribution
frame; and a name borrowed from a second cited source's metadata.

A quote that also appears, on word boundaries and without the negation, elsewhere in the
document is not used: quoting it would be fair.
"""

from __future__ import annotations

import random
import re

from .cases import (
    ANTONYMS,
    CUT,
    DISCLAIMERS,
    NEGATIONS,
    Case,
    Kind,
    Pools,
    antonym_spots,
    conditional_head,
    decap,
    ends,
    like_case,
    lower_words,
    meaningful,
    negate,
    pick,
    quoted,
    said_frame,
    who,
)
from .corpus import SOTU, DocView, flatten

FAMILY = "quote_meaning"
_PREFIXED = re.compile(r"\b(?:im|un|in|non|dis)([a-z]{4,})\b")
_SUFFIXED = re.compile(r"\b([a-z]{4,})(?:less|ly|ful|ness)\b")
OTHER_PRESIDENTS = (
    "Abraham Lincoln",
    "Thomas Jefferson",
    "Theodore Roosevelt",
    "Dwight D. Eisenhower",
    "Harry S. Truman",
    "Woodrow Wilson",
    "Ronald Reagan",
    "Barack Obama",
    "John Adams",
    "Ulysses S. Grant",
)


def _case(kind: str, doc: DocView, answer: str, ids: tuple[str, ...] = ()) -> Case:
    return Case(FAMILY, kind, doc.archive, answer, ids or (doc.doc_id,), false=(answer,))


def _clean_tail(words: list[str]) -> str:
    return ends(" ".join(words))


def inside_word(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A quote that starts (or ends) inside a word, dressed as a normal attribution."""
    start = rng.random() < 0.6
    pattern = _PREFIXED if start else _SUFFIXED
    s = pick(rng, doc, lambda t: pattern.search(t) is not None)
    if s is None:
        return None
    m = pattern.search(s.text)
    assert m is not None
    if start:
        after = s.text[m.end() :].split()[: rng.randint(0, 4)]
        quote = _clean_tail([m.group(1), *after])
    else:
        before = s.text[: m.start()].split()
        before = before[len(before) - rng.randint(0, min(4, len(before))) :]
        quote = " ".join([*before, m.group(1)])
    if doc.says_as_words(quote):  # then the quote is also a fair one, somewhere else
        return None
    frame = rng.choice([f"{who(doc, rng)} called it", said_frame(doc, rng)])
    return _case("inside_word", doc, quoted(frame, quote))


def short(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A false sentence whose only quotes are a word or two, a letter or a full stop."""
    s = pick(rng, doc, lambda t: negate(t) is not None and len(t.split()) <= 30)
    if s is None:
        return None
    negated = negate(s.text)
    assert negated is not None
    words = negated.split()
    style = rng.choice(["not", "the", "pair", "letter", "stop"])
    if style == "not":
        i = next(j for j, w in enumerate(words) if w.strip(",.;:") == "not")
        words[i] = words[i].replace("not", '"not"', 1)
    elif style == "pair":
        i = rng.randrange(1, len(words) - 2)
        words[i], words[i + 1] = f'"{words[i]}', f'{words[i + 1]}"'
    elif style == "the" and "the" in words:
        words[words.index("the")] = '"the"'
    elif style == "letter":
        words.insert(1, '"a"')
    else:
        words.append('"."')
    body = " ".join(words)
    if body.count('"') % 2 or body.endswith('""'):
        return None
    answer = f"{who(doc, rng)} said that {decap(ends(body))} [S1]."
    return _case("short", doc, answer)


def dropped_negation(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The words after a `not` / `cannot` / `I do not say that`, quoted as the position."""
    s = pick(rng, doc, lambda t: CUT.search(t) is not None)
    if s is None:
        return None
    m = CUT.search(s.text)
    assert m is not None
    tail = s.text[m.end() :].split()[: rng.randint(4, 12)]
    quote = _clean_tail(tail)
    if not meaningful(quote) or any(w in NEGATIONS for w in lower_words(quote)):
        return None
    if doc.flat.count(flatten(quote)) != 1:  # said elsewhere without the negation
        return None
    return _case("dropped_negation", doc, quoted(said_frame(doc, rng), quote))


def two_quotes(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The head of one sentence, quoted, run on into the tail of another from passages away
    (quoted too, or not): two verbatim pieces read as one statement the source never made."""
    a = pick(rng, doc, lambda t: len(t.split()) >= 8)
    b = pick(rng, doc, lambda t: len(t.split()) >= 8)
    if a is None or b is None or abs(a.passage - b.passage) < 2:
        return None
    wa, wb = a.text.split(), b.text.split()
    first = ends(" ".join(wa[: rng.randint(3, len(wa) // 2)]))
    second = ends(" ".join(wb[len(wb) // 2 :]))
    if not (meaningful(first) and meaningful(second)) or doc.says(f"{first} {second}"):
        return None
    tail = rng.choice([f'"{second}"', second])
    return _case("two_quotes", doc, f'{who(doc, rng)} said "{first}" {tail} [S1].')


def condition_after(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The main clause quoted without the `if` / `unless` it holds under, with an American
    period: `Lincoln said, "People of any color seldom run."` (`... unless there be ...`)."""
    s = pick(rng, doc, lambda t: conditional_head(t) is not None)
    main = None if s is None else conditional_head(s.text)
    if main is None or not meaningful(main) or doc.says(main + "."):
        return None
    return _case("condition_after", doc, quoted(said_frame(doc, rng), main + "."))


def false_frame(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A long, true quote inside a frame that says the opposite."""
    s = pick(rng, doc, lambda t: not any(w in DISCLAIMERS for w in lower_words(t)))
    if s is None:
        return None
    name = doc.last_name or "the article"
    frame = rng.choice(
        [
            f"{name} denied that",
            f"{name} rejected the idea that",
            f"{name} called it a myth that",
            f"It is false, {name} said, that",
            f"{name} never said",
            f"{name} warned against the claim that",
        ]
    )
    return _case("false_frame", doc, quoted(frame[0].upper() + frame[1:], s.text))


def wrong_speaker(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    names = [  # not this speaker, nor one sharing his last name, nor one the text names
        n
        for n in OTHER_PRESIDENTS
        if n.split()[-1] != doc.last_name and n.split()[-1].lower() not in doc.flat
    ]
    if s is None or not names:
        return None
    name = rng.choice(names)
    name = rng.choice([name, name.split()[-1]])
    frame = rng.choice(
        [f"{name} said:", f"In his {doc.year} address, {name} said:", f"{name} wrote:"]
        if doc.speaker
        else [f"{name} wrote in the article:", f"According to {name},"]
    )
    return _case("wrong_speaker", doc, quoted(frame, s.text))


def wrong_year(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    s = pick(rng, doc)
    if s is None:
        return None
    year = str(int(doc.year) + rng.choice([-1, 1]) * rng.randint(1, 12))
    frame = (
        f"In his {year} address, {doc.speaker} said:"
        if doc.speaker
        else f"In {year}, the article said:"
    )
    return _case("wrong_year", doc, quoted(frame, s.text))


def borrowed_name(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """Quote S1, attribute it to S2's president, cite both."""
    s = pick(rng, doc)
    others = [d for d in pools.get(SOTU, ()) if d.speaker and d.speaker != doc.speaker]
    if s is None or not others:
        return None
    other = rng.choice(others)
    assert other.speaker is not None and other.last_name is not None
    name = rng.choice([other.speaker, other.last_name])
    frame = rng.choice([f"{name} said:", f"In his {other.year} address, {name} said:"])
    ids = ("S1", "S2")
    answer = quoted(frame, s.text, ids)
    return _case("borrowed_name", doc, answer, (doc.doc_id, other.doc_id))


def antonym_quote_frame(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A true quote of half a sentence, the rest paraphrased with an antonym outside it."""
    s = pick(rng, doc, lambda t: bool(antonym_spots(t)) and len(t.split()) >= 10)
    if s is None:
        return None
    m = antonym_spots(s.text)[-1]
    head = s.text[: m.start()].split()
    if len(head) < 4:
        return None
    cut = rng.randint(3, len(head) - 1)
    quote = " ".join(head[:cut])
    if not meaningful(quote) or '"' in quote:
        return None
    rest = " ".join(
        [*head[cut:], like_case(m.group(), ANTONYMS[m.group().lower()]), s.text[m.end() :]]
    )
    answer = f'{who(doc, rng)} said "{ends(quote)}" {ends(" ".join(rest.split()))} [S1].'
    return _case("quote_then_antonym", doc, answer)


KINDS: tuple[Kind, ...] = (
    inside_word,
    short,
    dropped_negation,
    false_frame,
    condition_after,
    two_quotes,
    wrong_speaker,
    wrong_year,
    borrowed_name,
    antonym_quote_frame,
)
