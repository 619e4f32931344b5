"""PDFs made for tests: real text layers (Helvetica, one line of text per line), metadata,
page labels and encryption when asked, built with pypdf so no file needs to be checked in."""

from __future__ import annotations

from collections.abc import Sequence
from io import BytesIO

from pypdf import PdfWriter
from pypdf.constants import PageLabelStyle
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def _escape(line: str) -> bytes:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def pdf_bytes(
    pages: Sequence[str],
    *,
    title: str | None = None,
    author: str | None = None,
    roman_front_pages: int = 0,
    password: str | None = None,
) -> bytes:
    """A PDF whose pages carry `pages` as real text; `roman_front_pages` are labelled
    i, ii, ... and the rest 1, 2, ...; `password` encrypts it (AES-128)."""
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
    out = BytesIO()
    writer.write(out)
    return out.getvalue()
