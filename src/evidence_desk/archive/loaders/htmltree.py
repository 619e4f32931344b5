"""trafilatura's extraction tree, written as plain text with the links it holds.

trafilatura's own text output is markdown-like: list items start with `- `, table rows are
`| a | b |`, and with links on it writes `[text](url)`. The HTML loader walks the element
tree trafilatura extracts instead (its XML vocabulary: `p`, `head`, `list`/`item`,
`table`/`row`/`cell`, `quote`, `code`, `lb`, `ref target=...`, `hi`) and writes it through
`PlainText`, so an HTML page obeys the rules a rendered markdown file does
(`archive/render.py`):

* paragraphs, headings, quotes, tables and code blocks are blocks, set apart by a blank line;
  list items and table rows each start a line (no bullets), and inside a list a paragraph
  ends a line; `lb` is a line break;
* a table row is its non-empty cells joined by `CELL_SEPARATOR`;
* `code` holding a line break is a code block, kept as its lines; otherwise inline text;
* `ref` is a link: its text stays, its target goes into `Document.links`;
* every other element (`hi` emphasis, `del`, `span`) is its text.
"""

from __future__ import annotations

from typing import Any

from ..plaintext import PlainText, Rendered

_BLOCKS = frozenset({"body", "p", "head", "quote", "table", "div", "article", "section"})


class _Walker:
    def __init__(self) -> None:
        self.out = PlainText()
        self.lists = 0

    def element(self, el: Any) -> None:
        tag, out = el.tag, self.out
        if not isinstance(tag, str):  # a comment or processing instruction
            out.text(el.tail or "")
            return
        if tag == "code" and "\n" in "".join(el.itertext()):
            out.code_block("".join(el.itertext()))
            out.text(el.tail or "")
            return
        self.open(tag, el)
        out.text(el.text or "")
        for child in el:
            self.element(child)
        self.close(tag)
        out.text(el.tail or "")

    def open(self, tag: str, el: Any) -> None:
        out = self.out
        if tag == "list":
            out.line_break() if self.lists else out.block_break()
            self.lists += 1
        elif tag in _BLOCKS:
            out.line_break() if self.lists and tag == "p" else out.block_break()
        elif tag in ("item", "lb"):
            out.line_break()
        elif tag == "row":
            out.start_row()
        elif tag == "cell":
            out.start_cell()
        elif tag == "ref":
            out.open_link(str(el.get("target") or ""))

    def close(self, tag: str) -> None:
        out = self.out
        if tag == "list":
            self.lists -= 1
            out.line_break() if self.lists else out.block_break()
        elif tag in _BLOCKS:
            out.line_break() if self.lists and tag == "p" else out.block_break()
        elif tag == "item":
            out.line_break()
        elif tag == "row":
            out.end_row()
        elif tag == "cell":
            out.end_cell()
        elif tag == "ref":
            out.close_link()


def render_tree(body: Any) -> Rendered:
    """The text and links of trafilatura's extracted `body` element."""
    walker = _Walker()
    walker.element(body)
    return walker.out.result()
