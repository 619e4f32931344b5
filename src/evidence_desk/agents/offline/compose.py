"""How the offline answerer writes a claim: a short frame from the source's metadata, the
quote cut clean, and a list's items named.

A claim opens with who spoke and when, in words the grounding contract reads as a frame
(docs/grounding.md, "Frames"), never the full title on every sentence:

    In 1941, Roosevelt said: "..." [S1].                      a speaker with an office
    In a 2015 article, Lindsay Young wrote: "..." [S2].       an author
    Roosevelt also said: "..." [S1].                          the same source again
    In 1941, Roosevelt spoke of "four essential human freedoms": "freedom of speech and
    expression", "freedom of every person to worship God in his own way", "freedom from
    want" and "freedom from fear" [S1].                       a list the source spells out

The speaker is named by surname only when it has an office (the archive's public figures)
and no other source of the run has another speaker of that surname (two Roosevelts, two
Bushes); otherwise by full name. The date is the year; the full date when the quote dates
something relative to its document ("last month"), so a reader can resolve it; none when
the quote names another year (the contract reads a frame's date as dating the quote). A
source with no speaker or author keeps the title frame (`answerer.frame`).

Every claim written here is checked by the gate's own code before it is used, and the
answerer falls back to the title frame when a composed one fails (`answerer.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...enumerations import enumerations
from ...types import Source
from .docdates import full_date

# A quote ends on a whole phrase, never on a dangling "; and" or an opening "(2)".
_DANGLING = re.compile(r"(?:[\s,;:—–-]+(?:and|or|but|nor))+[\s,;:—–-]*$", re.IGNORECASE)
_ENUMERATOR = re.compile(r"^\(?(?:\d{1,2}|[a-h])\)\s+|^\d{1,2}\.\s+(?=[A-Z])")
_TRAILING = " ,;:—–-"


def clean(quote: str) -> str:
    """The quote without an enumerator before it ("(2) ") or a conjunction left dangling
    after it ("...to wages; and"). Only its ends are trimmed, so it stays verbatim."""
    out = _ENUMERATOR.sub("", quote.strip())
    while True:
        trimmed = _DANGLING.sub("", out).rstrip(_TRAILING)
        if trimmed == out:
            return out
        out = trimmed


@dataclass(frozen=True)
class Voice:
    """How an answer names a source's speaker or author, and the verb it gives them."""

    name: str
    verb: str  # "said" for a speaker with an office, "wrote" for an author
    public: bool


def _display(name: str) -> str:
    """A name as read: a lower-case slug ("lindsay young") gets capitals."""
    return (
        name if any(c.isupper() for c in name) else " ".join(w.capitalize() for w in name.split())
    )


def voice(source: Source, sources: Sequence[Source]) -> Voice | None:
    """The source's voice, or None when its metadata names no one (or an author only by a
    one-word handle). Two authors at most are named."""
    if not source.names:
        return None
    full = source.names[0]
    if source.offices:
        surname = full.split()[-1]
        rivals = {
            s.names[0]
            for s in sources
            if s.names and s.names[0] != full and s.names[0].split()[-1] == surname
        }
        name = full if rivals else surname
        return Voice(name, "said", public=True)
    authors = [n for n in source.names if len(n.split()) > 1]
    if not authors:  # a handle ("jparcell") names no one a reader knows: the title frame
        return None
    shown = [_display(n) for n in authors[:2]]
    return Voice(" and ".join(shown), "wrote", public=False)


def _year(source: Source) -> str | None:
    return source.date[:4] if source.date and source.date[:4].isdigit() else None


def lead(source: Source, who: Voice, dating: str, again: bool, verb: str | None = None) -> str:
    """The frame before a claim's first quote, without the colon.

    `dating` is "year", "full" (the full date) or "none"; `again` says the claim follows
    another from the same source, which already named the date; `verb` replaces the
    voice's verb ("spoke of")."""
    said = verb or who.verb
    if again and dating != "full":
        return f"{who.name} also {said}"
    day = full_date(source.date) if dating == "full" else None
    if day:
        return f"On {day}, {who.name} {said}"
    year = _year(source) if dating != "none" else None
    if year is None:
        return f"{who.name} {said}"
    if who.public:
        return f"In {year}, {who.name} {said}"
    return f"In a {year} article, {who.name} {said}"


def quoted(source: Source, who: Voice, quote: str, dating: str, again: bool) -> str:
    """One claim: the frame, the verbatim quote in double quotes, the marker."""
    return f'{lead(source, who, dating, again)}: "{quote}" [{source.id}].'


def listed(
    source: Source, who: Voice, passage_text: str, sentence: str, dating: str, again: bool
) -> str | None:
    """The claim naming the items of a list that `sentence` (a sentence of the passage)
    announces, or None when it announces none that the passage spells out whole:
    `In 1941, Roosevelt spoke of "four essential human freedoms": "...", "..." and "..." [S1].`
    """
    at = passage_text.find(sentence)
    if at < 0:
        return None
    for e in enumerations(passage_text):
        if at <= e.head[0] and e.head[1] <= at + len(sentence):
            head = passage_text[e.head[0] : e.head[1]]
            items = [f'"{passage_text[a:b]}"' for a, b in e.items]
            listing = ", ".join(items[:-1]) + " and " + items[-1]
            frame = lead(source, who, dating, again, verb="spoke of")
            return f'{frame} "{head}": {listing} [{source.id}].'
    return None
