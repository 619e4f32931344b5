"""Loaders on real documents from the shared data folder (skipped when it is absent)."""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest
from archive_helpers import SHARED_DATA

from evidence_desk.archive.loaders import iter_documents, load_file
from evidence_desk.archive.results import Loaded, Skipped

NEWS = SHARED_DATA / "digitalgov-news" / "raw" / "content" / "news"
READABILITY = SHARED_DATA / "readability-pages" / "test" / "test-pages"
ARTICLES = SHARED_DATA / "article-extraction"
PDFS = SHARED_DATA / "pdfs"

pytestmark = pytest.mark.shared_data


def _needs(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=f"shared data not found at {path}")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


@_needs(NEWS)
def test_digitalgov_markdown_posts() -> None:
    month = NEWS / "2019" / "03"
    results = list(iter_documents([month]))
    docs = {r.document.doc_id: r.document for r in results if isinstance(r, Loaded)}
    assert len(docs) >= 5
    doc = docs["2019-03-27-qa-with-ryan-day-about-gsas-api-strategy.md"]
    assert doc.title == "Q&A With Ryan Day About GSA’s API Strategy"
    assert doc.date == "2019-03-27"
    assert doc.meta["author"] == "gray-brooks; ryan-day"
    assert doc.text.startswith(
        "David Shive, chief information officer at The U.S. General Services Administration "
        "(GSA) recently published an update about our agency’s adoption of an API standards "
        "which seeks to improve"
    )
    assert "\n\nGray Brooks: To start, tell me at a high level" in doc.text
    first = doc.links[0]
    assert first.text == "an update about our agency’s adoption of an API standards"
    assert first.url.startswith("https://gsablogs.gsa.gov/innovation/2019/02/26/")
    assert all(doc.text[link.start : link.end] == link.text for link in doc.links)
    assert "slug:" not in doc.text and "{{<" not in doc.text
    assert all(d.date and d.date.startswith("2019-03") for d in docs.values())


# Markup that must not survive rendering, anywhere in an article's text.
MARKUP = ("](", "{{", "**", "<a ", "&#", "&amp;")
# Lines may not start with a heading mark, a quote mark or a table pipe (a hashtag such as
# `#SocialGov` at the start of a line is text, not a heading mark).
MARKUP_LINE = re.compile(r"^(?:#{1,6}(?:[ \t]|$)|>|\|)", re.MULTILINE)
# The source's own words, in inline code, which is kept as code.
CODE_ALLOWED = {
    "2015/02/2015-02-20-accessibility-is-not-scary-2.md": '<a href="#">Button</a>',
}


@pytest.mark.slow  # renders all 2,084 files
@_needs(NEWS)
def test_every_digitalgov_article_renders_without_markup() -> None:
    results = list(iter_documents([NEWS]))
    docs = [r.document for r in results if isinstance(r, Loaded)]
    assert len(docs) >= 1800  # of 2,084 files; the rest have no body (redirects, stubs)
    assert {s.reason for s in results if isinstance(s, Skipped)} <= {
        "no text after the front matter"
    }
    problems = []
    for doc in docs:
        text = doc.text.replace(CODE_ALLOWED.get(doc.doc_id, "\0"), "code")
        problems += [(doc.doc_id, mark) for mark in MARKUP if mark in text]
        problems += [(doc.doc_id, m.group(0)) for m in MARKUP_LINE.finditer(text)]
        assert "\n\n\n" not in text and " \n" not in text and text == text.strip(), doc.doc_id
        assert all(doc.text[a.start : a.end] == a.text for a in doc.links), doc.doc_id
        assert doc.loader_version == "markdown-3"
    assert problems == []
    assert sum(len(d.links) for d in docs) > 10_000


PHASE_ONE = NEWS / "2020" / "04" / "2020-04-15-10x-announces-25-projects-start-phase.md"


@_needs(PHASE_ONE)
def test_a_shortcodes_label_reads_where_the_page_shows_it() -> None:
    # The source: "we selected {{< asset-static file="10x-FY20-Round-1-Selected-Projects.pdf"
    # label="the next round of projects (PDF, 119 KB, 8 pages)" >}} to start at ...".
    [result] = list(load_file(PHASE_ONE, PHASE_ONE.name))
    assert isinstance(result, Loaded), result
    doc = result.document
    label = "the next round of projects (PDF, 119 KB, 8 pages)"
    assert (
        f"The 10x program is excited to announce that we selected {label} to start at the "
        "Phase One Investigation level."
    ) in doc.text
    assert "we selected to start" not in doc.text
    [link] = [link for link in doc.links if link.text == label]
    assert link.url == (
        "https://s3.amazonaws.com/digitalgov/static/10x-FY20-Round-1-Selected-Projects.pdf"
    )
    assert doc.text[link.start : link.end] == label


@_needs(NEWS)
def test_digitalgov_ids_are_relative_to_the_folder_given() -> None:
    results = list(iter_documents([NEWS / "2019"]))
    ids = [r.document.doc_id for r in results if isinstance(r, Loaded)]
    assert "03/2019-03-27-qa-with-ryan-day-about-gsas-api-strategy.md" in ids
    skips = [r for r in results if isinstance(r, Skipped)]
    assert all(s.reason == "no text after the front matter" for s in skips)


@_needs(READABILITY)
def test_readability_pages_titles_and_main_text() -> None:
    pages = sorted(p for p in READABILITY.iterdir() if (p / "expected-metadata.json").exists())
    sample = random.Random(7).sample(pages, 20)
    titles = 0
    for page in sample:
        [result] = list(load_file(page / "source.html", page.name))
        assert isinstance(result, Loaded), result
        doc = result.document
        expected = json.loads((page / "expected-metadata.json").read_text("utf-8"))
        want = " ".join((expected.get("title") or "").split()).lower()
        got = doc.title.lower()
        titles += bool(want) and (want in got or got in want)
        assert doc.text.strip() and "<script" not in doc.text
    assert titles >= 12


@_needs(ARTICLES)
def test_article_extraction_recall_against_ground_truth(tmp_path: Path) -> None:
    truth = json.loads((ARTICLES / "ground-truth.json").read_text("utf-8"))
    keys = sorted(truth)[:15]
    recalls = []
    for key in keys:
        page = tmp_path / f"{key}.html"
        page.write_bytes(gzip.decompress((ARTICLES / "html" / f"{key}.html.gz").read_bytes()))
        [result] = list(load_file(page, page.name))
        assert isinstance(result, Loaded), result
        expected = _words(truth[key]["articleBody"])
        recalls.append(len(expected & _words(result.document.text)) / max(1, len(expected)))
    recalls.sort()
    assert recalls[len(recalls) // 2] >= 0.8  # median word recall of the article body


@_needs(PDFS)
def test_sample_pdfs_load_with_pages() -> None:
    small = sorted(p for p in PDFS.rglob("*.pdf") if "geotopo" not in p.parent.name)
    results = list(iter_documents(small))
    loaded = [r.document for r in results if isinstance(r, Loaded)]
    assert len(loaded) == len(small) >= 8
    for doc in loaded:
        assert doc.pages and doc.pages[-1].end == len(doc.text)
        assert all(a.end + 2 == b.start for a, b in zip(doc.pages, doc.pages[1:], strict=False))


@pytest.mark.slow
@_needs(PDFS / "009-pdflatex-geotopo")
def test_book_pdf_has_roman_front_matter_labels() -> None:
    [result] = list(iter_documents([PDFS / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf"]))
    assert isinstance(result, Loaded)
    book = result.document
    assert book.title == "Geometrie und Topologie"
    assert book.meta["author"] == "Martin Thoma"
    assert [p.label for p in book.pages[:4]] == ["i", "ii", "iii", "1"]
    assert len(book.pages) == 117
