"""Writing rendered plain text: one writer, so every renderer obeys the same white-space rules.

The markdown renderer (`render.py`) and the HTML loader both write through `PlainText`. What
they write is what the archive stores, what passages are cut from and what quotes are checked
against, so the rules live in one place. Invariants of `PlainText.result()`:

* the text has no white space at either end, no line ends with white space, and prose lines
  do not start with it (code lines keep their indentation);
* inside prose every run of white space is one space; lines are separated by `\\n` and there
  is never more than one blank line in a row;
* invisible format characters (Unicode category Cf: zero-width spaces and joiners, soft
  hyphens, bidi controls, byte-order marks) are dropped: readers do not see them, and a quote
  that carried one would be held by the grounding checks;
* every `Link` satisfies `text[link.start:link.end] == link.text`, the text is not empty, and
  the url is neither empty nor a `javascript:`, `vbscript:`, `data:` or `file:` url.

Separators are requested, not written: a request is kept until the next visible text and
the strongest one wins (blank line > line break > cell separator > space), so a block that
turns out empty leaves no trace and nothing trails at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from unicodedata import category

from ..types import Link

CELL_SEPARATOR = " · "
"""Between the cells of a table row: plain text, neither markup nor a quotation mark."""

_SPACE, _LINE, _BLANK = " ", "\n", "\n\n"
_RANK = {"": 0, _SPACE: 1, CELL_SEPARATOR: 2, _LINE: 3, _BLANK: 4}
_WHITE_SPACE = re.compile(r"\s+")
_UNSAFE_URL = re.compile(r"^(?:javascript|vbscript|data|file):", re.IGNORECASE)
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")


@cache
def _invisible() -> dict[int, None]:
    """Every Cf character, as a `str.translate` table that drops it (built on first use,
    about 0.2 s: a scan of all code points)."""
    return {c: None for c in range(0x110000) if category(chr(c)) == "Cf"}


def _visible(text: str) -> str:
    return text if text.isascii() else text.translate(_invisible())


def safe_url(url: str) -> str | None:
    """`url` without control characters and spaces at its ends, or None when it is empty or a
    script/data/file url (those are dropped, never handed on to a renderer)."""
    url = url.strip()
    if not url or _UNSAFE_URL.match(_URL_NOISE.sub("", url)):
        return None
    return url


@dataclass(frozen=True)
class Rendered:
    """A rendered document body: the stored text and the links in it."""

    text: str
    links: tuple[Link, ...] = ()


@dataclass
class _OpenLink:
    url: str | None
    start: int | None = None


class PlainText:
    """Accumulates rendered text; see the module docstring for the rules it keeps."""

    def __init__(self) -> None:
        self._out: list[str] = []
        self._length = 0  # == len("".join(self._out))
        self._pending = ""  # the strongest separator requested since the last piece
        self._links: list[tuple[str, int, int]] = []  # (url, start, end)
        self._open: list[_OpenLink] = []
        self._cells = 0  # depth of open table cells: breaks inside a cell become spaces
        self._row_start: int | None = None  # where the open table row's text starts
        self.suppressed = 0  # while > 0 nothing is written (script, style and the like)

    # ------------------------------------------------------------------ separators

    def _request(self, separator: str) -> None:
        if self.suppressed:
            return
        if self._cells and separator in (_LINE, _BLANK):
            separator = _SPACE
        if _RANK[separator] > _RANK[self._pending]:
            self._pending = separator

    def space(self) -> None:
        self._request(_SPACE)

    def line_break(self) -> None:
        """End the current line (list items, table rows, `<br>`, hard breaks)."""
        self._request(_LINE)

    def block_break(self) -> None:
        """End the current block: paragraphs, headings, code blocks and tables stand apart."""
        self._request(_BLANK)

    # ------------------------------------------------------------------ text

    def _emit(self, piece: str) -> None:
        """Write `piece` (visible; no white space at its start but a code line's indentation)
        after the pending separator; open links without a start start here."""
        if self._length and self._pending:
            self._out.append(self._pending)
            self._length += len(self._pending)
        self._pending = ""
        for link in self._open:
            if link.start is None:
                link.start = self._length
        self._out.append(piece)
        self._length += len(piece)

    def text(self, text: str) -> None:
        """Prose: white-space runs (line breaks included) become single spaces."""
        if self.suppressed or not text:
            return
        text = _visible(text)
        words = _WHITE_SPACE.sub(" ", text).strip(" ")
        if text[:1].isspace():
            self.space()
        if words:
            self._emit(words)
        if text[-1:].isspace() and words:
            self.space()

    def code_block(self, code: str) -> None:
        """Code kept as its lines: each right-trimmed, blank runs folded into one blank line."""
        if self.suppressed:
            return
        self.block_break()
        for line in _visible(code).split("\n"):
            line = line.rstrip()
            if line:
                self._emit(line)
                self.line_break()
            elif self._pending == _LINE:
                self.block_break()
        self.block_break()

    # ------------------------------------------------------------------ links

    def open_link(self, url: str) -> None:
        """Start a link; its text is whatever is written until `close_link`."""
        self._open.append(_OpenLink(None if self.suppressed else safe_url(url)))

    def close_link(self) -> None:
        """End the innermost open link; a link with no text or no usable url is not kept."""
        if not self._open:
            return
        link = self._open.pop()
        if link.url is not None and link.start is not None and link.start < self._length:
            self._links.append((link.url, link.start, self._length))

    # ------------------------------------------------------------------ tables

    def start_row(self) -> None:
        self.line_break()
        self._row_start = self._length

    def start_cell(self) -> None:
        """Open a cell: cells of a row are joined by CELL_SEPARATOR, empty cells skipped."""
        if self._row_start is not None and self._length > self._row_start and not self._cells:
            self._request(CELL_SEPARATOR)
        self._cells += 1

    def end_cell(self) -> None:
        self._cells = max(0, self._cells - 1)

    def end_row(self) -> None:
        self._cells = 0
        self._row_start = None
        self.line_break()

    # ------------------------------------------------------------------ result

    def result(self) -> Rendered:
        while self._open:
            self.close_link()
        text = "".join(self._out)
        links = sorted(self._links, key=lambda link: (link[1], -link[2]))
        return Rendered(
            text=text,
            links=tuple(Link(text=text[a:b], url=url, start=a, end=b) for url, a, b in links),
        )
