"""How wide a diagram's text is, measured from a table in this file rather than from a font.

The diagram's layout needs label widths before any browser draws them, and it must get the
same widths on every machine: so no font file is opened and nothing is asked of the system.
The table is Helvetica's advance widths from Adobe's standard AFM, in 1/1000 em, for ASCII
32..126 (`'` is `quotesingle`, 191; `` ` `` is `grave`, 333; `-` is `hyphen`, 333). The SVG
asks for Helvetica, Arial or a sans-serif, and Arial shares these metrics.

Invariants: every width is an integer number of units from `char_width`; `text_width` is the
sum of those units times `size / 1000`, so a width is a pure function of the text and the
size. Characters outside the table are `DEFAULT_WIDTH` wide, wide East Asian characters
`WIDE_WIDTH`, combining marks and zero-width characters 0; these ranges are written here,
never read from the running Python's Unicode database, whose version differs between
interpreters. `wrap` never drops or reorders a character of a word, and no line it returns
is wider than `max_width` unless that line is a single character. `TextBox.box` turns the
wrapped lines into a box of whole pixels: the widest line's width rounded up, plus padding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Advance widths of ASCII 32 (space) .. 126 (~), in 1/1000 em.
_HELVETICA: tuple[int, ...] = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  # ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  # 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  # @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  # P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  # `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,  # p..~
)  # fmt: skip

_FIRST = 32
DEFAULT_WIDTH = 556
WIDE_WIDTH = 1000
# Helvetica's cap height, in 1/1000 em: where the SVG puts a baseline so a line looks centred.
CAP_HEIGHT = 718

# Inclusive code point ranges, checked in order.
_ZERO_WIDTH: tuple[tuple[int, int], ...] = (
    (0x0300, 0x036F),  # combining diacritical marks
    (0x200B, 0x200F),  # zero-width space, joiners, direction marks
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space
)
_WIDE: tuple[tuple[int, int], ...] = (
    (0x1100, 0x115F),  # Hangul Jamo initials
    (0x2E80, 0x303E),  # CJK radicals, Kangxi, CJK symbols and punctuation
    (0x3041, 0x33FF),  # kana, bopomofo, Hangul compatibility Jamo, CJK compatibility
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA000, 0xA4CF),  # Yi
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFF00, 0xFF60),  # full-width forms
    (0xFFE0, 0xFFE6),  # full-width signs
    (0x1F300, 0x1F64F),  # pictographs and emoticons
    (0x1F900, 0x1F9FF),  # supplemental pictographs
    (0x20000, 0x3FFFD),  # CJK extensions B and beyond
)


def _in(ranges: tuple[tuple[int, int], ...], code: int) -> bool:
    return any(low <= code <= high for low, high in ranges)


def char_width(char: str) -> int:
    """The advance width of one character, in 1/1000 em."""
    code = ord(char)
    if _FIRST <= code < _FIRST + len(_HELVETICA):
        return _HELVETICA[code - _FIRST]
    if _in(_ZERO_WIDTH, code):
        return 0
    if _in(_WIDE, code):
        return WIDE_WIDTH
    return DEFAULT_WIDTH


def _units(text: str) -> int:
    return sum(char_width(char) for char in text)


def _width(units: int, size: float) -> float:
    return units * size / 1000


def text_width(text: str, size: float) -> float:
    """The width of `text` on one line at font size `size`, in the size's unit (px here)."""
    return _width(_units(text), size)


def _split_word(word: str, size: float, max_width: float) -> list[str]:
    """A word as pieces no wider than `max_width`, each at least one character."""
    pieces: list[str] = []
    piece = ""
    units = 0
    for char in word:
        width = char_width(char)
        if piece and _width(units + width, size) > max_width:
            pieces.append(piece)
            piece, units = "", 0
        piece += char
        units += width
    pieces.append(piece)
    return pieces


def wrap(text: str, size: float, max_width: float) -> list[str]:
    """`text` as lines no wider than `max_width`, broken at white space, greedily.

    Runs of white space become one space; a blank text has no lines. A word wider than a
    line is split between characters: its full pieces stand on lines of their own, and the
    last piece may share its line with the words after it.
    """
    if max_width <= 0 or size <= 0:
        raise ValueError("Wrapping needs a positive font size and a positive line width.")
    lines: list[str] = []
    current = ""
    for word in text.split():
        *full, last = _split_word(word, size, max_width)
        if full:
            if current:
                lines.append(current)
            lines.extend(full)
            current = last
            continue
        candidate = f"{current} {last}" if current else last
        if current and text_width(candidate, size) > max_width:
            lines.append(current)
            current = last
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


# Wrapped text and the size of the box that holds it: (lines, width, height), in px.
Box = tuple[tuple[str, ...], int, int]


@dataclass(frozen=True)
class TextBox:
    """How text is set in a box, in px: integers, so every length derived from them is one."""

    font_size: int
    line_height: int
    max_text_width: int  # lines wrap to this width
    padding_x: int
    padding_y: int

    def box(self, text: str) -> Box:
        """`text` wrapped, and the width and height of the box that holds it."""
        lines = tuple(wrap(text, self.font_size, self.max_text_width))
        widest = max((text_width(line, self.font_size) for line in lines), default=0.0)
        width = math.ceil(widest) + 2 * self.padding_x
        return lines, width, len(lines) * self.line_height + 2 * self.padding_y
