"""A source's passage as the pages mark it: pieces cut at every quote and resting stretch.

A page highlights exactly what a receipt records: the offsets of each verbatim quote, and of
each stretch a paraphrased sentence rests on (`checks.rests_on`). The spans may overlap;
every piece lies wholly inside or outside each span, and the pieces cover the passage's text
exactly, in order. Nothing here renders HTML: the templates escape each piece's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple


class Piece(NamedTuple):
    """A stretch of a passage and how it is marked: quoted by a sentence, rested on by the
    paraphrased sentences `rests` (their numbers as the answer shows them, `shown_claims`),
    and `starts`, those of them whose resting words begin here on the page (`#rests-N`)."""

    text: str
    quoted: bool = False
    rests: tuple[int, ...] = ()
    starts: tuple[int, ...] = ()


def pieces(
    text: str,
    start: int,
    quotes: Sequence[tuple[int, int]],
    rests: Sequence[tuple[int, int, int]] = (),
) -> tuple[Piece, ...]:
    """`text` (which starts at `start` in the document) cut at every edge of the quote spans
    `(start, end)` and resting spans `(start, end, sentence number)` inside it. Spans may
    overlap: each piece lies wholly inside or outside each span, and the pieces cover `text`
    exactly, in order (the page's highlights are the receipt's offsets, nothing more)."""
    size = len(text)

    def inside(s: int, e: int) -> tuple[int, int]:
        return min(max(s - start, 0), size), min(max(e - start, 0), size)

    q = [inside(s, e) for s, e in quotes]
    r = [(*inside(s, e), n) for s, e, n in rests]
    cuts = sorted(
        {0, size, *(x for a, b in q for x in (a, b)), *(x for a, b, _ in r for x in (a, b))}
    )
    return tuple(
        Piece(
            text[a:b],
            any(s <= a and b <= e for s, e in q),
            tuple(sorted({n for s, e, n in r if s <= a and b <= e})),
        )
        for a, b in pairwise(cuts)  # strictly increasing: no empty piece
    )


def first_rests(passages: list[tuple[Piece, ...]]) -> list[tuple[Piece, ...]]:
    """The pieces with `starts` set: each sentence's first resting piece on the page."""
    seen: set[int] = set()
    out = []
    for passage in passages:
        marked = []
        for piece in passage:
            starts = tuple(n for n in piece.rests if n not in seen)
            seen.update(starts)
            marked.append(piece._replace(starts=starts) if starts else piece)
        out.append(tuple(marked))
    return out
