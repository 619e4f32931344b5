"""Shortcodes, reference links and inline HTML rendered to the words their page shows.

Each source is a small hand-written page in the digital.gov theme's shortcodes; the expected
text is what the theme's template writes (`archive/shortcode_views.py` names the templates).
"""

from __future__ import annotations

import pytest

from evidence_desk.archive.plaintext import Rendered
from evidence_desk.archive.render import render_markdown
from evidence_desk.archive.shortcodes import read_tag
from evidence_desk.archive.template_tags import PLACEHOLDERS, placeholder, prepare

CDN = "https://s3.amazonaws.com/digitalgov"


def rendered(source: str) -> Rendered:
    """`render_markdown`, checked for the link invariant and for leftover placeholders."""
    out = render_markdown(source)
    assert not PLACEHOLDERS.search(out.text)
    for link in out.links:
        assert out.text[link.start : link.end] == link.text
    return out


def links(out: Rendered) -> list[tuple[str, str]]:
    return [(link.text, link.url) for link in out.links]


# --------------------------------------------------------------------------- labels


def test_an_asset_link_reads_as_its_label_where_it_stands() -> None:
    out = rendered(
        "The 10x program is excited to announce that we selected {{< asset-static "
        'file="10x-FY20-Round-1-Selected-Projects.pdf" label="the next round of projects '
        '(PDF, 119 KB, 8 pages)" >}} to start at the Phase One Investigation level.'
    )
    assert out.text == (
        "The 10x program is excited to announce that we selected the next round of projects "
        "(PDF, 119 KB, 8 pages) to start at the Phase One Investigation level."
    )
    assert links(out) == [
        (
            "the next round of projects (PDF, 119 KB, 8 pages)",
            f"{CDN}/static/10x-FY20-Round-1-Selected-Projects.pdf",
        )
    ]


def test_an_asset_link_keeps_the_space_its_template_writes_after_it() -> None:
    # The template ends its `<a>` with a line end, so the page reads "... 14 tabs) which".
    out = rendered(
        'Based on the {{< asset-static file="c.xlsx" label="Go-Live Checklist (Excel '
        'spreadsheet, 69 KB, 14 tabs)" >}}which was developed'
    )
    assert out.text == (
        "Based on the Go-Live Checklist (Excel spreadsheet, 69 KB, 14 tabs) which was developed"
    )


def test_a_label_is_shown_as_written_not_read_as_markdown() -> None:
    out = rendered('Get {{< asset-static file="a.pdf" label="the *raw* [list] &amp; more" >}}.')
    assert out.text == "Get the *raw* [list] &amp; more ."


def test_a_button_is_its_text_linked_to_its_href() -> None:
    out = rendered(
        "Intro.\n\n"
        '{{< button href="https://www.challenge.gov/challenge/vets-match/" text="View the '
        'challenge" >}}\n\nMore.'
    )
    assert out.text == "Intro.\n\nView the challenge\n\nMore."
    assert links(out) == [("View the challenge", "https://www.challenge.gov/challenge/vets-match/")]


def test_a_legacy_file_is_its_address_and_a_link_target_gets_it_as_url() -> None:
    out = rendered(
        'Get {{< legacy-file "/2014/07/a.pdf" >}} or [the checklist]({{< legacy-file '
        '"2014/07/b.xlsx" >}}) or [the overview]({{< link "resources/idea.md" >}}).'
    )
    assert out.text == f"Get {CDN}/_legacy-img/2014/07/a.pdf or the checklist or the overview."
    assert links(out) == [
        ("the checklist", f"{CDN}/_legacy-img/2014/07/b.xlsx"),
        ("the overview", "resources/idea.md"),
    ]


# --------------------------------------------------------------------------- captions, headings


def test_a_legacy_image_shows_its_caption_never_its_alt_text() -> None:
    out = rendered(
        "Before the image\n"
        '{{< legacy-img-right src="2012/02/x.jpg" alt="Two topis" caption="Photo by *Stuart '
        'Barr*, CC BY-NC-SA 2.0" >}}\nafter it.\n\n'
        '{{< legacy-img src="2012/02/y.jpg" alt="EPA seal" >}}\n\n'
        '{{< img src="10x-areas-of-focus" caption="not used by the template" >}}'
    )
    assert out.text == "Before the image\n\nPhoto by Stuart Barr, CC BY-NC-SA 2.0\n\nafter it."


def test_an_image_that_shows_nothing_leaves_a_list_a_list() -> None:
    out = rendered(
        "  1. one\n  2. two\n  \n"
        '    {{< legacy-img src="2016/03/x.jpg" alt="A screen" >}}\n'
        "  3. three\n  4. four\n"
    )
    assert out.text == "one\ntwo\nthree\nfour"


def test_a_caption_alone_on_its_line_does_not_swallow_the_list_after_it() -> None:
    out = rendered(
        'Steps:\n\n{{< legacy-img src="x.jpg" caption="Credit: Jane" >}}\n1. one\n2. two\n'
    )
    assert out.text == "Steps:\n\nCredit: Jane\n\none\ntwo"


@pytest.mark.parametrize(
    ("tag", "heading"),
    [
        ("{{< note >}}", "Note"),
        ('{{< note variant="comment" >}}', "Comment"),
        ('{{< note variant="action" >}}', "Action"),
        ('{{< note variant="join" >}}', "Who can join?"),
        # Hugo's `.Get "variant"` is empty when the arguments are positional.
        ('{{< note "action">}}', "Note"),
    ],
)
def test_a_note_shows_its_heading_then_its_markdown(tag: str, heading: str) -> None:
    out = rendered(f"Before.\n\n{tag}\n**About** it:\n\n- one\n- two\n{{{{< /note >}}}}\n\nAfter.")
    assert out.text == f"Before.\n\n{heading}\n\nAbout it:\n\none\ntwo\n\nAfter."


def test_a_disclaimer_note_shows_its_fixed_sentence_instead_of_its_markdown() -> None:
    out = rendered('{{< note variant="disclaimer" >}}\nNot shown.\n{{< /note >}}')
    assert out.text.startswith("Disclaimer\n\nAll references to specific brands, products,")
    assert "Not shown" not in out.text


def test_a_ring_a_box_and_a_highlight() -> None:
    out = rendered(
        '{{< ring title="Case study">}}\nThe team **shipped**.\n{{< /ring >}}\n\n'
        "{{< box >}}\nBoxed text.\n  {{< /box >}}\n\n"
        "1. To deliver it, we need to {{< highlight >}}use a *.gov* domain{{< /highlight >}}.\n"
        "2. Done."
    )
    assert out.text == (
        "Case study\n\nThe team shipped.\n\nBoxed text.\n\n"
        "To deliver it, we need to use a .gov domain.\nDone."
    )


# --------------------------------------------------------------------------- quotations, cards


def test_a_quote_block_shows_its_quotation_marks_and_its_citation() -> None:
    out = rendered(
        'Intro.\n\n{{< quote-block text="...\\[GSA] was able to *help*." cite="Department of '
        'Labor manager" >}}\n\n{{< quote-block text="Content work is a full-time job." '
        'cite="" >}}\n\n{{< quote-block cite="Nobody" >}}'
    )
    assert out.text == (
        "Intro.\n\n“...[GSA] was able to help.”\n— Department of Labor manager\n\n"
        "“Content work is a full-time job.”"
    )


def test_a_policy_card_shows_its_kicker_title_body_and_source_link() -> None:
    out = rendered(
        '{{< card-policy src="https://www.acquisition.gov/far/39.104" kicker="Policy" '
        'title="**Federal Acquisition Regulation (FAR) 39.104**: Information technology '
        'services." >}}When acquiring services&mdash;\n\n - (a) one; or\n - (b) two.\n\n'
        "Parent topic: [Subpart 39.1](https://www.acquisition.gov/far/subpart-39.1)"
        "{{< /card-policy >}}\n\nNext."
    )
    assert out.text == (
        "Policy\nFederal Acquisition Regulation (FAR) 39.104: Information technology services."
        "\n\nWhen acquiring services—\n\n(a) one; or\n(b) two.\n\nParent topic: Subpart 39.1"
        "\n\nView the full legislation\n\nNext."
    )
    assert links(out)[-1] == ("View the full legislation", "https://www.acquisition.gov/far/39.104")


def test_an_accordion_shows_its_kicker_title_and_body() -> None:
    out = rendered(
        '{{< accordion kicker="2022 Government UX Summit" title="Evaluation Considerations" '
        'icon="" >}}\nThe reviewers weigh *fit*.\n{{< /accordion >}}'
    )
    assert out.text == (
        "2022 Government UX Summit\nEvaluation Considerations\n\nThe reviewers weigh fit."
    )


def test_a_prompt_card_shows_its_intro_prompt_and_button_around_a_quoted_list() -> None:
    out = rendered(
        '{{< card-prompt intro="**In your words, help us complete this sentence.** There are '
        'no wrong answers." button-text="Submit your answers" '
        'button-url="https://github.com/GSA/digitalgov.gov/issues/2415">}}\n\n'
        "> 1. To build trust, we need to ______.\n>    {{< /card-prompt >}}\n\nAfter.\n\n"
        '{{< card-prompt intro="Never shown without a prompt" button-text="Go" >}}'
    )
    assert out.text == (
        "In your words, help us complete this sentence. There are no wrong answers.\n\n"
        "To build trust, we need to ______.\n\nSubmit your answers\n\nAfter."
    )
    assert links(out) == [
        ("Submit your answers", "https://github.com/GSA/digitalgov.gov/issues/2415")
    ]


def test_a_featured_resource_shows_only_what_the_archive_knows() -> None:
    # Of a page of the site, the title and summary come from that page: only the kicker is
    # known. Of an external link, everything is in the arguments.
    out = rendered(
        '{{< featured-resource link="resources/introduction-to-translation-technology/" '
        'kicker="Learn more">}}\n\n{{< featured-resource link="resources/x/" >}}\n\n'
        '{{< featured-resource link="https://www.ai.gov" title="Check out ai.gov" '
        'summary="The reference for AI." >}}'
    )
    assert out.text == (
        "Learn more\n\nFeatured Resource\n\nCheck out ai.gov\n\nThe reference for AI."
    )
    assert [url for _, url in links(out)] == [
        "resources/introduction-to-translation-technology/",
        "https://www.ai.gov",
    ]


# --------------------------------------------------------------------------- nothing to show


def test_embeds_and_unknown_single_shortcodes_show_nothing() -> None:
    out = rendered(
        'A {{< youtube id="4xwC2q8G4J8" title="Supporting inclusive language" >}} '
        '{{< tweet user="Digital_Gov" id="601116228015542273" >}} {{< cspan-iframe src="s" '
        'title="Hearing" >}} {{< fb-video "https://facebook.com/v" >}} {{< img-right '
        'src="b" >}} {{< unknown-kind text="not shown" >}} {{< ref "x.md" >}} {{< tmp "x" >}} '
        "B\n\n{{< box >}}\n\n{{< /note >}}C"
    )
    assert out.text == "A B\n\nC"


def test_nested_shortcodes_and_the_pages_reference_definitions() -> None:
    out = rendered(
        '{{< ring title="Related guide">}}\n{{< note variant="comment" >}}\nSee [the law]'
        '({{< link "resources/idea.md" >}}) and [the report][r].\n{{< /note >}}\n{{< /ring >}}'
        "\n\n{{< box >}}a {{< box >}}b{{< /box >}} c{{< /box >}}\n\n[r]: https://r.gov/report"
    )
    assert out.text == "Related guide\n\nComment\n\nSee the law and the report.\n\na\n\nb\n\nc"
    assert links(out) == [("the law", "resources/idea.md"), ("the report", "https://r.gov/report")]


def test_in_code_a_shortcode_is_its_plain_text() -> None:
    out = rendered(
        'Use `{{< asset-static file="a.pdf" label="the label" >}}` here.\n\n'
        '```\nwget {{< legacy-file "2014/07/a.pdf" >}}\n```'
    )
    assert out.text == f"Use the label here.\n\nwget {CDN}/_legacy-img/2014/07/a.pdf"


def test_private_use_characters_in_the_source_cannot_pose_as_shortcodes() -> None:
    assert rendered(f"a{placeholder(0)}b {{{{< note >}}}}x{{{{< /note >}}}}").text == (
        "ab\n\nNote\n\nx"
    )


# --------------------------------------------------------------------------- tags read


def test_tags_are_read_as_hugo_reads_them() -> None:
    tag = read_tag(' tmp"events/x.md" ')
    assert tag is not None and tag.shortcode.name == "tmp"
    assert tag.shortcode.arg(0) == "events/x.md" and tag.shortcode.get("variant") == ""
    tag = read_tag(' quote-block text="say \\"hi\\"" cite=`raw "x"` bg=dark ')
    assert tag is not None and tag.shortcode.named == {
        "text": 'say "hi"',
        "cite": 'raw "x"',
        "bg": "dark",
    }
    closing = read_tag(" /note ")
    assert closing is not None and closing.closing and closing.shortcode.name == "note"
    alone = read_tag(' img src="a" /')
    assert alone is not None and alone.self_closing and alone.shortcode.get("src") == "a"
    assert read_tag("/* note */") is None


def test_pairs_become_one_placeholder_with_their_raw_inner_text() -> None:
    prepared = prepare("A {{< note >}}\n*x* {{< box >}}y{{< /box >}}\n{{< /note >}} B")
    assert prepared.text == f"A {placeholder(0)} B"
    [note] = prepared.shortcodes
    assert note.name == "note" and note.inner == "\n*x* {{< box >}}y{{< /box >}}\n"


# --------------------------------------------------------------------------- links and HTML


def test_reference_links_keep_their_text_and_their_definitions_vanish() -> None:
    out = rendered(
        "Read [the report][r1], [Data.gov][] and [Search].\n\n"
        '[r1]: https://r.gov/report.pdf\n  "The report"\n'
        "[data.gov]: <https://data.gov/>\n"
        "[search]: https://search.gov 'Search'\n\nEnd."
    )
    assert out.text == "Read the report, Data.gov and Search.\n\nEnd."
    assert links(out) == [
        ("the report", "https://r.gov/report.pdf"),
        ("Data.gov", "https://data.gov/"),
        ("Search", "https://search.gov"),
    ]


def test_inline_html_keeps_its_visible_text_only() -> None:
    out = rendered(
        'The <abbr title="General Services Administration">GSA</abbr> team, '
        '<span style="color: #222">really</span> <strong>fast</strong>,<br>next '
        '<a href="https://x.gov/" target="_blank">line</a>.'
    )
    assert out.text == "The GSA team, really fast,\nnext line."
    assert links(out) == [("line", "https://x.gov/")]
