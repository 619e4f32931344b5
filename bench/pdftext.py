"""PDF text accuracy: how close our PDF reader's text is to text known independently of it.

    .venv/bin/python -m bench.pdftext            # every folder of the PDF sample files
    .venv/bin/python -m bench.pdftext --quick    # the small ones (no 117-page book)

Data: py-pdf/sample-files (CC BY-SA 4.0) and one ground truth of py-pdf/benchmarks
(BSD-3-Clause), in the shared data folder (`pdfs/`): each folder holds one PDF and, for most,
the source it was made from. The known text of a folder is taken from that source:

* `*.ground-truth.txt` (the GeoTopo book): as it is;
* `.odt` (LibreOffice): the paragraphs, headings and form-control labels of `content.xml`;
* `.html` (WeasyPrint): the body's text;
* `.tex`: the body with the LaTeX markup stripped. Where the body calls a macro that writes
  text the source does not hold (`\\blindtext`, `\\lipsum`, `\\maketitle`,
  `\\tableofcontents`), the known text is *partial*: only recall means anything there.

A folder without a source (a Google Docs export, a PDF/A file) is listed and not scored.

Each PDF goes through `read_page` as a fetched PDF would, but with the page cap and time
limit raised so that the whole file is read (the book has 117 pages; the default reads 30).
Scores: word-level (`\\w+` tokens, multisets) precision, recall and F1 of our text against
the known text, the same 4-gram shingle F1 as `bench/extraction.py`, and word F1 after
NFKC normalisation (pypdf keeps ligature glyphs such as `ﬁ`, which a search for `fi` does
not match). The published figure closest to ours is py-pdf/benchmarks' `read-README.md`:
pypdf 1.27.12 scored 79% on the GeoTopo book (Levenshtein ratio of the whole text, on the
uncompressed `GeoTopo.pdf`), not directly comparable with a word F1.

Results on this box (pypdf 7.1.1), word F1: 1.000 (LibreOffice), 0.990 and 0.980 (pdfLaTeX
one-pagers; the page number is the extra word), 0.888 on the 117-page GeoTopo book (0.902
after NFKC: ligatures; 4-gram F1 0.596: words are right, their order across lines, columns
and formulas less so), 0.857 and 0.818 (forms: field labels), 0.750 on the Arabic page
(pypdf writes the Arabic word twice). Median over the 7 files with a complete known text:
0.888. Recall on the partial ones: 1.000 and 0.958.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import SHARED_DATA, load_average, median, print_table
from bench.extraction import match
from evidence_desk.sources.reading import ReadLimits, ReadRefused, read_page

DATA = SHARED_DATA / "pdfs"
QUICK_MAX_BYTES = 1_000_000
WHOLE_FILE = ReadLimits(seconds=300, max_pdf_pages=10_000, max_text_chars=10_000_000)

_GENERATED = re.compile(r"\\(blindtext|Blindtext|lipsum|maketitle|tableofcontents)\b")
_ODT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_FORM_LABEL = "{urn:oasis:names:tc:opendocument:xmlns:form:1.0}label"


@dataclass(frozen=True)
class Known:
    """The known text of a folder and whether it is the whole text of the PDF."""

    text: str
    source: str
    complete: bool


def tex_text(source: str) -> Known:
    body = source.split(r"\begin{document}", 1)[-1].split(r"\end{document}", 1)[0]
    body = re.sub(r"(?<!\\)%.*", "", body)  # comments
    complete = _GENERATED.search(body) is None
    body = re.sub(r"\\(begin|end)\{tabular\}(\{[^}]*\})?", " ", body)  # with its column spec
    body = re.sub(r"\\(begin|end)\{[^}]*\}(\[[^\]]*\])?", " ", body)
    body = re.sub(r"\\(includegraphics|label|ref|cite|usepackage)(\[[^\]]*\])?\{[^}]*\}", " ", body)
    body = re.sub(r"\\[A-Za-z]+\*?(\[[^\]]*\])?", " ", body)  # command names, their options
    body = re.sub(r"\\\\|[{}&~]", " ", body)
    return Known(body, "tex", complete)


def odt_text(path: Path) -> Known:
    """Paragraphs and headings, and the labels of form controls (drawn on the page too)."""
    root = ElementTree.fromstring(zipfile.ZipFile(path).read("content.xml"))
    lines = ["".join(el.itertext()) for el in root.iter() if el.tag in (f"{_ODT}p", f"{_ODT}h")]
    lines += [el.attrib[_FORM_LABEL] for el in root.iter() if _FORM_LABEL in el.attrib]
    return Known("\n".join(lines), "odt", True)


class _BodyText(HTMLParser):
    """The character data inside `<body>`."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside = self.inside or tag == "body"

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.parts.append(data)


def html_text(path: Path) -> Known:
    parser = _BodyText()
    parser.feed(path.read_text(encoding="utf-8"))
    return Known(" ".join(parser.parts), "html", True)


def known_text(folder: Path) -> Known | None:
    """The folder's known text, from the first source found (see the module docstring)."""
    for path in sorted(folder.glob("*.ground-truth.txt")):
        return Known(path.read_text(encoding="utf-8"), "ground truth", True)
    for path in sorted(folder.glob("*.odt")):
        return odt_text(path)
    for path in sorted(folder.glob("*.html")):
        return html_text(path)
    for path in sorted(folder.glob("*.tex")):
        return tex_text(path.read_text(encoding="utf-8"))
    return None


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="PDFs under 1 MB only")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"skipped: the PDF sample files are not at {DATA}")
        return 0
    print(f"PDFs from {DATA} ({load_average()})")
    rows: list[list[object]] = []
    full_f1: list[float] = []
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        pdfs = sorted(folder.glob("*.pdf"))
        if not pdfs or (args.quick and pdfs[0].stat().st_size > QUICK_MAX_BYTES):
            continue
        pdf, known = pdfs[0], known_text(folder)
        if known is None or not known.text.split():
            rows.append([folder.name, "-", "none", *["-"] * 6])
            continue
        t0 = time.perf_counter()
        try:
            doc = read_page(
                pdf.read_bytes(),
                "application/pdf",
                doc_id=pdf.name,
                url=f"https://example.invalid/{pdf.name}",
                limits=WHOLE_FILE,
            )
            text, pages = doc.text, len(doc.pages)
        except ReadRefused as refused:
            print(f"  refused {folder.name}: {refused}")
            text, pages = "", 0
        seconds = time.perf_counter() - t0
        words, shingled = match(known.text, text, 1), match(known.text, text, 4)
        nfkc = match(_nfkc(known.text), _nfkc(text), 1)
        kind = f"{known.source}{'' if known.complete else ' (partial)'}"
        if known.complete:
            full_f1.append(words.f1)
            scored: list[object] = [words.precision, words.recall, words.f1, shingled.f1, nfkc.f1]
        else:  # only the share of the known words found means anything
            scored = ["-", words.recall, "-", "-", "-"]
        rows.append([folder.name, pages, kind, *scored, seconds])
    print_table(
        [
            *("folder", "pages", "known text", "word P", "word R", "word F1", "4-gram F1"),
            *("word F1 NFKC", "s"),
        ],
        rows,
        title="Our PDF reader's text against the known text (whole files)",
    )
    print(f"\nmedian word F1 over the {len(full_f1)} files with a complete known text: ", end="")
    print(f"{median(full_f1):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
