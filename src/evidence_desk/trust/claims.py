"""Splitting an answer draft into claims, each with its citations and quotes.

A claim is one sentence of the draft: what a reader sees as a sentence is what gets checked,
so the splitter breaks wherever a reader sees a break. How a draft is read, all of it:

* Lines. Every line break ends a sentence: LF, CR, CR LF, VT, FF, U+001C..U+001E, U+0085
  NEXT LINE, U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR. A list marker (`-`, `*`,
  `+`, `•`, `1.`, `1)`) or a heading marker (`#` to `######`) at the start of a line is not
  part of the sentence after it.
* Sentences within a line end at `.`, `!`, `?`, `。`, `！` or `？` (closing `)` and further end
  marks included) followed by white space, and `。！？` also without it. A lower-case word
  after the end mark starts a new sentence too. A period after a known abbreviation (Mr.,
  Dr., U.S., e.g., ...) or an initial (`W.`, `H.W.`) does not end a sentence: such a sentence is
  judged whole, all of its words. Citation markers right after the end mark belong to the
  sentence they follow (`... in 1933. [S2] Then ...`).
* Quotes are never split, and never cross a line. Every quotation mark in common use opens
  one (`OPENERS` below): straight and curly double quotes, single quotes, low quotes,
  guillemets either way, full-width and prime quotes, CJK corner brackets, doubled single
  quotes, backticks and `<q>...</q>`. Every other character a reader may take for a
  quotation mark (`QUOTE_LIKE`: Unicode's Quotation_Mark property, initial and final
  punctuation, quote ornaments such as ❝ ❞) opens a quote too, which the next quote-like
  mark on the line closes. A straight or curly single mark opens a quote only at
  the start of a word and closes one only at the end of a word, so an apostrophe inside a
  word (nation's) or after one with no quote open (students' books) is not a mark. A line
  starting with `>` (a blockquote) quotes the rest of the line, up to its trailing markers.
  A quote whose text ends with an end mark ends the sentence like an end mark would.
* Unbalanced marks. An opening mark with no closing mark on its line, or a closing mark with
  no opening one (`”`, `»`, `」`, `</q>` ... standing alone), marks the sentence
  `unbalanced`: its quotes never count as verbatim, so the draft is held (a reader cannot
  tell what is quoted).
* Citations are bracketed markers outside quotes: `[S1]`, `[S1, S2]`, `[S1; S2]`,
  `[S1][S2]`, with ids matching `S\\d+` exactly. Every other bracketed text outside quotes
  (`[S]`, `[Source 1]`, `[1]`, `[s1]`, `[]`) is a malformed marker and counts as a citation
  to a source that does not exist. Brackets inside a quote are part of the quote.

The claim text keeps its markers; `strip_markers` removes them for display and for the
number check.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_END_MARKS = ".!?。！？"
_CJK_END = "。！？"
# Opening mark -> the marks that close it. Multi-character marks are tried first.
OPENERS: dict[str, tuple[str, ...]] = {
    "<q>": ("</q>",),
    "``": ("''",),
    "''": ("''",),
    '"': ('"',),
    "“": ("”",),
    "”": ("”",),
    "„": ("“", "”"),
    "‘": ("’",),
    "'": ("'",),
    "‚": ("‘", "’"),
    "«": ("»",),
    "»": ("«",),
    "‹": ("›",),
    "›": ("‹",),
    "＂": ("＂",),
    "″": ("″",),
    "〝": ("〞", "〟"),
    "「": ("」",),
    "『": ("』",),
    "`": ("`",),
}
# Unicode's Quotation_Mark characters (PropList.txt), which `unicodedata` does not expose.
_QUOTATION_MARK = "\"'«»‘’‚‛“”„‟‹›⹂「」『』〝〞〟﹁﹂﹃﹄＂＇｢｣"
# Ornaments drawn as quotation marks (dingbats, symbols): a reader sees them as quotes.
_ORNAMENTS = "❛❜❝❞❟❠❮❯⹀⹁\U0001f676\U0001f677\U0001f678"


def _quote_like() -> frozenset[str]:
    """Every character a reader may take for a quotation mark: the Quotation_Mark property,
    initial and final punctuation (Pi, Pf), and quote ornaments."""
    found = set(_QUOTATION_MARK + _ORNAMENTS)
    for code in range(0x20, 0x1FFFF):
        if unicodedata.category(chr(code)) in ("Pi", "Pf"):
            found.add(chr(code))
    return frozenset(found)


QUOTE_LIKE = _quote_like()
# Marks outside `OPENERS` open a quote that any quote-like mark closes: a draft cannot wrap
# text in a mark the splitter does not know and have it read as its own words.
_GENERIC = frozenset(c for c in QUOTE_LIKE if c not in OPENERS and c not in "’〞〟」』")
_SINGLE = frozenset("'‘’‚")  # marks that may also be apostrophes: word-boundary rules apply
_STRAY_CLOSERS = ("’", "〞", "〟", "」", "』")  # the other closers open quotes too
_Q_OPEN = re.compile(r"<q(?:\s[^<>]*)?>", re.IGNORECASE)
_Q_CLOSE = re.compile(r"</q\s*>", re.IGNORECASE)
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_LIST_MARKER = re.compile(r"[^\S\n]*(?:[-*+•]|\d{1,3}[.)]|#{1,6})[^\S\n]+")
_BLOCKQUOTE = re.compile(r"[^\S\n]*>[^\S\n]*")
_BRACKET = re.compile(r"\[[^\[\]\n]*\]")
_TRAILING_MARKERS = re.compile(r"(?:\s*\[[^\[\]\n]*\])*")
_CITATION_ID = re.compile(r"S\d+")
_MARKER_SEPARATORS = re.compile(r"[,;]")
_ABBREVIATION_WORDS = (
    "mr mrs ms dr st jr sr gen col capt lt sgt gov sen rep hon rev prof vs etc no nos fig "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.s.a u.k d.c a.m p.m i.e e.g "
    "approx cf ca al inc ltd co corp dept est vol pp"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")  # `W`, `H.W` (George H.W. Bush)


@dataclass(frozen=True)
class DraftClaim:
    """One sentence of a draft. `start`/`end` are offsets of `text` in the draft, and
    `quote_spans` the offsets of each quote in `text` (marks excluded)."""

    text: str
    start: int
    end: int
    citations: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()
    quote_spans: tuple[tuple[int, int], ...] = ()
    unbalanced: bool = False  # a quotation mark without its partner


@dataclass
class _Span:
    start: int
    quotes: list[tuple[int, int]] = field(default_factory=list)
    brackets: list[tuple[int, int]] = field(default_factory=list)
    unbalanced: bool = False


def split_claims(draft: str) -> list[DraftClaim]:
    """The draft's sentences, in order, each with its citations and quotes."""
    claims: list[DraftClaim] = []
    for start, end in _lines(draft):
        for span, stop in _scan(draft, start, end):
            claim = _to_claim(draft, span, stop)
            if claim is not None:
                claims.append(claim)
    return claims


def strip_markers(text: str) -> str:
    """`text` without its citation markers (quotes untouched), white space tidied."""
    out: list[str] = []
    cursor = 0
    for start, end in _lines(text):
        for span, _stop in _scan(text, start, end):
            for a, b in span.brackets:
                out.append(text[cursor:a].rstrip())
                cursor = b
    out.append(text[cursor:])
    return "".join(out).strip()


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, after any list or heading marker at its start."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for brk in _LINE_BREAK.finditer(text):
        spans.append((cursor, brk.start()))
        cursor = brk.end()
    spans.append((cursor, len(text)))
    out = []
    for a, b in spans:
        marker = _LIST_MARKER.match(text, a, b)
        out.append((marker.end() if marker else a, b))
    return out


def _opener_at(text: str, i: int, stop: int) -> tuple[str, int] | None:
    """(the mark's closing set key, length) when a quotation mark opens at `i`."""
    if text.startswith("<", i):
        m = _Q_OPEN.match(text, i, stop)
        return ("<q>", m.end() - i) if m else None
    for mark in ("``", "''"):
        if text.startswith(mark, i):
            return mark, 2
    ch = text[i]
    if ch in _GENERIC:
        return ch, 1
    if ch not in OPENERS:
        return None
    if ch in _SINGLE and not _word_start(text, i, stop):
        return None
    return ch, 1


def _word_start(text: str, i: int, stop: int) -> bool:
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < stop else " "
    return not before.isalnum() and not after.isspace()


def _word_end(text: str, i: int, stop: int) -> bool:
    after = text[i + 1] if i + 1 < stop else " "
    return not after.isalnum()


def _find_close(text: str, mark: str, start: int, stop: int) -> tuple[int, int] | None:
    """(offset, length) of the first mark closing `mark` in text[start:stop]."""
    if mark == "<q>":
        m = _Q_CLOSE.search(text, start, stop)
        return (m.start(), m.end() - m.start()) if m else None
    best: tuple[int, int] | None = None
    for closer in OPENERS.get(mark) or QUOTE_LIKE:
        hit = text.find(closer, start, stop)
        while hit >= 0 and closer in _SINGLE and not _word_end(text, hit, stop):
            hit = text.find(closer, hit + 1, stop)  # an apostrophe inside a word
        if hit >= 0 and (best is None or hit < best[0]):
            best = (hit, len(closer))
    return best


def _stray_closer(text: str, i: int, stop: int) -> bool:
    """A closing-only mark with no quote open (an apostrophe-like ’ after a word is not)."""
    if _Q_CLOSE.match(text, i, stop):
        return True
    if text[i] not in _STRAY_CLOSERS:
        return False
    return text[i] != "’" or not (i > 0 and text[i - 1].isalnum())


def _scan(text: str, start: int, stop: int) -> list[tuple[_Span, int]]:
    """Sentence spans of one line with their quotes and marker brackets."""
    out: list[tuple[_Span, int]] = []
    span = _Span(start)
    i = start
    block = _BLOCKQUOTE.match(text, start, stop)
    if block:
        markers = re.search(r"(?:\s*\[[^\[\]\n]*\])+\s*$", text[block.end() : stop])
        end_of_quote = block.end() + markers.start() if markers else stop
        span.quotes.append((block.end(), end_of_quote))
        i = end_of_quote
    while i < stop:
        end: int | None = None
        opener = _opener_at(text, i, stop)
        if opener is not None:
            mark, width = opener
            close = _find_close(text, mark, i + width, stop)
            if close is None:
                span.unbalanced = True
                span.quotes.append((i + width, stop))
                i = stop
                continue
            span.quotes.append((i + width, close[0]))
            i = close[0] + close[1]
            if close[0] > span.quotes[-1][0] and text[close[0] - 1] in _END_MARKS:
                end = _sentence_end(text, i - 1, stop, span, after_quote=True)
        elif _stray_closer(text, i, stop):
            span.unbalanced = True
            i += 1
        elif text[i] == "[" and (m := _BRACKET.match(text, i, stop)):
            span.brackets.append((i, m.end()))
            i = m.end()
        elif text[i] in _END_MARKS and not (text[i] == "." and _after_abbreviation(text, i)):
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


def _sentence_end(
    text: str, mark: int, stop: int, span: _Span, after_quote: bool = False
) -> int | None:
    """If the end mark (or closing quote) at `mark` ends a sentence, the offset just past it.

    The sentence takes further end marks, a closing parenthesis and any markers that follow;
    those markers are recorded on `span`. After a quote ending in an end mark, a lower-case
    word continues the sentence (He asked "why?" and left).
    """
    j = mark + 1
    while j < stop and text[j] in _END_MARKS + ")":
        j += 1
    markers_end = _TRAILING_MARKERS.match(text, j, stop)
    assert markers_end is not None  # a pattern of `*` repetitions always matches
    rest = text[markers_end.end() : stop]
    if rest and not rest[0].isspace() and text[j - 1] not in _CJK_END:
        return None
    if after_quote and rest.lstrip()[:1].islower():
        return None
    span.brackets.extend(m.span() for m in _BRACKET.finditer(text, j, markers_end.end()))
    return markers_end.end()


def _after_abbreviation(text: str, dot: int) -> bool:
    k = dot
    while k > 0 and (text[k - 1].isalpha() or text[k - 1] == "."):
        k -= 1
    word = text[k:dot].lower()
    return word in _ABBREVIATIONS or _INITIALS.fullmatch(word) is not None


def _to_claim(text: str, span: _Span, stop: int) -> DraftClaim | None:
    raw = text[span.start : stop]
    start = span.start + len(raw) - len(raw.lstrip())
    end = span.start + len(raw.rstrip())
    if start >= end:
        return None
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
        quotes=tuple(text[a:b] for a, b in span.quotes),
        quote_spans=tuple((a - start, b - start) for a, b in span.quotes),
        unbalanced=span.unbalanced,
    )
