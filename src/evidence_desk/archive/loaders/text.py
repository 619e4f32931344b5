"""Plain-text files (.txt): the file's text is the document.

Title: the first non-empty line (capped), else the file stem. Date: a `YYYY-MM-DD` found in
the file name (e.g. `2017-08-28-notes.txt`), else none. `text_document` makes the document
of text already decoded (`sources/readchild.py` decodes fetched bytes its own way).
"""

from __future__ import annotations

from pathlib import Path

from ...types import Document
from .common import build_document, date_from_name, decode_text, first_line_title
from .versions import LOADER_VERSIONS


def load_text(path: Path, doc_id: str) -> Document:
    text = decode_text(path.read_bytes())
    return text_document(text, doc_id, path.stem, date=date_from_name(path.name))


def text_document(
    text: str, doc_id: str, fallback_title: str, *, date: str | None = None
) -> Document:
    """The document of decoded plain text; `fallback_title` when it has no non-empty line."""
    return build_document(
        doc_id,
        text,
        first_line_title(text, fallback_title),
        date=date,
        loader_version=LOADER_VERSIONS["text"],
    )
