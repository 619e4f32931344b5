"""Helpers for archive tests: fixture paths, a deterministic embedder, a PDF writer."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pypdf import PdfWriter
from pypdf.constants import PageLabelStyle
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from evidence_desk.retrieval.embedder import Vectors

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "archive"
SHARED_DATA = Path("/work/shared/data")


class HashingEmbedder:
    """A real `Embedder`: hashed bag of words, L2-normalised. Counts every text it embeds."""

    model_id = "test/hashing-bow"
    dim = 64
    precision = "fp32"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def _vector(self, text: str) -> Vectors:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
            v[h % self.dim] += 1.0 if h & 1 << 31 else -1.0
        norm = float(np.linalg.norm(v))
        return v / norm if norm else v

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        self.calls.append(len(texts))
        out = np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim))
        if progress is not None and texts:
            progress(len(texts))
        return out.astype(np.float32)

    def embed_query(self, text: str) -> Vectors:
        return self._vector(text)

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
