"""PDF files (.pdf): the text layer of every page, pages joined by a blank line.

The stored text is `"\\n\\n".join(page texts)` (each page's newlines normalised), and
`Document.pages` holds one `PageSpan(label, start, end)` per page, with the printed page
label (`iii`, `12`, `A-1`) when the PDF defines labels, else the page number. A page whose
text cannot be extracted counts as empty and is listed in `meta["unreadable_pages"]`. A PDF
with no text at all is skipped: it is most likely scanned, and OCR is out of scope.

Metadata: title (else the first line of text), author (`meta["author"]`) and creation date
(`YYYY-MM-DD`). Encrypted PDFs open only when the empty password works.

`pdf_document(data)` reads the bytes of a PDF; `load_pdf(path)` calls it on a file. With
`max_pages`, only the first pages are read (labels and spans are theirs alone), and a PDF
longer than that records `meta["pages_read"]` and `meta["pages_total"]`. U+0000 is removed
from page texts: it is never a visible glyph (a broken font mapping yields it), and a stored
text must not contain it.
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from typing import Any

from ...types import Document, PageSpan
from ..results import LoadError
from .common import build_document, first_line_title, normalise_newlines
from .versions import LOADER_VERSIONS

PAGE_SEPARATOR = "\n\n"


def _open(data: bytes) -> Any:
    from pypdf import PdfReader  # imported here: only PDFs need it

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            opened = bool(reader.decrypt(""))  # PasswordType.NOT_DECRYPTED is 0
        except Exception:  # pypdf raises several types for unsupported encryption
            opened = False
        if not opened:
            raise LoadError("encrypted PDF that needs a password")
    return reader


def _labels(reader: Any, total: int, count: int) -> list[str]:
    """The labels of the first `count` of the PDF's `total` pages."""
    try:
        labels = [str(label) for label in reader.page_labels]
    except Exception:  # malformed /PageLabels: fall back to page numbers
        labels = []
    return labels[:count] if len(labels) == total else [str(i + 1) for i in range(count)]


def _page_texts(reader: Any, count: int) -> tuple[list[str], list[str]]:
    """The texts of the first `count` pages, and the numbers of those that failed."""
    texts: list[str] = []
    unreadable: list[str] = []
    for number in range(1, count + 1):
        try:
            raw = reader.pages[number - 1].extract_text() or ""
            texts.append(normalise_newlines(raw.replace("\x00", "")))
        except Exception:
            texts.append("")
            unreadable.append(str(number))
    return texts, unreadable


def _metadata(reader: Any) -> tuple[str | None, str | None, str | None]:
    """(title, author, creation date) from the document info, each None when absent or bad."""
    try:
        info = reader.metadata
    except Exception:
        return None, None, None
    if info is None:
        return None, None, None

    def field(name: str) -> Any:
        try:
            return getattr(info, name)
        except Exception:  # e.g. an unparseable /CreationDate
            return None

    title, author, created = field("title"), field("author"), field("creation_date")
    date = created.date().isoformat() if isinstance(created, dt.datetime) else None
    return (
        title.strip() if isinstance(title, str) and title.strip() else None,
        author.strip() if isinstance(author, str) and author.strip() else None,
        date,
    )


def load_pdf(path: Path, doc_id: str) -> Document:
    return pdf_document(path.read_bytes(), doc_id, path.stem)


def pdf_document(
    data: bytes, doc_id: str, fallback_title: str, *, max_pages: int | None = None
) -> Document:
    """The document of a PDF's bytes: its first `max_pages` pages (all when None)."""
    reader = _open(data)
    total = len(reader.pages)
    count = total if max_pages is None else min(total, max_pages)
    texts, unreadable = _page_texts(reader, count)
    if not any(t.strip() for t in texts):
        raise LoadError("no extractable text (scanned PDF?)")
    labels = _labels(reader, total, count)
    spans: list[PageSpan] = []
    cursor = 0
    for label, page_text in zip(labels, texts, strict=True):
        spans.append(PageSpan(label=label, start=cursor, end=cursor + len(page_text)))
        cursor += len(page_text) + len(PAGE_SEPARATOR)
    text = PAGE_SEPARATOR.join(texts)
    title, author, date = _metadata(reader)
    meta = {"author": author} if author else {}
    if unreadable:
        meta["unreadable_pages"] = ", ".join(unreadable)
    if count < total:
        meta["pages_read"], meta["pages_total"] = str(count), str(total)
    return build_document(
        doc_id,
        text,
        title or first_line_title(text, fallback_title),
        date=date,
        meta=meta,
        pages=tuple(spans),
        loader_version=LOADER_VERSIONS["pdf"],
    )
