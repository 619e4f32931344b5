"""Markdown files (.md, .markdown), with optional YAML front matter.

Front matter is a block that opens with a `---` line at the top of the file (blank lines
before it are allowed) and closes with the next `---` or `...` line; it is parsed with
`yaml.safe_load` and must be a mapping. The stored text is the body after the block rendered
to the plain text a reader of the published page sees (`archive/render.py`: no markup, link
texts kept and their urls in `Document.links`); the front matter itself is never quoted from.
A body that renders to nothing (only template tags, say) is skipped like an empty one.

Metadata (HTML entities decoded, e.g. `Q&amp;A` -> `Q&A`): `title`, its inline markdown
rendered too (`**New:** *x*` -> `New: x`); `date` normalised to
`YYYY-MM-DD` (a timestamp keeps the calendar date as written, the offset is not applied;
an unrecognised value is kept in `meta["date_raw"]`); `url` from the first absolute http(s)
value among `url`, `permalink`, `canonical_url`, `canonical`, `source_url`; `author`/`authors`
into `meta["author"]`; every other scalar or list of scalars into `meta` as a string.
Without front matter: title from the first heading (rendered) or the first line of the
rendered text, date from the file name.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import yaml

from ...types import Document
from ..render import render_inline, render_markdown
from ..results import LoadError
from .common import (
    build_document,
    date_from_name,
    decode_text,
    first_line_title,
    flatten_meta,
    normalise_date,
)
from .versions import LOADER_VERSIONS

URL_KEYS = ("url", "permalink", "canonical_url", "canonical", "source_url")
_OPEN = re.compile(r"\A(?:[ \t]*\n)*---[ \t]*\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$\n?", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def split_front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    """(front matter mapping or None, body). The body is an exact suffix of `text`."""
    opening = _OPEN.match(text)
    if not opening:
        return None, text
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        return None, text  # a lone `---` is a horizontal rule, not front matter
    block = text[opening.end() : closing.start()]
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        first_line = text.count("\n", 0, opening.end()) + 1  # 1-based line of the block
        where = f" (line {first_line + mark.line})" if mark is not None else ""
        raise LoadError(f"front matter is not valid YAML{where}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise LoadError("front matter is not a YAML mapping of keys to values")
    return data, text[closing.end() :]


def _markdown_title(body: str, rendered: str, fallback: str) -> str:
    heading = _HEADING.search(body)
    if heading:
        title = render_inline(heading[1])
        if title:
            return title
    return first_line_title(rendered, fallback)


def _url(front: dict[str, Any]) -> tuple[str | None, str | None]:
    for key in URL_KEYS:
        value = front.get(key)
        if isinstance(value, str) and value.strip().lower().startswith(("http://", "https://")):
            return value.strip(), key
    return None, None


def load_markdown(path: Path, doc_id: str) -> Document:
    return markdown_document(decode_text(path.read_bytes()), doc_id, path.name)


def markdown_document(text: str, doc_id: str, name: str) -> Document:
    """The document of markdown `text` (front matter and all) from a file named `name`
    (its stem is the last-resort title, a date in it the last-resort date)."""
    path = Path(name)
    front, body = split_front_matter(text)
    rendered = render_markdown(body)
    version = LOADER_VERSIONS["markdown"]
    if front is None:
        return build_document(
            doc_id,
            rendered.text,
            _markdown_title(body, rendered.text, path.stem),
            date=date_from_name(path.name),
            links=rendered.links,
            loader_version=version,
        )
    if not rendered.text:
        raise LoadError("no text after the front matter")
    raw_title = front.get("title")
    title = render_inline(str(raw_title)) if raw_title not in (None, "") else ""  # entities too
    url, url_key = _url(front)
    meta = {
        key: html.unescape(value)
        for key, value in flatten_meta(front, exclude={"title", "date", url_key or ""}).items()
    }
    date = normalise_date(front.get("date"))
    if date is None and front.get("date") not in (None, ""):
        meta["date_raw"] = str(front.get("date"))
    return build_document(
        doc_id,
        rendered.text,
        title or _markdown_title(body, rendered.text, path.stem),
        date=date or date_from_name(path.name),
        url=url,
        meta=meta,
        links=rendered.links,
        loader_version=version,
    )
