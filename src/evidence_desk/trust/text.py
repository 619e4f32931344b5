"""Verbatim matching: is a quote word for word in a stored text, and where exactly?

A quote is verbatim when it occurs in a source's stored text with exactly one allowance,
white space. The rules, all of them:

* White space is what Python's `re` calls `\\s` in a `str` pattern (Unicode mode), which is
  the same set as `str.isspace()`: space, tab, the line breaks (LF, VT, FF, CR, U+001C..U+001F,
  U+0085, U+2028, U+2029) and the Unicode spaces (NBSP U+00A0, U+1680, U+2000..U+200A,
  U+202F, U+205F, U+3000). Zero-width characters are NOT white space: U+200B ZERO WIDTH
  SPACE, U+200C, U+200D ZERO WIDTH JOINER, U+2060 WORD JOINER and U+FEFF are ordinary
  characters that must match exactly.
* A run of white space in the quote matches a run of white space in the text, whatever the
  characters and lengths of the two runs ("a  b" matches "a\\nb"; "ab" does not match "a b").
* The quote's leading and trailing white space is ignored.
* Nothing else is folded: case, punctuation (a curly ’ is not a straight '), dashes,
  look-alike letters (Cyrillic а is not Latin a) and Unicode normal forms (NFC vs NFD) all
  count as differences.
* The case of the quote's first letter: a writer who works a quote into a sentence writes
  `stated that "the actual state ..."` for the source's `The actual state ...` (and the
  other way round at the start of a sentence). No other letter's case is folded.
* A quote inside the quote: the writer's single marks around words inside the quote
  (`"...as Jefferson said, 'leaving Fear astern.'"`) match the source's double ones
  (`“leaving Fear astern.”` or `"leaving Fear astern."`), the convention for a quote in a
  quote. An apostrophe inside a word (`it's`, `nation’s`) is never such a mark.
* An empty or all-white-space quote is never verbatim.
* American style: a quote ending in `.` or `,` (the writer's punctuation inside the closing
  mark) also matches the source's words without that mark, unless the source has `?` or `!`
  right there (a question is not a statement). The quote's recorded offsets then cover the
  words without the mark.

Offsets returned are into the ORIGINAL text, so `text[start:end]` is what the source says.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

_WHITE_SPACE = re.compile(r"\s+")


def collapse_white_space(text: str) -> str:
    """`text` with every white-space run replaced by one space and the ends trimmed."""
    return _WHITE_SPACE.sub(" ", text).strip()


class StoredText:
    """A stored text prepared for repeated verbatim searches.

    Built once per text (linear time): a white-space-collapsed copy plus a compact map from
    collapsed offsets back to original offsets, so each search is one `str.find`.
    """

    __slots__ = ("_origins", "_starts", "collapsed", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        pieces: list[str] = []
        # Invariant: piece k starts at collapsed offset _starts[k] and original offset
        # _origins[k]; inside a non-space piece the two advance together, and a space piece
        # (one " " standing for a whole white-space run) maps to the run's first character.
        self._starts: list[int] = []
        self._origins: list[int] = []
        cursor = 0
        length = 0
        for run in _WHITE_SPACE.finditer(text):
            if run.start() > cursor:
                length = self._add(pieces, text[cursor : run.start()], cursor, length)
            length = self._add(pieces, " ", run.start(), length)
            cursor = run.end()
        if cursor < len(text):
            self._add(pieces, text[cursor:], cursor, length)
        self.collapsed = "".join(pieces)

    def _add(self, pieces: list[str], piece: str, origin: int, length: int) -> int:
        pieces.append(piece)
        self._starts.append(length)
        self._origins.append(origin)
        return length + len(piece)

    def _origin(self, offset: int) -> int:
        k = bisect_right(self._starts, offset) - 1
        return self._origins[k] + (offset - self._starts[k])

    def find(self, quote: str) -> tuple[int, int] | None:
        """(start, end) of the first verbatim occurrence of `quote` in the original text."""
        spans = self.find_all(quote, limit=1)
        return spans[0] if spans else None

    def find_all(self, quote: str, limit: int | None = None) -> list[tuple[int, int]]:
        """(start, end) of each verbatim occurrence of `quote` (American style included)."""
        needle = collapse_white_space(quote)
        for variant in (v for inner in _inner_quotes(needle) for v in _first_cases(inner)):
            spans = self._matches(variant, limit)
            if spans:
                return spans
        return []

    def _matches(self, needle: str, limit: int | None) -> list[tuple[int, int]]:
        spans = self._occurrences(needle, limit)
        if spans or needle[-1:] not in (".", ","):
            return spans
        core = needle[:-1].rstrip()
        return [
            (a, b)
            for a, b in self._occurrences(core, None)
            if self.text[b : b + 1] not in ("?", "!")
        ][:limit]

    def _occurrences(self, needle: str, limit: int | None) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        at = self.collapsed.find(needle) if needle else -1
        while at >= 0 and (limit is None or len(spans) < limit):
            # The needle starts and ends with non-space characters, so both ends fall inside
            # non-space pieces, where the map is exact.
            spans.append((self._origin(at), self._origin(at + len(needle) - 1) + 1))
            at = self.collapsed.find(needle, at + 1)
        return spans


# A single-quoted stretch inside a quote: the opening mark not after a letter or digit, the
# closing one not before one (so `it's` and `nation’s` are never marks).
_INNER = re.compile(r"(?<!\w)[‘'](?=\S)(.+?)(?<=\S)[’'](?!\w)")


def _inner_quotes(needle: str) -> list[str]:
    """The needle, then with its inner single quotes written as double ones (curly, straight)."""
    if not _INNER.search(needle):
        return [needle]
    return [needle, _INNER.sub(r"“\1”", needle), _INNER.sub(r'"\1"', needle)]


def _first_cases(needle: str) -> list[str]:
    """The needle as written, then with its first letter's case turned (when it has one)."""
    turned = needle[:1].swapcase() + needle[1:]
    return [needle, turned] if needle[:1].isalpha() and turned != needle else [needle]


def _same(found: str, needle: str) -> bool:
    """Equal, or equal but for the case of the first letter."""
    return found == needle or (found[1:] == needle[1:] and found[:1].lower() == needle[:1].lower())


@lru_cache(maxsize=16)
def stored_text(text: str) -> StoredText:
    """A cached `StoredText` for `text` (the last few texts searched stay prepared)."""
    return StoredText(text)


def find_verbatim(quote: str, text: str | StoredText) -> tuple[int, int] | None:
    """Offsets of `quote` in `text` under the rules above, or None when it is not verbatim."""
    prepared = text if isinstance(text, StoredText) else stored_text(text)
    return prepared.find(quote)


def matches_at(quote: str, text: str, start: int | None, end: int | None) -> bool:
    """True when `text[start:end]` is the quote under the white-space rule (offsets valid)."""
    if start is None or end is None or not 0 <= start <= end <= len(text):
        return False
    needle = collapse_white_space(quote)
    found = collapse_white_space(text[start:end])
    if not needle or not found:
        return False
    if _same(found, needle):
        return True
    trimmed = needle[-1:] in (".", ",") and _same(found, needle[:-1].rstrip())
    return trimmed and text[end : end + 1] not in ("?", "!")
