"""HTML pages read like rendered markdown: lines for headings, items and rows, links kept."""

from __future__ import annotations

from archive_helpers import FIXTURES
from lxml import etree

from evidence_desk.archive.loaders import load_file
from evidence_desk.archive.loaders.htmltree import render_tree
from evidence_desk.archive.loaders.versions import LOADER_VERSIONS
from evidence_desk.archive.results import Loaded
from evidence_desk.types import Link

RENDER = FIXTURES / "render"


def test_a_page_with_lists_a_table_and_a_link() -> None:
    [result] = list(load_file(RENDER / "lists-and-tables.html", "lists-and-tables.html"))
    assert isinstance(result, Loaded)
    doc = result.document
    assert doc.title == "How the city measures its libraries"
    assert doc.loader_version == LOADER_VERSIONS["html"]
    assert doc.text == (RENDER / "lists-and-tables.txt").read_text("utf-8").rstrip("\n")
    [link] = doc.links
    assert (link.text, link.url) == (
        "board’s report",
        "https://gazette.example.com/library-report.pdf",
    )
    assert doc.text[link.start : link.end] == link.text
    for absent in ("INJECTED", "Copyright", "Home", "- ", "|"):
        assert absent not in doc.text


def test_trafilaturas_tree_elements() -> None:
    body = etree.fromstring(
        "<body><head rend='h2'>Title <hi rend='#b'>bold</hi></head>"
        "<p>See <ref target='https://x.gov/'>the site</ref>.<lb/>Next line.</p>"
        "<quote><p>Quoted words.</p></quote>"
        "<code>x = 1\n\nprint(x)</code><p>Inline <code>ls -l</code> runs.</p>"
        "<list rend='ol'><item><p>one</p></item><item>two</item></list></body>"
    )
    out = render_tree(body)
    assert out.text == (
        "Title bold\n\nSee the site.\nNext line.\n\nQuoted words.\n\nx = 1\n\nprint(x)\n\n"
        "Inline ls -l runs.\n\none\ntwo"
    )
    assert out.links == (Link(text="the site", url="https://x.gov/", start=16, end=24),)
