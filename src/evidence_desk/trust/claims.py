"""Splitting an answer draft into claims, each with its citations and quotes.

A claim is one sentence of the draft. How a draft is read, all of it:

* Sentences end at `.`, `!` or `?` (closing `)` and further end marks included) when white
  space and then anything but a lower-case letter follows, or at the end of a paragraph.
  Citation markers right after the end mark belong to the sentence they follow
  (`... in 1933. [S2] Then ...`). A blank line always ends a sentence. A period after a
  known abbreviation (Mr., Dr., U.S., e.g., ...) or after a single initial does not.
* Quotes are never split. A quote is the text between straight double quotes `"..."` or
  curly `“...”`; a `”...”` pair (a common typing slip) is read as a quote too. A quote whose
  text ends with an end mark ends the sentence when its closing mark is followed (after
  optional markers) by white space and anything but a lower-case letter.
* An opening quote with no closing mark in the same paragraph makes a quote that runs to
  the end of its sentence, markers included. It is flagged `unclosed_quote` and never
  counts as verbatim, so the draft is held (strict on purpose: a reader cannot tell where
  such a quote ends).
* Single quotes and apostrophes are never quote marks; nor are guillemets or low quotes.
* Citations are bracketed markers outside quotes: `[S1]`, `[S1, S2]`, `[S1; S2]`,
  `[S1][S2]`, with ids matching `S\\d+` exactly. Every other bracketed text outside quotes
  (`[S]`, `[Source 1]`, `[1]`, `[s1]`, `[]`) is a malformed marker and counts as a citation
  to a source that does not exist. Brackets inside a quote are part of the quote.

The claim text keeps its markers; `strip_markers` removes them for display and for the
number check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_END_MARKS = ".!?"
_CLOSERS = {'"': '"', "“": "”", "”": "”"}  # opening mark -> the mark that closes it
_BRACKET = re.compile(r"\[[^\[\]\n]*\]")
_TRAILING_MARKERS = re.compile(r"(?:\s*\[[^\[\]\n]*\])*")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")
_CITATION_ID = re.compile(r"S\d+")
_MARKER_SEPARATORS = re.compile(r"[,;]")
_ABBREVIATION_WORDS = (
    "mr mrs ms dr st jr sr gen col capt lt sgt gov sen rep hon rev prof vs etc no nos fig "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.s.a u.k d.c a.m p.m i.e e.g"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())


@dataclass(frozen=True)
class DraftClaim:
    """One sentence of a draft. `start`/`end` are offsets of `text` in the draft."""

    text: str
    start: int
    end: int
    citations: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()
    unclosed_quote: bool = False  # the last quote has no closing mark


@dataclass
class _Span:
    start: int
    quotes: list[tuple[int, int]] = field(default_factory=list)
    brackets: list[tuple[int, int]] = field(default_factory=list)
    open_quote: int | None = None  # offset after an opening mark that is never closed


def split_claims(draft: str) -> list[DraftClaim]:
    """The draft's sentences, in order, each with its citations and quotes."""
    claims: list[DraftClaim] = []
    for start, end in _paragraphs(draft):
        for span, stop in _scan(draft, start, end):
            claim = _to_claim(draft, span, stop)
            if claim is not None:
                claims.append(claim)
    return claims


def strip_markers(text: str) -> str:
    """`text` without its citation markers (quotes untouched), white space tidied."""
    out: list[str] = []
    cursor = 0
    for start, end in _paragraphs(text):
        for span, _stop in _scan(text, start, end):
            for a, b in span.brackets:
                out.append(text[cursor:a].rstrip())
                cursor = b
    out.append(text[cursor:])
    return "".join(out).strip()


def _paragraphs(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    cursor = 0
    for gap in _BLANK_LINE.finditer(text):
        spans.append((cursor, gap.start()))
        cursor = gap.end()
    spans.append((cursor, len(text)))
    return spans


def _scan(text: str, start: int, stop: int) -> list[tuple[_Span, int]]:
    """Sentence spans of text[start:stop] with their quotes and marker brackets."""
    out: list[tuple[_Span, int]] = []
    span = _Span(start)
    i = start
    while i < stop:
        ch = text[i]
        end: int | None = None
        if span.open_quote is None and ch in _CLOSERS:
            close = text.find(_CLOSERS[ch], i + 1, stop)
            if close < 0:
                span.open_quote = i + 1
                i += 1
                continue
            span.quotes.append((i + 1, close))
            i = close + 1
            if close > span.quotes[-1][0] and text[close - 1] in _END_MARKS:
                end = _sentence_end(text, close, stop, span)
        elif span.open_quote is None and ch == "[" and (m := _BRACKET.match(text, i, stop)):
            span.brackets.append((i, m.end()))
            i = m.end()
        elif ch in _END_MARKS and not (ch == "." and _after_abbreviation(text, i)):
            end = _sentence_end(text, i, stop, span)
            i += 1
        else:
            i += 1
        if end is not None:
            out.append((span, end))
            span = _Span(end)
            i = end
    out.append((span, stop))
    return out


def _sentence_end(text: str, mark: int, stop: int, span: _Span) -> int | None:
    """If the end mark (or closing quote) at `mark` ends a sentence, the offset just past it.

    The sentence takes further end marks, a closing parenthesis and any markers that follow;
    those markers are recorded on `span` unless they sit inside an unclosed quote.
    """
    j = mark + 1
    while j < stop and text[j] in _END_MARKS + ")":
        j += 1
    markers_end = _TRAILING_MARKERS.match(text, j, stop)
    assert markers_end is not None  # a pattern of `*` repetitions always matches
    rest = text[markers_end.end() : stop]
    nxt = rest.lstrip()
    if nxt and (len(nxt) == len(rest) or nxt[0].islower()):
        return None
    if span.open_quote is None:
        span.brackets.extend(m.span() for m in _BRACKET.finditer(text, j, markers_end.end()))
    return markers_end.end()


def _after_abbreviation(text: str, dot: int) -> bool:
    k = dot
    while k > 0 and (text[k - 1].isalpha() or text[k - 1] == "."):
        k -= 1
    word = text[k:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _to_claim(text: str, span: _Span, stop: int) -> DraftClaim | None:
    raw = text[span.start : stop]
    start = span.start + len(raw) - len(raw.lstrip())
    end = span.start + len(raw.rstrip())
    if start >= end:
        return None
    quotes = [text[a:b] for a, b in span.quotes]
    if span.open_quote is not None:
        quotes.append(text[span.open_quote : end])
    citations: list[str] = []
    malformed: list[str] = []
    for a, b in span.brackets:
        for part in _MARKER_SEPARATORS.split(text[a + 1 : b - 1]):
            part = part.strip()
            if _CITATION_ID.fullmatch(part):
                if part not in citations:
                    citations.append(part)
            else:
                malformed.append(f"[{part}]")
    return DraftClaim(
        text=text[start:end],
        start=start,
        end=end,
        citations=tuple(citations),
        malformed=tuple(malformed),
        quotes=tuple(quotes),
        unclosed_quote=span.open_quote is not None,
    )
