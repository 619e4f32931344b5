"""Characters a reader cannot see, or sees differently from what the checks read.

A draft is held, never cleaned, when it carries any of these: what a reader sees must be
what was checked. Each finding names the character and its offset in the claim's text.

* Anywhere in the draft, quotes included: an invisible format character (Unicode category
  Cf: zero-width space and joiners, soft hyphen, word joiner, byte-order mark, the bidi
  embeddings, overrides and isolates U+202A..U+202E and U+2066..U+2069, the marks U+200E,
  U+200F and U+061C).
* Outside quotes: a combining mark (categories Mn and Me: a strike-through U+0336 over a
  "not", an accent built from parts); and a word whose letters come from more than one
  script (Latin with a Cyrillic or Greek look-alike). Inside a quote these are the source's
  own text and the verbatim check compares them exactly.
"""

from __future__ import annotations

import re
import unicodedata

from .claims import DraftClaim

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _describe(ch: str, at: int) -> str:
    name = unicodedata.name(ch, "UNNAMED CHARACTER")
    return f"U+{ord(ch):04X} {name} at {at}"


def _script(ch: str) -> str | None:
    """The script of a letter, by the first word of its Unicode name (LATIN, CYRILLIC...)."""
    if not ch.isalpha():
        return None
    return unicodedata.name(ch, "UNKNOWN").split(" ")[0]


def _outside_quotes(claim: DraftClaim) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    cursor = 0
    for a, b in claim.quote_spans:
        spans.append((cursor, a))
        cursor = b
    spans.append((cursor, len(claim.text)))
    return spans


def hidden_characters(claim: DraftClaim) -> tuple[str, ...]:
    """Every character of the claim a reader may not see as the checks read it."""
    text = claim.text
    found = [_describe(ch, i) for i, ch in enumerate(text) if unicodedata.category(ch) == "Cf"]
    for a, b in _outside_quotes(claim):
        found.extend(
            _describe(text[i], i)
            for i in range(a, b)
            if unicodedata.category(text[i]) in ("Mn", "Me")
        )
        for word in _WORD.finditer(text, a, b):
            scripts = {s for s in map(_script, word.group(0)) if s is not None}
            if len(scripts) > 1:
                found.append(
                    f"the word {word.group(0)!r} at {word.start()} mixes "
                    f"{' and '.join(sorted(scripts))} letters"
                )
    return tuple(dict.fromkeys(found))
