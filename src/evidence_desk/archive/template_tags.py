"""Template tags in a markdown source, set aside before it is parsed.

Static-site archives carry template tags that the site generator replaces when it builds a
page: Hugo shortcodes (`{{< asset-static file="x.pdf" label="..." >}}`, `{{% note %}}`),
Jinja and Liquid tags (`{% include x.html %}`), Go template actions (`{{ .Title }}`). Like
the generator, `prepare` reads them everywhere in the source (code blocks too) and turns the
source into one the markdown parser can read:

* a Hugo shortcode becomes one placeholder character (`placeholder(i)`, a private-use code
  point; any such character already in the source is dropped first) standing for
  `Prepared.shortcodes[i]`. A pair (`{{< note >}}...{{< /note >}}`, matched innermost first,
  as Hugo nests them) becomes one placeholder too, its raw enclosed text in
  `Shortcode.inner`; the renderer writes each placeholder as the shortcode's view
  (`shortcode_views.py`), where it stands in the sentence, so a label reads where the page
  shows it. A closing tag without an opening one is dropped;
* a shortcode inside a link target (`[text]({{< ref "x.md" >}})`, `[id]: {{< ref "x.md" >}}`,
  `<a href="{{< ref "x.md" >}}">`) is replaced by the url it writes there
  (`shortcode_views.target_url`: a `ref`'s path, so the link keeps `x.md` as its url); when
  that is empty the target is left empty (`<>`) and the link's text is still read as a
  link's text;
* other template tags are removed: they are the generator's, not text a reader sees;
* kramdown attribute lists (`## Heading {#toc1}`, `[text](url){.external}`, `{: .note}`)
  are removed as well: they style the page, readers never see them;
* quoted arguments (`"..."` or backticks in Hugo tags, also `'...'` in Jinja and Liquid
  tags) may hold `>` or `}`; a tag may span lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .shortcode_views import BLOCK, shows_text, target_url, view
from .shortcodes import Shortcode, Tag, read_tag

_FIRST = 0xF0000  # Supplementary Private Use Area-A: never text a reader is meant to see
_LAST = 0xFFFFD
PLACEHOLDERS = re.compile(f"[{chr(_FIRST)}-{chr(_LAST)}]")

_HUGO_QUOTED = r'"(?:[^"\\\n]|\\.)*"|`[^`]*`'  # Hugo quotes arguments with " or backticks
_QUOTED = r'"[^"\n]*"|\'[^\'\n]*\''  # Jinja and Liquid quote with either mark
_TAG = re.compile(
    r"\{\{<(?P<angle>(?:" + _HUGO_QUOTED + r"|[^\"`>]|>(?!\}\}))*)>\}\}"
    r"|\{\{%(?P<percent>(?:" + _HUGO_QUOTED + r"|[^\"`%]|%(?!\}\}))*)%\}\}"
    r"|\{%(?:" + _QUOTED + r"|[^\"'%]|%(?!\}))*%\}"
    r"|\{\{(?:" + _QUOTED + r"|[^\"'}]|\}(?!\}))*\}\}",
)
_ATTRIBUTE_LIST = re.compile(
    r"\{:?[ \t]*[#.][A-Za-z][^{}\n" + chr(_FIRST) + "-" + chr(_LAST) + r"]*\}"
)
_MARKDOWN_TARGET = re.compile(r"(?:\]\([ \t]*|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*)\Z", re.MULTILINE)
_HREF_TARGET = re.compile(r"""\bhref\s*=\s*["']?\Z""", re.IGNORECASE)
_LOOK_BEHIND = 200  # characters before a tag searched for a link-target opening


@dataclass(frozen=True)
class Prepared:
    """A source ready for the markdown parser, and the shortcodes its placeholders stand for."""

    text: str
    shortcodes: tuple[Shortcode, ...] = ()


def placeholder(index: int) -> str:
    return chr(_FIRST + index)


def placeholder_index(char: str) -> int:
    return ord(char) - _FIRST


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    tag: Tag | None  # None: not a Hugo shortcode, removed
    target: str | None  # the url it writes, when it stands in a link target


def _in_target(source: str, start: int) -> str | None:
    """How a tag at `start` is quoted when it is a link target: "markdown", "href" or None."""
    before = source[max(0, start - _LOOK_BEHIND) : start]
    if _MARKDOWN_TARGET.search(before) is not None:
        return "markdown"
    return "href" if _HREF_TARGET.search(before) is not None else None


def _target_text(url: str, where: str) -> str:
    if where == "href":
        return url.replace('"', "%22").replace("'", "%27")
    if url and not re.search(r"[\s()<>]", url):
        return url
    return f"<{url}>" if not re.search(r"[<>\n]", url) else "<>"


def _find(source: str) -> list[_Found]:
    found = []
    for match in _TAG.finditer(source):
        inside = match["angle"] if match["angle"] is not None else match["percent"]
        tag = read_tag(inside) if inside is not None else None
        where = _in_target(source, match.start())
        target = None
        if where is not None:
            url = target_url(tag.shortcode) if tag is not None and not tag.closing else ""
            target = _target_text(url, where)
        found.append(_Found(match.start(), match.end(), tag, target))
    return found


def _pairs(found: list[_Found]) -> dict[int, int]:
    """Opening tag index -> its closing tag's index; innermost pairs first, unmatched
    openings stand alone."""
    pairs: dict[int, int] = {}
    open_tags: list[int] = []
    for i, item in enumerate(found):
        if item.tag is None or item.target is not None or item.tag.self_closing:
            continue
        if not item.tag.closing:
            open_tags.append(i)
            continue
        name = item.tag.shortcode.name
        for depth in range(len(open_tags) - 1, -1, -1):
            opening = open_tags[depth]
            tag = found[opening].tag
            if tag is not None and tag.shortcode.name == name:
                pairs[opening] = i
                del open_tags[depth:]
                break
    return pairs


def _standing(source: str, start: int, end: int, code: Shortcode, index: int) -> str:
    """What replaces `code`, which stands in `source[start:end]`: nothing when it shows
    nothing (as if it were not there: a line holding only it stays blank), else its
    placeholder. One that shows a block and stands alone on its line is followed by a blank
    line, so the lines after it are not read as its paragraph (a list that goes on after an
    image with a caption stays a list)."""
    shown = view(code)
    if not shows_text(shown):
        return ""
    line_start = source.rfind("\n", 0, start) + 1
    line_end = source.find("\n", end)
    after = source[end : len(source) if line_end < 0 else line_end]
    alone = not source[line_start:start].strip() and not after.strip()
    block = shown[0] is BLOCK and shown[-1] is BLOCK
    return placeholder(index) + ("\n" if alone and block else "")


def prepare(source: str) -> Prepared:
    """`source` ready for the parser (see the module docstring)."""
    if "{" not in source:
        return Prepared(PLACEHOLDERS.sub("", source))
    source = PLACEHOLDERS.sub("", source)
    found = _find(source)
    pairs = _pairs(found)
    pieces: list[str] = []
    shortcodes: list[Shortcode] = []
    cursor = i = 0
    while i < len(found):  # tags inside a pair are left in its inner text, read with it
        item = found[i]
        pieces.append(source[cursor : item.start])
        cursor = item.end
        if item.target is not None:
            pieces.append(item.target)
        elif item.tag is not None and not item.tag.closing:
            code = item.tag.shortcode
            if i in pairs:
                closing = found[pairs[i]]
                code = replace(code, inner=source[cursor : closing.start])
                cursor, i = closing.end, pairs[i]
            pieces.append(_standing(source, item.start, cursor, code, len(shortcodes)))
            shortcodes.append(code)
        i += 1
    pieces.append(source[cursor:])
    return Prepared(_ATTRIBUTE_LIST.sub("", "".join(pieces)), tuple(shortcodes))
