"""Helpers for archive tests: fixture paths, a deterministic embedder, a PDF writer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pypdf import PdfWriter
from pypdf.constants import PageLabelStyle
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.testing import embedder as testing_embedder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "archive"
SHARED_DATA = Path("/work/shared/data")


class HashingEmbedder(testing_embedder.HashingEmbedder):
    """The package's `HashingEmbedder` in 64 dimensions, under a model id of its own, that
    counts every text it embeds."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.model_id = "test/hashing-bow"
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        self.calls.append(len(texts))
        return super().embed(texts, progress)

    @property
    def embedded(self) -> int:
        return sum(self.calls)


def _escape(line: str) -> bytes:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def write_pdf(
    path: Path,
    pages: Sequence[str],
    *,
    title: str | None = None,
    author: str | None = None,
    roman_front_pages: int = 0,
    password: str | None = None,
) -> Path:
    """A small PDF whose pages carry `pages` as real text (Helvetica, one line per line)."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        ops = [b"BT /F1 11 Tf 72 720 Td 14 TL"]
        ops += [b"(" + _escape(line) + b") Tj T*" for line in text.split("\n") if text]
        ops.append(b"ET")
        stream = DecodedStreamObject()
        stream.set_data(b"\n".join(ops))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    info = {"/CreationDate": "D:20200102030405Z"}
    if title:
        info["/Title"] = title
    if author:
        info["/Author"] = author
    writer.add_metadata(info)
    if roman_front_pages:
        writer.set_page_label(0, roman_front_pages - 1, PageLabelStyle.LOWERCASE_ROMAN)
        writer.set_page_label(roman_front_pages, len(pages) - 1, PageLabelStyle.DECIMAL, start=1)
    if password:
        writer.encrypt(password, algorithm="AES-128")
    with path.open("wb") as handle:
        writer.write(handle)
    return path
