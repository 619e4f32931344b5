"""Markdown rendered to the plain text a reader sees: what the archive stores and quotes from.

A quote is checked against the stored text and shown to readers, so the stored text must
read like the published page, not like its source: `see the guide for details`, never
`see the [guide](https://example.gov/guide/) for details`. `render_markdown` parses with
markdown-it-py (the CommonMark preset with tables; template tags set aside first, see
`template_tags.py`) and walks the token stream into `PlainText` (`plaintext.py`):

* a Hugo shortcode is written where it stands as what its template shows
  (`shortcode_views.py`): a label as text (`{{< asset-static label="the report" >}}` ->
  `the report`, a link), a caption, heading or quotation as a block, enclosed markdown
  rendered on its own (`markdownify`: a single paragraph stays inline; reference links
  resolve against the page's definitions too, so no brackets are left); shortcodes that
  show nothing write nothing. In code and in attributes, a shortcode is its plain text.

* links keep their text; each url goes into `Rendered.links` with the text's offsets, never
  into the text. Reference links resolve as CommonMark resolves them. Images are their alt
  text. Emphasis, heading marks, quote marks and list bullets or numbers are dropped.
* Paragraphs, headings, block quotes, code blocks and tables are blocks, set apart by a blank
  line; list items and table rows each start a line. Inside a paragraph a soft line break is
  a space and a hard break a line break.
* A table row is its non-empty cells joined by `CELL_SEPARATOR` (` · `).
* What CommonMark leaves as text after broken markup is cleaned too: a run of two or more
  `*` it could not pair (`Read more**** on`) is dropped, and a link whose target has spaces or
  lacks its closing parenthesis (`[text](to https://x.gov)`) is still a link: its text stays
  and the address in the target becomes its url.
* Code is kept as code: an inline code span is its text without the backticks (a backtick is
  a quotation mark to the grounding checks), a fenced block its lines.
* Indentation is not code: an indented block is read as text (or HTML) as if it were not
  indented. Exporters indent HTML and prose that way (in the digital.gov archive 158 of the
  159 indented blocks are indented HTML or prose); real code comes in fences.
* HTML is reduced to its text (`htmltext.py`): tags dropped, `<br>` a line break, block
  tags end a line or a block, `<script>`, `<style>` and comments dropped with their content,
  `<a href>` a link, `<img alt>` its alt text. Entities are decoded everywhere but in code.
  Markdown written inside an HTML block is read as markdown too.

`render_inline` renders one line (a title) the same way, with every break a space.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from .htmltext import HtmlTags, writes_nothing
from .plaintext import PlainText, Rendered
from .shortcode_views import BLOCK, LINE, Anchor, Markdown, Piece, Text, view
from .shortcodes import Shortcode
from .template_tags import PLACEHOLDERS, placeholder_index, prepare

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # imported here: only markdown files need it

    md = MarkdownIt("commonmark", {"html": True}).enable("table").disable("code")
    # Every url is accepted while parsing, so a `[text](javascript:...)` link still reads as
    # its text; `PlainText` drops unsafe urls before they reach the link metadata.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


# Runs of two or more `*` that CommonMark could not pair (`Read more**** on`, a lone `**`):
# broken source markup, not text; kept between digits (`2**10`).
_STRAY_STARS = re.compile(r"(?<!\d)\*{2,}|\*{2,}(?!\d)")
# A link CommonMark could not read, left in a text token: a target with spaces, or one whose
# closing parenthesis is missing (then the target is its first word), or a lone `](url)`.
_BROKEN_LINK = re.compile(
    r"\[(?P<text>[^\[\]\n]*)\]\((?P<target>[^()\n]*)\)"
    r"|\[(?P<opened>[^\[\]\n]*)\]\(\s*(?P<bare>[^()\s]*)"
    r"|\]\((?P<orphan>[^()\s]*)\)"  # a target whose `[` is missing: dropped
)
_TITLE = re.compile(r"""\s*(?:"[^"]*"|'[^']*')\s*$""")
_WHITE_SPACE = re.compile(r"\s+")
_EMPHASIS = {"em_open", "em_close", "strong_open", "strong_close"}
_PARAGRAPH_LIKE = {"paragraph", "heading", "blockquote"}
_LISTS = {"bullet_list", "ordered_list"}


class _Renderer:
    """One walk over one document's tokens (and, nested, over its shortcodes' markdown)."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.out = PlainText()
        self.html = HtmlTags(self.out)
        self.env = env
        self.lists = 0  # depth of open lists: inside one, paragraphs end a line, not a block
        self.shortcodes: tuple[Shortcode, ...] = ()  # what the placeholders being read stand for

    def document(self, source: str) -> None:
        """A whole markdown source; its reference definitions stay in `env`."""
        prepared = prepare(source)
        self.shortcodes = prepared.shortcodes
        self.blocks(_parser().parse(prepared.text, self.env))

    def markdownify(self, source: str) -> None:
        """Markdown of a shortcode rendered on its own, like Hugo's `markdownify`: with its own
        HTML state, one paragraph written inline, the page's reference definitions known."""
        prepared = prepare(source)
        env = {**self.env, "references": dict(self.env.get("references", {}))}
        tokens = _parser().parse(prepared.text, env)
        saved = self.shortcodes, self.html
        self.shortcodes, self.html = prepared.shortcodes, HtmlTags(self.out)
        try:
            kinds = [token.type for token in tokens]
            if kinds == ["paragraph_open", "inline", "paragraph_close"]:
                self.inline(tokens[1].children or [])
            else:
                self.blocks(tokens)
            self.html.end_block()
        finally:
            self.shortcodes, self.html = saved

    def shortcode(self, code: Shortcode) -> None:
        self.pieces(view(code))

    def pieces(self, pieces: Sequence[Piece]) -> None:
        out = self.out
        for piece in pieces:
            if isinstance(piece, Text):
                out.text(piece.text)
            elif isinstance(piece, Markdown):
                self.markdownify(piece.source)
            elif isinstance(piece, Anchor):
                out.open_link(piece.url)
                self.pieces(piece.pieces)
                out.close_link()
            elif piece is LINE:
                out.line_break()
            elif piece is BLOCK:
                self.paragraph_break()

    def paragraph_break(self) -> None:
        """Between blocks: a blank line, or a line break inside a list."""
        self.out.line_break() if self.lists or self.html.lists else self.out.block_break()

    def plain(self, text: str) -> str:
        """`text` with each placeholder replaced by its shortcode's plain text (for code and
        attributes, where nothing is rendered)."""
        if not PLACEHOLDERS.search(text):
            return text

        def written(found: re.Match[str]) -> str:
            renderer = _Renderer(self.env)
            renderer.shortcode(self.shortcodes[placeholder_index(found.group(0))])
            return " ".join(renderer.out.result().text.split())

        return PLACEHOLDERS.sub(written, text)

    def blocks(self, tokens: Sequence[Token]) -> None:
        for token in tokens:
            kind = token.type
            if kind == "inline":
                self.inline(token.children or [])
            elif kind.endswith(("_open", "_close")):
                self.container(kind.rsplit("_", 1)[0], kind.endswith("_open"))
            elif kind == "fence" or kind == "code_block":
                self.out.code_block(self.plain(token.content))
            elif kind == "html_block":
                self.html_block(token.content)
            elif kind == "hr":
                self.out.block_break()

    def container(self, name: str, opening: bool) -> None:
        out = self.out
        if name in _PARAGRAPH_LIKE:
            self.paragraph_break()
            if not opening:
                self.html.end_block()
        elif name in _LISTS:
            nested = self.lists > 1 or (self.lists == 1 and opening)
            out.line_break() if nested else out.block_break()
            self.lists += 1 if opening else -1
        elif name == "list_item":
            out.line_break()
        elif name == "table":
            out.block_break()
        elif name == "tr":
            out.start_row() if opening else out.end_row()
        elif name in ("th", "td"):
            out.start_cell() if opening else out.end_cell()

    def html_block(self, content: str) -> None:
        """An HTML block's tags and the markdown between them, read as one inline run.

        The block adds no break of its own: HTML elements run across the blank lines that
        split them into blocks (a table's cells, a list's items), so its tags decide."""
        [line] = _parser().parseInline(content, self.env)
        self.inline(line.children or [])
        self.html.end_block()

    def inline(self, tokens: Sequence[Token]) -> None:
        out = self.out
        run: list[str] = []  # text tokens with only emphasis or inert tags between: one run
        for token in tokens:
            kind = token.type
            if kind == "text":
                run.append(token.content)
                continue
            if kind in _EMPHASIS or (kind == "html_inline" and writes_nothing(token.content)):
                continue
            if run:
                self.text("".join(run))
                run.clear()
            if kind == "text_special":
                out.text(token.content)
            elif kind == "code_inline":
                out.text(self.plain(token.content))
            elif kind == "softbreak":
                out.space()
            elif kind == "hardbreak":
                out.line_break()
            elif kind == "link_open":
                out.open_link(str(token.attrs.get("href", "")))
            elif kind == "link_close":
                out.close_link()
            elif kind == "image":
                out.text(f" {self.plain(_alt_text(token.children or []))} ")
            elif kind == "html_inline":
                self.html.tag(self.plain(token.content))
        if run:
            self.text("".join(run))

    def text(self, text: str) -> None:
        """A text token: what CommonMark left as text, less stray marks and broken links."""
        text = _STRAY_STARS.sub("", text)
        if "](" not in text:
            self.words(text)
            return
        cursor = 0
        for broken in _BROKEN_LINK.finditer(text):
            self.words(text[cursor : broken.start()])
            cursor = broken.end()
            if broken["orphan"] is not None:
                continue
            self.out.open_link(_broken_target(broken["target"] or broken["bare"] or ""))
            self.words(broken["text"] if broken["text"] is not None else broken["opened"])
            self.out.close_link()
        self.words(text[cursor:])

    def words(self, text: str) -> None:
        """Text, with each placeholder written as its shortcode, where it stands."""
        cursor = 0
        for found in PLACEHOLDERS.finditer(text):
            self.out.text(text[cursor : found.start()])
            self.shortcode(self.shortcodes[placeholder_index(found.group(0))])
            cursor = found.end()
        self.out.text(text[cursor:])


def _broken_target(target: str) -> str:
    """The address in a target CommonMark could not read: `to https://x.gov` -> the url,
    `mailto: a@x.gov` -> `mailto:%20a@x.gov`; a trailing quoted title is dropped."""
    target = _TITLE.sub("", target).strip()
    for word in target.split():
        if "://" in word:
            return word
    return _WHITE_SPACE.sub("%20", target)


def _alt_text(tokens: Sequence[Token]) -> str:
    """An image's alt text as plain text (what CommonMark renders into `alt`)."""
    parts: list[str] = []
    for token in tokens:
        if token.type in ("text", "text_special", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.type == "image":
            parts.append(_alt_text(token.children or []))
    return "".join(parts)


def render_markdown(source: str) -> Rendered:
    """The text and links of a markdown document (see the module docstring)."""
    renderer = _Renderer({})
    renderer.document(source)
    return renderer.out.result()


def render_inline(source: str) -> str:
    """One line of markdown (a title) as plain text: inline markup rendered, breaks as spaces."""
    renderer = _Renderer({})
    prepared = prepare(source)
    renderer.shortcodes = prepared.shortcodes
    for line in _parser().parseInline(prepared.text, {}):
        renderer.inline(line.children or [])
    text = renderer.out.result().text
    return " ".join(text.split())
