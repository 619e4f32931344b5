"""A list a claim names, gathered from the consecutive sentences its source spells it out in.

`Roosevelt named four freedoms: freedom of speech and expression, freedom of worship,
freedom from want and freedom from fear [S1].` rests on five sentences of the 1941 address:
the one that announces "four essential human freedoms" and the four that name them, one
each. No one sentence covers it, so the auditor's one-sentence cover finds it `partial`;
read as a list it is what the source says.

A claim is read as a list when, outside any quote, a head and a colon come before at least
two items separated by commas or `and`. It is gathered when, in one passage window of a
cited source:

* every content word of each item is in one sentence, each item's sentence at or after the
  one before (`freedom of worship` in "The second is freedom of every person to worship
  God in his own way");
* every content word of the head, but for its frame (the speaker's names, the source's date,
  the contract's frame words) and a verb that says what the source does (`named`,
  `listed`, `described`, ...), is in the sentence just before the first item's or in that
  sentence;
* the sentences used follow each other, with none left out between them.

The auditor then names those sentences as the spans the claim rests on, and the paraphrase
tier checks the claim against them in code, every anchor with its polarity
(`trust/paraphrase.py`): a lying list is held there, whatever this module says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ...textutil import content_terms
from .evidence import EvidenceSentence

_LIST = re.compile(r"^(?P<head>[^:\"“”]+):\s+(?P<items>[^:\"“”]+?)[.!]?$")
_SEPARATORS = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
# Verbs that say what the source does with the list, not what the list is.
_NAMING = frozenset(content_terms("named names listed lists described describes gave gives"))
MIN_ITEMS = 2


def list_parts(body: str) -> tuple[str, list[str]] | None:
    """(head, items) of a claim's text read as a list, or None."""
    m = _LIST.match(body.strip())
    if m is None:
        return None
    items = [i.strip() for i in _SEPARATORS.split(m.group("items")) if i.strip()]
    if len(items) < MIN_ITEMS or not all(content_terms(i) for i in items):
        return None
    return m.group("head"), items


def gathered(
    body: str, sentences: Sequence[EvidenceSentence], framing: Iterable[str]
) -> list[EvidenceSentence]:
    """The consecutive sentences of one window (`sentences`) that a list claim rests on,
    head first; empty when it is no list or they do not spell it out. `framing` are the
    head's terms that need no sentence: the speaker's names, the frame's words and the
    source's date."""
    parts = list_parts(body)
    if parts is None:
        return []
    head, items = parts
    ordered = sorted(sentences, key=lambda s: s.order)
    used: list[int] = []
    at = 0
    for item in items:
        terms = set(content_terms(item))
        k = next((j for j in range(at, len(ordered)) if terms <= ordered[j].terms), None)
        if k is None:
            return []
        used.append(k)
        at = k
    wanted = set(content_terms(head)) - set(framing) - _NAMING
    first = used[0]
    announcing = [j for j in (first - 1, first) if j >= 0 and wanted <= ordered[j].terms]
    if not announcing:
        return []
    chosen = sorted({announcing[0], *used})
    orders = [ordered[j].order for j in chosen]
    if orders != list(range(orders[0], orders[0] + len(orders))):
        return []
    return [ordered[j] for j in chosen]
