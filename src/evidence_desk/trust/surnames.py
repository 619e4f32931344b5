"""A surname names one speaker: an answer may not call two people by one name.

The contract lets a frame name the speaker by the last word of a name in the carrying
source's metadata (`Roosevelt said`, docs/grounding.md). Among the sources of one answer,
that word may belong to two speakers: Theodore and Franklin D. Roosevelt, George H. W. and
George W. Bush. Then `Roosevelt said: "..." [S2]` lets a reader take one for the other. A
sentence whose words outside its quotes name its carrying source's speaker by such a
surname is grounded only when the same words also give that source's year (`In 1905,
Roosevelt said`) or the speaker's full name. Names are the metadata's own, compared as
the contract compares words (`units.fold`); a one-word name is a surname, not a speaker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .units import tokens


@dataclass(frozen=True)
class Speakers:
    """A source's speaker names (`names` metadata) and its date."""

    names: tuple[str, ...]
    date: str | None = None

    def full(self) -> list[tuple[str, ...]]:
        """Each name of more than one word, as folded words."""
        out = [tuple(t.word for t in tokens(n)) for n in self.names]
        return [n for n in out if len(n) > 1]


def _outside(text: str, quote_spans: Sequence[tuple[int, int]]) -> str:
    """The sentence with its quotes blanked out."""
    chars = list(text)
    for a, b in quote_spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _holds(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == tuple(phrase) for i in range(len(words) - n + 1))


def ambiguous_surname(
    text: str,
    quote_spans: Sequence[tuple[int, int]],
    source_id: str,
    sources: Mapping[str, Speakers],
) -> str | None:
    """The problem when the sentence names source `source_id`'s speaker by a surname that
    another speaker among `sources` shares, with neither the year nor the full name."""
    own = sources.get(source_id)
    if own is None:
        return None
    words = [t.word for t in tokens(_outside(text, quote_spans))]
    year = own.date[:4] if own.date and own.date[:4].isdigit() else None
    for name in own.full():
        surname = name[-1]
        if surname not in words or _holds(words, name) or (year and year in words):
            continue
        rivals = {
            other
            for sid, speakers in sources.items()
            if sid != source_id
            for other in speakers.full()
            if other[-1] == surname and other != name
        }
        if rivals:
            return (
                f"'{surname.capitalize()}' names more than one speaker among the sources: "
                "give the year or the full name."
            )
    return None
