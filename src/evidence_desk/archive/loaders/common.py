"""What every loader shares: decoding, the stored-text rule, dates, titles and metadata.

The stored-text rule is the one invariant every quote check relies on: the stored text is
what a reader of the document sees, and quotes, passages and offsets all refer to it. It is
decoded as UTF-8 (a leading BOM removed) with `\\r\\n` and `\\r` turned into `\\n`. Plain
text, JSON Lines records and PDF pages are stored as they are; markup is rendered to plain
text first: markdown by `archive/render.py`, HTML by the HTML loader, each with the links
it found (`Document.links`, offsets into the stored text). `build_document` is the only
place a `Document` is made, so the SHA-256, the ingest timestamp and the loader version are
recorded the same way for every format.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping

from ...hashing import sha256_text, utc_now
from ...types import Document, Link, PageSpan
from ..results import LoadError

TITLE_MAX_CHARS = 200
_ISO_DATE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?![0-9])")
_NAME_DATE = re.compile(r"(?<![0-9])(\d{4})-(\d{2})-(\d{2})(?![0-9])")
_BOM = "\ufeff"


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_text(data: bytes) -> str:
    """Bytes -> stored text: strict UTF-8, BOM removed, newlines normalised."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(
            f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert the file to UTF-8"
        ) from None
    if text.startswith(_BOM):
        text = text[1:]
    return normalise_newlines(text)


def _iso_date(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def normalise_date(value: object) -> str | None:
    """A date-like value -> `YYYY-MM-DD`, or None when it is not recognisably a date.

    Timestamps keep their calendar date as written (`2019-03-26 12:38:00 -0500` ->
    `2019-03-26`): the local publication day, without converting the offset to UTC.
    """
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        m = _ISO_DATE.match(value)
        if m:
            return _iso_date(int(m[1]), int(m[2]), int(m[3]))
    return None


def date_from_name(name: str) -> str | None:
    """The first valid `YYYY-MM-DD` inside a file name, if any."""
    for m in _NAME_DATE.finditer(name):
        found = _iso_date(int(m[1]), int(m[2]), int(m[3]))
        if found:
            return found
    return None


def cap_title(title: str) -> str:
    """Collapse white space and cap at TITLE_MAX_CHARS, cutting at a word boundary."""
    title = " ".join(title.split())
    if len(title) <= TITLE_MAX_CHARS:
        return title
    cut = title[:TITLE_MAX_CHARS].rsplit(" ", 1)[0] or title[:TITLE_MAX_CHARS]
    return cut.rstrip() + "…"


def first_line_title(text: str, fallback: str) -> str:
    """The first non-empty line of `text` (capped), else `fallback`."""
    for line in text.split("\n"):
        if line.strip():
            return cap_title(line)
    return fallback


def _scalar(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    if isinstance(value, dt.date):
        return value.isoformat()
    return None


def _joined(values: Iterable[object]) -> str | None:
    parts = [s for s in (_scalar(v) for v in values) if s]
    return "; ".join(parts) or None


def flatten_meta(fields: Mapping[str, object], exclude: Iterable[str]) -> dict[str, str]:
    """Scalars and lists of scalars -> strings (lists joined with `; `); nested maps dropped.

    `authors` (a list) and `author` (a string or list) both become `meta["author"]`, names
    separated by `; ` so that a name containing a comma stays whole.
    """
    skip = set(exclude)
    meta: dict[str, str] = {}
    for key, value in fields.items():
        if not isinstance(key, str) or key in skip:
            continue
        name = "author" if key in ("author", "authors") else key
        text = _joined(value) if isinstance(value, list | tuple) else _scalar(value)
        if text:
            meta[name] = f"{meta[name]}; {text}" if name in meta else text
    return meta


def build_document(
    doc_id: str,
    text: str,
    title: str,
    *,
    date: str | None = None,
    url: str | None = None,
    meta: Mapping[str, str] | None = None,
    pages: tuple[PageSpan, ...] = (),
    links: tuple[Link, ...] = (),
    loader_version: str = "",
) -> Document:
    """The one constructor of archive documents: validates the text, hashes it, stamps it
    with the time and the version of the loader that made it (every loader passes its own,
    from `versions.py`; a document built by hand has none)."""
    if not text.strip():
        raise LoadError("empty text")
    if any(text[link.start : link.end] != link.text for link in links):
        raise ValueError(f"a link of {doc_id!r} is not a window of its text")
    try:
        digest = sha256_text(text)
    except UnicodeEncodeError:
        raise LoadError("text contains invalid Unicode (a lone surrogate)") from None
    return Document(
        doc_id=doc_id,
        title=cap_title(title) or doc_id,
        date=date,
        url=url,
        origin="archive",
        content_sha256=digest,
        ingested_at=utc_now(),
        text=text,
        pages=pages,
        links=links,
        loader_version=loader_version,
        meta=dict(meta or {}),
    )
