"""Markdown rendered to what a reader sees: one small written source per rule, exact text."""

from __future__ import annotations

import pytest
from archive_helpers import FIXTURES

from evidence_desk.archive.loaders import load_file
from evidence_desk.archive.loaders.versions import LOADER_VERSIONS
from evidence_desk.archive.plaintext import CELL_SEPARATOR, Rendered
from evidence_desk.archive.render import render_inline, render_markdown
from evidence_desk.archive.results import Loaded
from evidence_desk.trust.claims import OPENERS, split_claims
from evidence_desk.trust.markup import markup
from evidence_desk.types import Link

RENDER = FIXTURES / "render"


def rendered(source: str) -> Rendered:
    """`render_markdown`, with the link invariant checked on every call."""
    out = render_markdown(source)
    for link in out.links:
        assert out.text[link.start : link.end] == link.text
    return out


def links(out: Rendered) -> list[tuple[str, str]]:
    return [(link.text, link.url) for link in out.links]


def test_link_text_stays_and_its_url_becomes_metadata() -> None:
    out = rendered('see the [guide](https://example.gov/guide/ "The guide") for details')
    assert out.text == "see the guide for details"
    assert out.links == (Link(text="guide", url="https://example.gov/guide/", start=8, end=13),)


def test_reference_links_resolve_as_commonmark_does() -> None:
    out = rendered(
        "Read [the report][18a73fb9] and [Data.gov][] today.\n\n"
        '[18A73FB9]: https://example.gov/report.pdf "Report"\n'
        "[data.gov]: <https://data.gov/>\n"
    )
    assert out.text == "Read the report and Data.gov today."
    assert links(out) == [
        ("the report", "https://example.gov/report.pdf"),
        ("Data.gov", "https://data.gov/"),
    ]


def test_images_are_their_alt_text() -> None:
    out = rendered(
        'Visits rose. ![A chart of *monthly* visits](chart.png "t")\n\n'
        "[![The agency logo](logo.png)](https://agency.gov/)"
    )
    assert out.text == "Visits rose. A chart of monthly visits\n\nThe agency logo"
    assert links(out) == [("The agency logo", "https://agency.gov/")]


def test_html_blocks_and_inline_html_are_reduced_to_text() -> None:
    out = rendered(
        '<div class="note">\n'
        '<p>Agencies&#8217; sites <a href="https://x.gov/" target="_blank">load faster</a>'
        "&nbsp;now &amp; then.</p>\n"
        '<script>document.write("INJECTED")</script>\n'
        "<!-- an editor's note -->\n"
        "<style>p { color: red }</style>\n"
        "</div>\n\n"
        'Line one<br>line two <img src="x.png" alt="a logo"> and <b>bold</b>'
        "<script>steal()</script> end.\n"
    )
    assert out.text == (
        "Agencies’ sites load faster now & then.\n\nLine one\nline two a logo and bold end."
    )
    assert links(out) == [("load faster", "https://x.gov/")]


def test_markdown_inside_an_html_block_is_read_as_markdown() -> None:
    out = rendered("<div>\nA **bold** [link](https://a.gov/) &amp; more\n</div>")
    assert out.text == "A bold link & more"
    assert links(out) == [("link", "https://a.gov/")]


def test_html_lists_and_tables_split_by_blank_lines() -> None:
    out = rendered(
        "<ul>\n  <li>\n    First item\n  </li>\n\n  <li>\n    Second item\n  </li>\n</ul>\n\n"
        "<table>\n  <tr>\n    <td>\n      Fans\n    </td>\n\n    <td>\n      People who like"
        " it\n    </td>\n  </tr>\n</table>\n"
    )
    assert out.text == "First item\nSecond item\n\nFans · People who like it"


def test_template_tags_go_and_shortcodes_show_what_their_page_shows() -> None:
    # An image without a caption shows no text; a note shows its heading and its markdown; a
    # pair of a kind the theme does not know keeps its text; other template tags go.
    out = rendered(
        '{{< legacy-img src="2014/06/x.jpg" alt="A photo, with > in it" >}}\n\n'
        "{{< note >}}\nInner *text* stays.\n{{< /note >}}\n\n"
        "{{% unknown-pair %}}Kept.{{% /unknown-pair %}} {% include x.html %} {{ .Title }}Done."
    )
    assert out.text == "Note\n\nInner text stays.\n\nKept. Done."


def test_a_ref_in_a_link_target_becomes_the_links_url() -> None:
    out = rendered(
        'See [APIs in government]({{< ref "2013-04-30-apis-in-government.md" >}}), '
        '<a href="{{< ref "/events" >}}">our events</a>, [a dead link]({{< tmp "deadlink" >}} '
        '"Recent themes") and [the guide][g].\n\n'
        '[g]: {{< relref "guides/dap.md" >}}'
    )
    assert out.text == "See APIs in government, our events, a dead link and the guide."
    assert links(out) == [
        ("APIs in government", "2013-04-30-apis-in-government.md"),
        ("our events", "/events"),
        ("the guide", "guides/dap.md"),
    ]


def test_nested_lists_put_each_item_on_its_own_line() -> None:
    out = rendered(
        "Steps:\n\n- one\n- two\n  - two a\n\n  - two b\n- three\n\n"
        "1. first\n2. second\n\nAfter the list."
    )
    assert out.text == "Steps:\n\none\ntwo\ntwo a\ntwo b\nthree\n\nfirst\nsecond\n\nAfter the list."


def test_tables_are_rows_of_cells_joined_by_a_plain_separator() -> None:
    out = rendered(
        "| Metric | Definition |\n|---|---|\n| Visits | How often `people` come |\n"
        "| | An empty first cell |\n\nNext paragraph."
    )
    assert out.text == (
        "Metric · Definition\nVisits · How often people come\nAn empty first cell\n\n"
        "Next paragraph."
    )


def test_the_cell_separator_is_neither_markup_nor_a_quotation_mark() -> None:
    assert not any(mark in CELL_SEPARATOR for mark in OPENERS)
    [claim] = split_claims(f"Visits{CELL_SEPARATOR}How often people come [S1]")
    assert claim.quotes == () and not claim.unbalanced and markup(claim) == ()


def test_code_is_kept_as_code_without_backticks() -> None:
    out = rendered(
        "Run `git status` and ``a `b` c`` first; `&amp;` stays.\n\n"
        "```python\nx = 1\n\n\n\nif x:   \n    print(x)\n```\n"
    )
    assert out.text == (
        "Run git status and a `b` c first; &amp; stays.\n\nx = 1\n\nif x:\n    print(x)"
    )


def test_indented_text_is_not_code() -> None:
    out = rendered("A paragraph.\n\n    An indented one, **exported** that way.")
    assert out.text == "A paragraph.\n\nAn indented one, exported that way."


def test_headings_stand_apart_without_their_marks() -> None:
    out = rendered(
        "# Title\nText under it.\n## Sub **bold** ##\nMore.\n\nSetext\n------\n"
        "### Jump here {#toc1}\n"
    )
    assert out.text == "Title\n\nText under it.\n\nSub bold\n\nMore.\n\nSetext\n\nJump here"


def test_emphasis_and_stray_marks_are_dropped() -> None:
    out = rendered(
        "A **_very_** *important* __point__. Read more**** on it.\n\n**\n\n2**10 is big."
    )
    assert out.text == "A very important point. Read more on it.\n\n2**10 is big."


def test_breaks_blockquotes_and_white_space() -> None:
    out = rendered(
        "one\ntwo  \nthree\\\nfour   five\t six   \n\n\n\n> quoted *line*\n> goes on\n\n---\n\nend"
    )
    assert out.text == "one two\nthree\nfour five six\n\nquoted line goes on\n\nend"


def test_entities_are_decoded_and_invisible_characters_dropped() -> None:
    out = rendered("AT&amp;T&#8217;s &copy; 2014 &#x2014; zero\u200bwidth\u00adsoft")
    assert out.text == "AT&T’s © 2014 — zerowidthsoft"


def test_unsafe_urls_keep_the_text_and_drop_the_link() -> None:
    out = rendered('[click](javascript:alert(1)) or <a href="data:text/html,x">this</a>.')
    assert out.text == "click or this."
    assert out.links == ()


def test_links_commonmark_cannot_read_still_read_as_links() -> None:
    out = rendered(
        "[Email us](mailto:a@x.gov?subject=Two words), [see](to https://x.gov/a/) "
        "and policies](https://x.gov/p/) end."
    )
    assert out.text == "Email us, see and policies end."
    assert links(out) == [
        ("Email us", "mailto:a@x.gov?subject=Two%20words"),
        ("see", "https://x.gov/a/"),
    ]


def test_titles_render_inline_markup() -> None:
    assert render_inline("**New:** *Open* [data](https://d.gov) &amp; more  ") == (
        "New: Open data & more"
    )
    assert render_inline("1. Not a list") == "1. Not a list"


def test_a_hugo_article_reads_as_its_published_page() -> None:
    [result] = list(load_file(RENDER / "2014-06-01-hugo-article.md", "hugo-article.md"))
    assert isinstance(result, Loaded)
    doc = result.document
    assert doc.title == "Q&A: The API’s first year"
    assert doc.loader_version == LOADER_VERSIONS["markdown"]
    assert doc.text == (RENDER / "2014-06-01-hugo-article.txt").read_text("utf-8").rstrip("\n")
    assert [(link.text, link.url) for link in doc.links] == [
        ("APIs in Government", "2013-04-30-apis-in-government.md"),
        ("the developer hub", "https://developer.example.gov/"),
        ("sign up", "https://api.example.gov/signup"),
        ("our guide", "https://example.gov/guide/"),
    ]
    assert all(doc.text[link.start : link.end] == link.text for link in doc.links)


@pytest.mark.parametrize("source", ["", "   \n\n", "{{< tweet 12345 >}}\n", "<!-- only -->"])
def test_nothing_to_read_renders_empty(source: str) -> None:
    assert rendered(source) == Rendered(text="")
