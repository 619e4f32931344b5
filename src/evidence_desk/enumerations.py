"""Lists a text announces and then spells out, one sentence an item.

    In the future days ... we look forward to a world founded upon four essential human
    freedoms. The first is freedom of speech and expression—everywhere in the world. The
    second is ... The fourth is freedom from fear—which, ...

An **enumeration** is an announcing sentence that names a count and a plural noun
(`four essential human freedoms`, `three great goals`), followed at once by exactly that
many sentences that open with the ordinals in turn (`The first is`, `The second is`, ...,
`The last is`), each naming its item before the first dash, comma, colon, semicolon,
parenthesis or end. Anything else (a missing ordinal, a sentence between, more or fewer
items than the count) is no enumeration: a list read wrong would name items the speaker
did not list.

Two parts of the desk read them: selection lets a passage that a window cut inside a list
run on to the list's end (`runs/selection.py`), and the offline answerer names the items
(`agents/offline/compose.py`). All spans are offsets into the text given, so what is
quoted from them stays verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .textutil import sentence_spans

COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# The count, up to three modifiers, and a plural noun: "four essential human freedoms".
_ANNOUNCE = re.compile(
    r"\b(?P<count>" + "|".join(COUNTS) + r")\s+(?:[a-z][a-z-]*\s+){0,3}[a-z][a-z-]*s\b",
    re.IGNORECASE,
)
_ITEM = re.compile(
    r"\W*(?:the\s+)?(?P<ordinal>" + "|".join(ORDINALS) + r"|last|final)(?:\s+one)?\s+"
    r"(?:is|was|are|were|will\s+be)\s+(?P<item>[^—–,;:()]+?)\s*(?:[—–,;:(]|\s-\s|[.!?]?\s*$)",
    re.IGNORECASE,
)
MAX_ITEM_WORDS = 14  # an item longer than this is a sentence, not a list item
READ_AHEAD = 1_000  # characters read past a window for each item it is missing


@dataclass(frozen=True)
class Enumeration:
    """`head` spans the count and noun, `items` each item's words, `end` the last item
    sentence's end: offsets into the text read."""

    head: tuple[int, int]
    items: tuple[tuple[int, int], ...]
    end: int


def _item(text: str, a: int, b: int, number: int, count: int) -> tuple[int, int] | None:
    """The item span of sentence text[a:b] when it opens with the `number`-th ordinal."""
    m = _ITEM.match(text, a, b)
    if m is None:
        return None
    ordinal = m.group("ordinal").lower()
    expected = ORDINALS[number - 1]
    if ordinal != expected and not (ordinal in ("last", "final") and number == count > 1):
        return None
    i, j = m.span("item")
    if not 0 < len(text[i:j].split()) <= MAX_ITEM_WORDS:
        return None
    return i, j


def enumerations(text: str) -> list[Enumeration]:
    """Every enumeration wholly inside `text`."""
    spans = sentence_spans(text)
    found: list[Enumeration] = []
    for k, (a, b) in enumerate(spans):
        head = _head(text, a, b)
        if head is None:
            continue
        count = COUNTS[head[2].lower()]
        items = _items(text, spans[k + 1 : k + 1 + count], count)
        if len(items) == count:
            found.append(Enumeration(head[:2], tuple(i for i, _ in items), items[-1][1]))
    return found


def _head(text: str, a: int, b: int) -> tuple[int, int, str] | None:
    """The last count-and-noun phrase of sentence text[a:b], with its count word."""
    heads = list(_ANNOUNCE.finditer(text, a, b))
    if not heads:
        return None
    m = heads[-1]
    return m.start(), m.end(), m.group("count")


def _items(
    text: str, spans: list[tuple[int, int]], count: int, first: int = 1
) -> list[tuple[tuple[int, int], int]]:
    """(item span, sentence end) for the ordinal sentences that open `spans`, numbered
    from `first`, in turn."""
    items: list[tuple[tuple[int, int], int]] = []
    for number, (a, b) in enumerate(spans, start=first):
        item = _item(text, a, b, number, count) if number <= count else None
        if item is None:
            break
        items.append((item, b))
    return items


def runs_on(text: str, start: int, end: int) -> int:
    """Where a window text[start:end] should end so that a list it cuts is whole: the end
    of the list's last item sentence, when the window holds the announcing sentence and
    the list's first items up to its own end, and the text right after it the rest; else
    `end` unchanged."""
    window = text[start:end]
    spans = sentence_spans(window)
    for k, (a, b) in enumerate(spans):
        head = _head(window, a, b)
        if head is None:
            continue
        count = COUNTS[head[2].lower()]
        inside = _items(window, spans[k + 1 :], count)
        if not inside or len(inside) == count or k + 1 + len(inside) != len(spans):
            continue  # no list, a whole one, or one that stops before the window ends
        missing = count - len(inside)
        limit = min(len(text), end + READ_AHEAD * missing)
        after = sentence_spans(text, end, limit)
        rest = _items(text, after[:missing], count, first=len(inside) + 1)
        if len(rest) == missing and (rest[-1][1] < limit or limit == len(text)):
            return rest[-1][1]
    return end
