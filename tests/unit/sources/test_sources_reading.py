"""Reading fetched bytes into a web Document in a limited child process.

Every test goes through `read_page`, so each one starts the real child (or, where a test
needs a child that misbehaves on purpose, a stand-in command through `child_command`).
Bounded time is never asserted with a clock: the limits stop the child, and the test
asserts the sentence that says so.
"""

from __future__ import annotations

import sys

import pytest

from evidence_desk.errors import DeskError
from evidence_desk.sources import reading
from evidence_desk.sources.reading import (
    ReadLimits,
    ReadRefused,
    parse_content_type,
    read_page,
)
from evidence_desk.testing.pdfs import pdf_bytes
from evidence_desk.types import Document

URL = "https://news.example/2021/03/council-budget.html"

ARTICLE = b"""<!DOCTYPE html>
<html><head>
<title>Council approves budget | The Daily Example</title>
<meta property="og:title" content="Council approves budget">
<meta name="author" content="Jane Doe">
<meta property="og:site_name" content="The Daily Example">
<meta property="article:published_time" content="2021-03-04T10:00:00+01:00">
</head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a> | <a href="/subscribe">Subscribe</a></nav>
<article>
<h1>Council approves budget</h1>
<p>The city council voted on Tuesday to approve the budget for the coming year, after a
debate that lasted well into the evening and drew a large crowd to the chamber.</p>
<p>Members said the plan would fund <a href="https://parks.example/new">three new parks</a>
and repair roads in every district, while keeping the property tax rate unchanged.</p>
<p>The mayor is expected to sign the budget next week, her office said in a statement.</p>
</article>
<footer>Copyright 2021 The Daily Example. All rights reserved.</footer>
</body></html>
"""


def _read(body: bytes, content_type: str, **kwargs: object) -> Document:
    return read_page(body, content_type, doc_id="web-1", url=URL, **kwargs)  # type: ignore[arg-type]


def _refusal(body: bytes, content_type: str, **kwargs: object) -> str:
    with pytest.raises(ReadRefused) as caught:
        _read(body, content_type, **kwargs)
    sentence = str(caught.value)
    assert "\n" not in sentence and sentence.endswith("."), sentence
    return sentence


_pdf = pdf_bytes


def _circular_xref_pdf() -> bytes:
    """A one-page PDF whose trailer's /Prev points at its own cross-reference table."""
    content = b"BT /F1 12 Tf 72 720 Td (Circular but readable) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Prev %d >>\n" % (len(objects) + 1, xref)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


# --------------------------------------------------------------------------- HTML


def test_html_article_becomes_a_web_document_with_its_metadata() -> None:
    doc = _read(ARTICLE, "text/html; charset=utf-8")
    assert doc.origin == "web"
    assert doc.url == URL  # the final URL of the fetch, not a canonical link
    assert doc.doc_id == "web-1"
    assert doc.title == "Council approves budget"
    assert doc.date == "2021-03-04"
    assert doc.meta["author"] == "Jane Doe"
    assert doc.meta["sitename"] == "The Daily Example"
    assert "voted on Tuesday to approve the budget" in doc.text
    assert "keeping the property tax rate unchanged" in doc.text
    assert "Subscribe" not in doc.text and "All rights reserved" not in doc.text
    [link] = doc.links
    assert link.url == "https://parks.example/new"
    assert doc.text[link.start : link.end] == "three new parks"
    assert doc.loader_version.startswith("html-")


def test_sitename_falls_back_to_the_urls_host() -> None:
    page = b"<html><body><article><p>" + b"A plain page with no metadata at all. " * 8
    doc = _read(page + b"</p></article></body></html>", "application/xhtml+xml")
    assert doc.meta["sitename"] == "news.example"
    assert doc.title == "council-budget"  # from the URL: the page states no title


def test_charset_of_the_content_type_header_is_applied() -> None:
    page = "<html><body><article><p>" + "Le café de la gare ouvre à sept heures. " * 6
    body = (page + "</p></article></body></html>").encode("iso-8859-1")
    doc = _read(body, 'text/html; charset="ISO-8859-1"')
    assert "Le café de la gare ouvre à sept heures." in doc.text


def test_invalid_utf8_without_a_declared_charset_is_refused() -> None:
    body = "<html><body><p>Le café est fermé.</p></body></html>".encode("cp1252")
    sentence = _refusal(body, "text/html")
    assert sentence == "The page is not valid UTF-8 and declares no charset, so it was not read."


def test_nul_bytes_in_html_are_refused() -> None:
    sentence = _refusal(ARTICLE.replace(b"three new", b"three\x00new"), "text/html")
    assert sentence == "The page contains NUL characters, so it is not text; it was not read."


def test_hundred_thousand_nested_divs_end_in_a_sentence_or_a_document() -> None:
    body = b"<html><body>" + b"<div>" * 100_000 + b"<p>Deep inside.</p>" + b"</div>" * 100_000
    try:
        doc = _read(body + b"</body></html>", "text/html", limits=ReadLimits(seconds=15))
    except ReadRefused as refused:
        sentence = str(refused)
        assert "\n" not in sentence and sentence.endswith(".")
        assert sentence.startswith(("The page", "Reading the page"))
    else:
        assert "Deep inside." in doc.text


# --------------------------------------------------------------------------- plain text


def test_plain_text_is_stored_as_it_is() -> None:
    doc = _read(b"\xef\xbb\xbfMinutes of the March meeting\r\nAll were present.\r\n", "text/plain")
    assert doc.origin == "web" and doc.url == URL
    assert doc.text == "Minutes of the March meeting\nAll were present.\n"
    assert doc.title == "Minutes of the March meeting"
    assert doc.meta == {"sitename": "news.example"}


def test_markdown_is_rendered_and_a_declared_charset_applies() -> None:
    """Markdown is rendered as the archive renders it (a reader sees no `#`), front matter
    read for metadata."""
    doc = _read(
        "# Réunion\n\nTout le monde était là.".encode("latin-1"), "text/markdown; charset=latin-1"
    )
    assert doc.text == "Réunion\n\nTout le monde était là." and doc.title == "Réunion"
    fronted = _read(
        b"---\ntitle: Notes\ndate: 2026-03-04\n---\nThe *council* met.", "text/markdown"
    )
    assert (fronted.title, fronted.date, fronted.text) == (
        "Notes",
        "2026-03-04",
        "The council met.",
    )


def test_invalid_utf8_text_is_refused() -> None:
    sentence = _refusal(b"caf\xe9 au lait", "text/plain")
    assert sentence == "The page is not valid UTF-8 and declares no charset, so it was not read."


def test_nul_bytes_in_text_are_refused() -> None:
    sentence = _refusal(b"looks like text\x00\x00\x01\x02", "text/plain; charset=utf-8")
    assert sentence == "The page contains NUL characters, so it is not text; it was not read."


def test_text_longer_than_the_limit_is_refused() -> None:
    sentence = _refusal(b"x" * 5000, "text/plain", limits=ReadLimits(max_text_chars=1000))
    assert sentence == "The page's text is 5,000 characters long; at most 1,000 are read."


def test_unsupported_content_type_is_refused_without_a_child() -> None:
    sentence = _refusal(b"\x89PNG\r\n", "image/png", child_command=["/nonexistent/python"])
    assert sentence == (
        "The page is of type image/png, which cannot be read; only HTML, plain text and PDF "
        "pages are."
    )
    assert _refusal(b"x", "").startswith("The page is of type unstated,")


def test_content_type_parsing() -> None:
    assert parse_content_type('Text/HTML; Charset="UTF-8"') == ("text/html", "UTF-8")
    assert parse_content_type("application/pdf") == ("application/pdf", None)
    assert parse_content_type("text/plain; format=flowed; charset=") == ("text/plain", None)


# --------------------------------------------------------------------------- PDF


PAGES = [
    "Preface to the report.",
    "It explains the method.",
    "Chapter one begins here.\nThe survey reached 2,400 households.",
    "Appendix with the tables.",
]


def test_pdf_keeps_labels_offsets_and_metadata() -> None:
    body = _pdf(PAGES, title="Household Survey", author="Ann Author", roman_front_pages=2)
    doc = _read(body, "application/pdf")
    assert doc.origin == "web" and doc.url == URL
    assert doc.title == "Household Survey"
    assert doc.date == "2020-01-02"
    assert doc.meta == {"author": "Ann Author", "sitename": "news.example"}
    assert [p.label for p in doc.pages] == ["i", "ii", "1", "2"]
    page_texts = [doc.text[p.start : p.end] for p in doc.pages]
    assert "\n\n".join(page_texts) == doc.text
    assert "2,400 households" in page_texts[2]
    assert doc.loader_version.startswith("pdf-")


def test_a_500_page_pdf_is_read_up_to_page_30() -> None:
    body = _pdf([f"This is page {n} of the long report." for n in range(1, 501)])
    doc = _read(body, "application/pdf")
    assert doc.meta["pages_read"] == "30" and doc.meta["pages_total"] == "500"
    assert [p.label for p in doc.pages] == [str(n) for n in range(1, 31)]
    assert "This is page 30 of" in doc.text and "page 31" not in doc.text


def test_pdf_page_cap_follows_the_limits() -> None:
    body = _pdf([f"Page {n} text." for n in range(1, 6)], roman_front_pages=2)
    doc = _read(body, "application/pdf", limits=ReadLimits(max_pdf_pages=3))
    assert [p.label for p in doc.pages] == ["i", "ii", "1"]
    assert doc.meta["pages_read"] == "3" and doc.meta["pages_total"] == "5"


def test_pdf_with_a_circular_xref_ends_in_a_sentence_or_a_document() -> None:
    try:
        doc = _read(_circular_xref_pdf(), "application/pdf", limits=ReadLimits(seconds=10))
    except ReadRefused as refused:
        sentence = str(refused)
        assert "\n" not in sentence and sentence.endswith(".")
        assert sentence.startswith(("The PDF", "Reading the PDF"))
    else:
        assert doc.text == "Circular but readable"


def test_broken_pdf_is_refused_with_a_sentence() -> None:
    sentence = _refusal(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF", "application/pdf")
    assert sentence.startswith("The PDF could not be read (")


def test_pdf_without_text_is_refused() -> None:
    sentence = _refusal(_pdf(["", ""]), "application/pdf")
    assert sentence == (
        "The PDF has no text layer (it may be scanned), so there is nothing to read."
    )


# --------------------------------------------------------------------------- the limits


def _child(code: str) -> list[str]:
    """A stand-in child: Python running `code` (it receives the limits as arguments)."""
    return [sys.executable, "-c", code]


def test_a_child_over_the_time_limit_is_stopped() -> None:
    sentence = _refusal(
        ARTICLE,
        "text/html",
        limits=ReadLimits(seconds=1),
        child_command=_child("import time; time.sleep(60)"),
    )
    assert sentence == "Reading the page took longer than 1 second; it was stopped."


def test_the_real_child_over_the_time_limit_is_stopped() -> None:
    body = _pdf([f"Page {n}." for n in range(1, 200)])
    # Limits no other test uses, so no warm spare matches: a cold child, which cannot even
    # import its readers in 0.05 s.
    limits = ReadLimits(seconds=0.05, memory_bytes=2**30 + 4096)
    sentence = _refusal(body, "application/pdf", limits=limits)
    assert sentence == "Reading the PDF took longer than 0.05 seconds; it was stopped."


def test_a_page_over_the_memory_limit_is_one_sentence() -> None:
    body = b"a" * (60 * 2**20)  # 60 MB of bytes, then 60 MB of text: more than 100 MB
    sentence = _refusal(body, "text/plain", limits=ReadLimits(memory_bytes=100 * 2**20))
    assert sentence == "Reading the page needed more than 100 MB of memory; it was stopped."


def test_a_child_dying_of_memory_error_is_one_sentence() -> None:
    sentence = _refusal(
        ARTICLE, "text/html", child_command=_child("raise MemoryError"), limits=ReadLimits()
    )
    assert sentence == "Reading the page needed more than 1,024 MB of memory; it was stopped."


def test_a_child_killed_for_processor_time_is_one_sentence() -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGXCPU)"
    sentence = _refusal(ARTICLE, "text/html", child_command=_child(code))
    assert (
        sentence == "Reading the page used more than 20 seconds of processor time; it was stopped."
    )


def test_a_child_that_crashes_is_one_sentence() -> None:
    sentence = _refusal(ARTICLE, "text/html", child_command=_child("import sys; sys.exit(3)"))
    assert sentence == "Reading the page failed: the reader exited with status 3."


@pytest.mark.parametrize(
    "reply",
    [
        "not json",
        '{"document": {"doc_id": "web-1"}}',
        "{}",
        '{"refused": "x", "document": null, "extra": 1}',
    ],
)
def test_a_reply_that_is_not_a_document_is_refused(reply: str) -> None:
    code = f"import sys; sys.stdout.write({reply!r})"
    sentence = _refusal(ARTICLE, "text/html", child_command=_child(code))
    assert sentence == "Reading the page failed: the reader's reply was not a document."


def test_a_document_for_another_page_is_refused() -> None:
    real = _read(b"Some text.", "text/plain")
    forged = real.model_copy(update={"url": "https://elsewhere.example/"}).model_dump_json()
    reply = '{"document": ' + forged + "}"
    code = f"import sys; sys.stdout.write({reply!r})"
    sentence = _refusal(b"Some text.", "text/plain", child_command=_child(code))
    assert sentence == "Reading the page failed: the reader's reply was not a document."


def test_read_refused_is_a_desk_error() -> None:
    assert issubclass(ReadRefused, DeskError)


# --------------------------------------------------------------------------- the spare


def test_each_page_gets_a_fresh_child_and_a_dead_spare_is_replaced() -> None:
    assert _read(b"First page.", "text/plain").text == "First page."
    spare = reading._spare
    assert spare is not None and spare.proc.poll() is None  # warming up for the next page
    assert _read(b"Second page.", "text/plain").text == "Second page."
    assert reading._spare is not spare and spare.proc.returncode == 0  # used once, exited
    dead = reading._spare
    assert dead is not None
    dead.proc.kill()
    dead.proc.wait()
    assert _read(b"Third page.", "text/plain").text == "Third page."
