"""The PDF loader on PDFs written for the test: text, page spans and labels, metadata, skips."""

from __future__ import annotations

from pathlib import Path

from archive_helpers import write_pdf

from evidence_desk.archive.loaders import iter_documents
from evidence_desk.archive.results import Loaded, Skipped

PAGES = [
    "Preface to the report.\nIt explains (briefly) the method.",
    "",
    "Chapter one begins here.\nThe survey reached 2,400 households.",
    "Appendix with the tables.",
]


def _load(path: Path) -> Loaded | Skipped:
    [result] = list(iter_documents([path]))
    return result


def test_pages_are_joined_and_spanned_with_labels(tmp_path: Path) -> None:
    path = write_pdf(
        tmp_path / "report.pdf",
        PAGES,
        title="Household Survey",
        author="Ann Author",
        roman_front_pages=2,
    )
    result = _load(path)
    assert isinstance(result, Loaded)
    doc = result.document
    assert doc.doc_id == "report.pdf"
    assert doc.title == "Household Survey"
    assert doc.meta == {"author": "Ann Author"}
    assert doc.date == "2020-01-02"
    assert [p.label for p in doc.pages] == ["i", "ii", "1", "2"]
    page_texts = [doc.text[p.start : p.end] for p in doc.pages]
    assert "\n\n".join(page_texts) == doc.text
    assert "2,400 households" in page_texts[2]
    assert page_texts[1] == ""
    assert "Preface to the report." in page_texts[0] and "(briefly)" in page_texts[0]


def test_title_falls_back_to_first_line(tmp_path: Path) -> None:
    pages = ["Minutes of the March meeting\nAll present."]
    result = _load(write_pdf(tmp_path / "untitled.pdf", pages))
    assert isinstance(result, Loaded)
    assert result.document.title == "Minutes of the March meeting"
    assert [p.label for p in result.document.pages] == ["1"]


def test_pdf_without_text_is_skipped(tmp_path: Path) -> None:
    result = _load(write_pdf(tmp_path / "scan.pdf", ["", ""]))
    assert isinstance(result, Skipped)
    assert result.reason == "no extractable text (scanned PDF?)"


def test_password_protected_pdf_is_skipped(tmp_path: Path) -> None:
    result = _load(write_pdf(tmp_path / "locked.pdf", ["Secret plans."], password="hunter2"))
    assert isinstance(result, Skipped)
    assert result.reason == "encrypted PDF that needs a password"


def test_broken_pdf_is_skipped_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer\n%%EOF")
    result = _load(path)
    assert isinstance(result, Skipped)
    assert result.reason.startswith("could not be read (")
