"""HTML pages (.html, .htm): the main text, as trafilatura extracts it, is the document.

trafilatura finds the main content (with links on); its element tree is written as plain
text by `htmltree.py`: headings, paragraphs, list items and table rows on their own lines,
no markup, each link's text in the text and its target in `Document.links`.

A page is hostile data. It is parsed, never rendered: no script runs, and nothing it
references (scripts, images, frames, links, redirects) is fetched. trafilatura is handed the
decoded markup only, never a URL, so its date finder has nothing to download.

Metadata: title, date (`YYYY-MM-DD`; only dates the page's markup states, no guessing from
free text), url (the canonical link, else `og:url`), author (into `meta["author"]`) and site
name (`meta["sitename"]`). Bytes must be UTF-8, or carry a `<meta charset>` Python knows;
a charset declared outside the page (an HTTP `Content-Type`) is applied by `decode_declared`.

`load_html(path)` decodes the file and hands the markup to `html_document`, which is the
whole of the reading; `sources/readchild.py` calls the same two steps on fetched bytes.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import Any

from ...types import Document
from ..results import LoadError
from .common import build_document, decode_text, normalise_date, normalise_newlines
from .htmltree import render_tree
from .versions import LOADER_VERSIONS

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_DATE_PARAMS = {"original_date": True, "extensive_search": False}


def decode_html(data: bytes) -> str:
    """UTF-8 first; otherwise the charset the page declares in its first 4 KiB."""
    try:
        return decode_text(data)
    except LoadError:
        declared = _CHARSET.search(data[:4096])
        if not declared:
            raise LoadError(
                "not UTF-8 and no <meta charset> declared; convert the page to UTF-8"
            ) from None
        name = declared[1].decode("ascii")
        try:
            codec = codecs.lookup(name)
        except LookupError:
            raise LoadError(f"declares an unknown charset {name!r}") from None
        try:
            return normalise_newlines(data.decode(codec.name))
        except UnicodeDecodeError:
            raise LoadError(f"is not valid {name} text as its <meta charset> says") from None


# Labels that mean windows-1252 in practice (the WHATWG Encoding Standard maps them so).
_WINDOWS_1252 = {"ascii", "latin_1", "iso8859_1"}


def decode_declared(data: bytes, charset: str) -> str:
    """Bytes in the charset declared for them (e.g. by a `Content-Type` header) -> text.

    A UTF-8 byte-order mark wins over the declaration, as in browsers. Raises `LoadError`
    for an unknown charset or bytes that are not valid in it.
    """
    if data.startswith(codecs.BOM_UTF8):
        return decode_text(data)
    try:
        codec = codecs.lookup(charset).name
    except LookupError:
        raise LoadError(f"declares an unknown charset {charset!r}") from None
    if codec in _WINDOWS_1252:
        codec = "cp1252"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        if codec != "cp1252":
            raise LoadError(f"is not valid {charset} text as its charset says") from None
        text = data.decode("latin-1")  # the five bytes cp1252 leaves undefined: C1 controls
    return normalise_newlines(text.removeprefix("\ufeff"))


def _extract(markup: str) -> tuple[Any, str | None]:
    """(trafilatura's extraction, the page's canonical link if absolute http(s))."""
    import trafilatura  # imported here: it costs ~0.6 s and only HTML needs it

    tree = trafilatura.load_html(markup)
    if tree is None:
        raise LoadError("not parseable as HTML")
    canonical = None
    for link in tree.iter("link"):
        if "canonical" in str(link.get("rel") or "").lower().split():
            href = str(link.get("href") or "").strip()
            if href.lower().startswith(("http://", "https://")):
                canonical = href
                break
    extracted = trafilatura.bare_extraction(
        tree,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        include_links=True,
        include_formatting=True,
        deduplicate=False,
        date_extraction_params=dict(_DATE_PARAMS),
    )
    return extracted, canonical


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = " ".join(value.replace("¶", " ").split())
    return value or None


def load_html(path: Path, doc_id: str) -> Document:
    return html_document(decode_html(path.read_bytes()), doc_id, path.stem)


def html_document(markup: str, doc_id: str, fallback_title: str) -> Document:
    """The document of decoded HTML markup; `fallback_title` when the page states none."""
    extracted, canonical = _extract(markup)
    body = getattr(extracted, "body", None)
    rendered = render_tree(body) if body is not None else None
    if rendered is None or not rendered.text:
        raise LoadError("no main text found in the page")
    meta = {
        key: value
        for key, value in (
            ("author", _clean(getattr(extracted, "author", None))),
            ("sitename", _clean(getattr(extracted, "sitename", None))),
        )
        if value
    }
    url = canonical or _clean(getattr(extracted, "url", None))
    if url and not url.lower().startswith(("http://", "https://")):
        url = None
    return build_document(
        doc_id,
        rendered.text,
        _clean(getattr(extracted, "title", None)) or fallback_title,
        date=normalise_date(getattr(extracted, "date", None)),
        url=url,
        meta=meta,
        links=rendered.links,
        loader_version=LOADER_VERSIONS["html"],
    )
