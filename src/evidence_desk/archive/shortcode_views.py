"""What each Hugo shortcode shows on the published page, as pieces the renderer writes.

A shortcode's label is often the words of a sentence: "we selected {{< asset-static
file="x.pdf" label="the next round of projects (PDF, 119 KB, 8 pages)" >}} to start" reads
on the page as "we selected the next round of projects (PDF, 119 KB, 8 pages) to start".
Dropping the tag would store a sentence the page never says, and the desk would quote it. So
every shortcode is replaced by exactly the text its template writes, no more: the views
below follow the templates of the digital.gov theme (`GSA/digitalgov.gov` at 4979583,
`themes/digital.gov/layouts/shortcodes/`), the site of the digital.gov archive; another
site's shortcode of the same name may write something else.

* `Text` is printed as written (the template prints the argument, HTML-escaped, so what is
  written is what is seen); `Markdown` is the template's `markdownify`: rendered as markdown,
  and a single paragraph stays inline; `Anchor` is a link around its pieces; `LINE` and
  `BLOCK` end a line or a block.
* What the page shows that the archive cannot know is left out, never guessed: the caption
  of an `img` (it lives in the site's image data), the title and summary of the page a
  `featured-resource` points to, the text of an embedded tweet, a `ref`'s permalink.
* Shortcodes that show nothing (images without a caption, video and iframe embeds) are
  nothing. A kind not in the table shows its enclosed markdown, if any, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from .shortcodes import Shortcode

CDN = "https://s3.amazonaws.com/digitalgov"  # the theme's `.Site.Params.cdnurl`
LEGACY_FILES = f"{CDN}/_legacy-img"
DISCLAIMER = (
    "All references to specific brands, products, and/or companies are used only for "
    "illustrative purposes and do not imply endorsement by the U.S. federal government or "
    "any federal government agency."
)


@dataclass(frozen=True)
class Text:
    """Shown as written."""

    text: str


@dataclass(frozen=True)
class Markdown:
    """Rendered as markdown (`markdownify`): one paragraph stays inline."""

    source: str


@dataclass(frozen=True)
class Anchor:
    """A link to `url` whose text is what `pieces` write."""

    url: str
    pieces: tuple[Piece, ...]


class Break(Enum):
    LINE = "line"
    BLOCK = "block"


Piece = Text | Markdown | Anchor | Break
View = tuple[Piece, ...]
LINE, BLOCK = Break.LINE, Break.BLOCK


def _title_case(word: str) -> str:
    """Hugo's `title` on a variant name (`action` -> `Action`)."""
    return " ".join(part[:1].upper() + part[1:] for part in word.split(" "))


def _inner(code: Shortcode) -> View:
    return (Markdown(code.inner),) if code.inner else ()


def _asset_static(code: Shortcode) -> View:
    # `<a href="{cdn}/static/{file}">{label}</a>` and the template's line end: a space.
    if not code.get("file"):
        return ()
    return (Anchor(f"{CDN}/static/{code.get('file')}", (Text(code.get("label")),)), Text(" "))


def _button(code: Shortcode) -> View:
    # `core/usa-button.html`: `<a class="usa-button" href="{href}">{text}</a>`.
    if not code.has_arguments:
        return ()
    return (Text(" "), Anchor(code.get("href"), (Text(code.get("text")),)), Text(" "))


def _legacy_image(code: Shortcode) -> View:
    # The image, then `<p>{caption | markdownify}</p>` when there is a caption; alt is unseen.
    caption = code.get("caption")
    return (BLOCK, Markdown(caption), BLOCK) if caption else ()


def _legacy_file(code: Shortcode) -> View:
    return (Text(legacy_file_url(code)),)


def _note(code: Shortcode) -> View:
    # `<h4>` with the variant's name (`Note` without one), then the enclosed markdown; the
    # `disclaimer` variant shows its fixed sentence instead.
    variant = code.get("variant")
    if not variant:
        heading = "Note"
    else:
        heading = "Who can join?" if variant == "join" else _title_case(variant)
    body: View = (Text(DISCLAIMER),) if variant == "disclaimer" else _inner(code)
    return (BLOCK, Text(heading), BLOCK, *body, BLOCK)


def _ring(code: Shortcode) -> View:
    return (BLOCK, Text(code.get("title")), BLOCK, *_inner(code), BLOCK)


def _box(code: Shortcode) -> View:
    return (BLOCK, *_inner(code), BLOCK)


def _highlight(code: Shortcode) -> View:
    return _inner(code)  # a `<span>` around the enclosed markdown, inside the sentence


def _quote_block(code: Shortcode) -> View:
    # `<blockquote>“{text | markdownify}”<cite>— {cite | markdownify}</cite></blockquote>`,
    # the citation on a line of its own (`cite { display: block }`).
    text = code.get("text")
    if not text:
        return ()
    cite: View = (LINE, Text("— "), Markdown(code.get("cite"))) if code.get("cite") else ()
    return (BLOCK, Text("“"), Markdown(text), Text("”"), *cite, BLOCK)


def _accordion_heading(code: Shortcode) -> View:
    # `<h3><button>{kicker}{title | markdownify} {pdf}</button></h3>`, the kicker on a line
    # of its own (`.kicker { display: block }`).
    kicker: View = (Text(code.get("kicker")), LINE) if code.get("kicker") else ()
    pdf: View = (Text(" "), Text(code.get("pdf"))) if code.get("pdf") else ()
    return (BLOCK, *kicker, Markdown(code.get("title")), *pdf, BLOCK)


def _accordion(code: Shortcode) -> View:
    return (*_accordion_heading(code), *_inner(code), BLOCK)


def _card_policy(code: Shortcode) -> View:
    if not code.inner:
        return _accordion_heading(code)
    more = Anchor(code.get("src"), (Text("View the full legislation"),))
    return (*_accordion_heading(code), *_inner(code), BLOCK, more, BLOCK)


def _card_prompt(code: Shortcode) -> View:
    # Nothing without enclosed text; else the intro, the prompt, the button, the fallback.
    if not code.inner:
        return ()
    intro: View = (Markdown(code.get("intro")), BLOCK) if code.get("intro") else ()
    button = code.get("button-text")
    ask: View = (Anchor(code.get("button-url"), (Text(button),)), BLOCK) if button else ()
    fallback: View = (Markdown(code.get("fallback")), BLOCK) if code.get("fallback") else ()
    return (BLOCK, *intro, *_inner(code), BLOCK, *ask, *fallback)


def _featured_resource(code: Shortcode) -> View:
    # A box linking to `link`: kicker, title, summary. For a page of the site (a link that is
    # not http(s)) the title, summary and default kicker come from that page: unknown here.
    link = code.get("link")
    if not link.startswith(("http://", "https://")):
        kicker = code.get("kicker")
        return (BLOCK, Anchor(link, (Markdown(kicker),)), BLOCK) if kicker else ()
    pieces: list[Piece] = [
        Markdown(code.get("kicker")) if code.get("kicker") else Text("Featured Resource")
    ]
    for part in (code.get("title"), code.get("summary")):
        if part:
            pieces += [BLOCK, Text(part)]
    return (BLOCK, Anchor(link, tuple(pieces)), BLOCK)


def _nothing(code: Shortcode) -> View:
    return ()


VIEWS: dict[str, Callable[[Shortcode], View]] = {
    "asset-static": _asset_static,
    "button": _button,
    "legacy-img": _legacy_image,
    "legacy-img-right": _legacy_image,
    "legacy-file": _legacy_file,
    "note": _note,
    "ring": _ring,
    "box": _box,
    "highlight": _highlight,
    "quote-block": _quote_block,
    "accordion": _accordion,
    "card-policy": _card_policy,
    "card-prompt": _card_prompt,
    "featured-resource": _featured_resource,
    # An image whose caption lives in the site's image data (not in the archive): nothing.
    "img": _nothing,
    "img-right": _nothing,
    # Embeds: an iframe (its title attribute is not shown) or a tweet fetched at build time.
    "youtube": _nothing,
    "cspan-iframe": _nothing,
    "fb-video": _nothing,
    "tweet": _nothing,
    # They print a url, meant for a link target (`target_url`); outside one, a permalink
    # the archive cannot know (`ref`, `relref`, `link`) or the unset `defaulturl` (`tmp`).
    "ref": _nothing,
    "relref": _nothing,
    "link": _nothing,
    "tmp": _nothing,
}


def view(code: Shortcode) -> View:
    """What the page shows for `code` (see the module docstring)."""
    return VIEWS.get(code.name, _inner)(code)


def shows_text(shown: View) -> bool:
    """False for a view of breaks only: it shows nothing."""
    return any(not isinstance(piece, Break) for piece in shown)


def legacy_file_url(code: Shortcode) -> str:
    return f"{LEGACY_FILES}/{code.arg(0).lstrip('/')}"


def target_url(code: Shortcode) -> str:
    """The url a shortcode writes into a link target (`[text]({{< ref "x.md" >}})`): the path
    of a `ref`, `relref` or `link` (its permalink is unknown here, the path names the page),
    a `legacy-file`'s address; `""` for any other."""
    if code.name in ("ref", "relref", "link"):
        return (code.arg(0) or code.get("path")).strip()
    if code.name == "legacy-file":
        return legacy_file_url(code)
    return ""
