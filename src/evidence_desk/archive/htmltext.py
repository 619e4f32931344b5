"""HTML tags met while rendering markdown, reduced to what a reader sees of them.

Markdown may hold raw HTML, a tag at a time (`<a href="..." target="_blank">`, `</a>`,
`<br>`, `<!-- note -->`). `HtmlTags.tag` reads one such piece with the standard library's
`html.parser` (attribute entities decoded, nothing fetched) and tells `PlainText` what it
means:

* `<script>`, `<style>`, `<template>`, `<noscript>` and `<iframe>`: their content is not
  written (up to the closing tag, or the end of the block at the latest);
* comments, doctypes and processing instructions: nothing;
* `<br>`: a line break; `<hr>` and block tags (`<p>`, `<div>`, `<ul>`, `<h2>`, `<table>`,
  ...): a block break; `<li>`, `<dt>`, `<dd>`: a line break; table rows and cells as rows and
  cells (`PlainText.start_row` / `start_cell`);
* `<a href>`: a link around what follows, up to `</a>`; `<img alt>`: the alt text;
* every other tag (`<span>`, `<strong>`, `<sup>`, `<font>`, ...): nothing, its text stays.
"""

from __future__ import annotations

from functools import lru_cache
from html.parser import HTMLParser

from .plaintext import PlainText

HIDDEN = frozenset({"script", "style", "template", "noscript", "iframe"})
BLOCKS = frozenset(
    "address article aside blockquote center details dialog div dl fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hr main nav ol p pre section summary table ul".split()
)
LINES = frozenset({"li", "dt", "dd", "caption"})
_ACTIVE = frozenset({"img", "br", "tr", "td", "th"})
_LISTS = frozenset({"ul", "ol", "dl"})


Tag = tuple[str, dict[str, str], bool, bool]  # name, attributes, is end tag, is self-closing


class _TagReader(HTMLParser):
    """Reads the first tag of a piece of HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: Tag | None = None

    def read(self, raw: str) -> Tag | None:
        self.reset()
        self.found = None
        self.feed(raw)
        self.close()
        return self.found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is None:
            self.found = (tag, {k: v or "" for k, v in attrs}, False, False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is None:
            self.found = (tag, {k: v or "" for k, v in attrs}, False, True)

    def handle_endtag(self, tag: str) -> None:
        if self.found is None:
            self.found = (tag, {}, True, False)


_READER = _TagReader()


@lru_cache(maxsize=4096)
def read_tag(raw: str) -> Tag | None:
    """The tag `raw` is, or None for a comment, doctype, CDATA or processing instruction."""
    return None if raw.startswith(("<!", "<?")) else _READER.read(raw)


def writes_nothing(raw: str) -> bool:
    """True for a tag that neither writes, breaks, links nor hides (`<span>`, `</strong>`):
    text on both sides of it reads as one run."""
    found = read_tag(raw)
    if found is None:
        return True
    name, attrs = found[0], found[1]
    if name == "a":
        return found[2] is False and "href" not in attrs
    return name not in _ACTIVE and name not in HIDDEN and name not in BLOCKS and name not in LINES


class HtmlTags:
    """The HTML state of one rendering: open hidden elements, open `<a>` links."""

    def __init__(self, out: PlainText) -> None:
        self.out = out
        self.hidden: list[str] = []
        self.links = 0  # links opened by <a>, closed by </a>
        self.lists = 0  # open <ul>, <ol> and <dl>: markdown paragraphs inside end a line

    def tag(self, raw: str) -> None:
        """One piece of inline HTML: a start or end tag, a comment, a declaration."""
        found = read_tag(raw)
        if found is None:
            return  # a comment, doctype, CDATA or processing instruction: nothing to read
        name, attrs, closing, self_closing = found
        if name in HIDDEN:
            self._hide(name, closing, self_closing)
        elif closing:
            self._end(name)
        else:
            self._start(name, attrs)
            if self_closing:
                self._end(name)

    def _hide(self, name: str, closing: bool, self_closing: bool) -> None:
        out = self.out
        if closing:
            if name in self.hidden:
                while self.hidden and self.hidden.pop() != name:
                    out.suppressed -= 1
                out.suppressed -= 1
        elif not self_closing:
            self.hidden.append(name)
            out.suppressed += 1

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        out = self.out
        if name == "a" and "href" in attrs:
            out.open_link(attrs["href"])
            self.links += 1
        elif name == "img":
            out.text(f" {attrs.get('alt', '')} ")  # an image stands apart from the text
        elif name == "br":
            out.line_break()
        elif name == "tr":
            out.start_row()
        elif name in ("td", "th"):
            out.start_cell()
        elif name in BLOCKS:
            out.block_break()
            self.lists += name in _LISTS
        elif name in LINES:
            out.line_break()

    def _end(self, name: str) -> None:
        out = self.out
        if name == "a" and self.links:
            out.close_link()
            self.links -= 1
        elif name == "tr":
            out.end_row()
        elif name in ("td", "th"):
            out.end_cell()
        elif name in BLOCKS:
            out.block_break()
            if name in _LISTS:
                self.lists = max(0, self.lists - 1)
        elif name in LINES:
            out.line_break()

    def end_block(self) -> None:
        """A markdown block ended: hidden elements and `<a>` links left open end with it."""
        self.out.suppressed -= len(self.hidden)
        self.hidden.clear()
        while self.links:
            self.out.close_link()
            self.links -= 1
