"""Gathering: one sentence joins the items of a list its passage spreads over consecutive
sentences or lines (docs/grounding.md, "Gathering")."""

from __future__ import annotations

import pytest

from evidence_desk.trust.checks import EvidenceSource, check_claim
from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.grounding import Window, WindowWords
from evidence_desk.trust.units import Metadata, Unit, as_list, read_units

SPEECH = (
    "In the future days, which we seek to make secure, we look forward to a world founded "
    "upon four essential human freedoms. The first is freedom of speech and expression—"
    "everywhere in the world. The second is freedom of every person to worship God in his "
    "own way—everywhere in the world. The third is freedom from want. The fourth is freedom "
    "from fear."
)
LIST = (
    "This new version will do four things:\n\n"
    "- Signal the end of IE11 support.\n"
    "- Update to modern Sass Module Syntax.\n"
    "- Allow requiring JavaScript for some functionality.\n"
    "- Publish versioned component packages.\n\n"
    "We recommend three steps:\n"
    "1. Review the code\n"
    "2) Test the build\n"
    "3. Ship the release\n\n"
    "Our goals are simple. The first is open data, which nobody opposes. "
    "The second is plain language. Is the third a faster website? "
    "The fourth is better forms, some say. The fifth is shared services. "
    "Sixth, we must not forget privacy. The seventh is trust in 2026. "
    "Agencies should add alt text. Then check contrast. Finally, test with users."
)


def source(text: str) -> EvidenceSource:
    return EvidenceSource(
        "S1",
        "d",
        text,
        (("d#0", 0, len(text)),),
        title="Remarks",
        date="1941-01-06",
        names=("Franklin D. Roosevelt",),
    )


def grounding(draft: str, text: str) -> tuple[str, ...]:
    (claim,) = split_claims(draft)
    checks, _ = check_claim(claim, {"S1": source(text)})
    return checks.grounding


GATHERED = [
    (
        "Roosevelt said that we look forward to a world founded upon four essential human "
        "freedoms: freedom of speech and expression, freedom of every person to worship God in "
        "his own way, freedom from want and freedom from fear [S1].",
        SPEECH,
    ),
    (
        "The article notes that this new version will do four things: signal the end of IE11 "
        "support, update to modern Sass Module Syntax, allow requiring JavaScript for some "
        "functionality and publish versioned component packages [S1].",
        LIST,
    ),
    ("We recommend three steps: review the code, test the build and ship the release [S1].", LIST),
    ("Agencies should add alt text, check contrast and test with users [S1].", LIST),
]


@pytest.mark.parametrize(("draft", "text"), GATHERED)
def test_a_list_over_consecutive_sentences_or_lines_is_gathered(draft: str, text: str) -> None:
    assert grounding(draft, text) == ()


# (draft, a source that carries it, the same source with what the list skips governing)
TWINS = [
    # the skipped end of an item's sentence holds a negation, or a number
    (
        "Our goals: open data and plain language [S1].",
        "Our goals: open data, for everyone. The second is plain language.",
        "Our goals: open data, which nobody opposes. The second is plain language.",
    ),
    (
        "Our goals: open data and plain language [S1].",
        "Our goals: open data, for everyone. The second is plain language.",
        "Our goals: open data in 2026. The second is plain language.",
    ),
    # the next item's sentence opens with more than list words, or asks it
    (
        "Our goals: open data and plain language [S1].",
        "Our goals: open data. And the second is plain language.",
        "Our goals: open data. We never wanted plain language.",
    ),
    (
        "Our goals: open data and plain language [S1].",
        "Our goals: open data. Is the second plain language.",
        "Our goals: open data. Is the second plain language?",
    ),
    # two breaks: the list would skip a whole sentence
    (
        "Our goals: open data and shared services [S1].",
        "Our goals: open data.\n- Shared services.\n- Plain language.",
        "Our goals: open data.\n- Plain language.\n- Shared services.",
    ),
    # a list `and` stands where the source has `and`, or where an item starts
    (
        "Freedom of speech and worship matter [S1].",
        "Freedom of speech and worship matter.",
        "Freedom of speech, worship matter.",
    ),
    # without a list joint in the sentence, two sentences are not run together
    (
        "The first is open data, plain language [S1].",
        "The first is open data. The second is plain language.",
        "The first is open data. The second is plain language.",
    ),
]


@pytest.mark.parametrize(("draft", "carries", "governs"), TWINS[:-1])
def test_what_a_list_skips_may_not_govern_an_item(draft: str, carries: str, governs: str) -> None:
    assert grounding(draft, carries) == ()
    assert grounding(draft, governs) != ()


# The 1941 address as the archive holds it: the third item's sentence goes on with a
# relative clause set off by a dash.
THIRD = (
    "The second is freedom of every person to worship God in his own way—everywhere in the "
    "world.\n\nThe third is freedom from want—which, translated into world terms, means "
    "economic understandings which will secure to every nation a healthy peacetime life for "
    "its inhabitants-everywhere in the world.\n\nThe fourth is freedom from fear."
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("which will secure", "which, however, will not secure"),  # it unsays the item
        ("a healthy", "but a healthy"),  # a contrast anywhere in it
        ("want—which", "want which"),  # not set off
        ("want—which, translated", "want—translated"),  # not a relative clause
    ],
)
def test_a_relative_clause_set_off_from_an_item_may_end_its_sentence(old: str, new: str) -> None:
    draft = "Freedom from want and freedom from fear [S1]."
    assert grounding(draft, THIRD) == ()
    assert grounding(draft, THIRD.replace(old, new)) != ()


def test_a_sentence_without_a_list_joint_is_not_gathered() -> None:
    draft, text, _ = TWINS[-1]
    assert grounding(draft, text) == ()  # the comma is a joint
    assert grounding(draft.replace(",", ""), text) != ()


def test_the_list_reading_sets_list_ands_aside() -> None:
    (claim,) = split_claims("Goals are data, language and services [S1].")
    units = read_units(claim, Metadata()).units
    listed = as_list(units)
    assert listed is not None
    assert [u.word for u in listed] == ["goal", "are", "data", "language", "service"]
    assert [u.joint for u in listed] == [False, False, False, True, True]
    assert [u.conjoined for u in listed] == [False, False, False, False, True]
    assert as_list((Unit(word="taxes"), Unit(word="rose"))) is None
    assert as_list((Unit(word="a"), Unit(word="and"), Unit(quote=0))) is None


def test_an_item_is_a_piece_of_its_own_unless_quotes_run_back() -> None:
    text = "Our goals: open data. The second is plain language."
    words = WindowWords.of(Window(0, len(text), ("d#0",)), text)
    assert [text[a:b] for a, b in words.pieces(2, 8, [(3, 7)])] == ["open data", "plain language"]
    # a quote after the list that the sentence may take from anywhere: one piece, all of it
    assert [text[a:b] for a, b in words.pieces(2, 1, [(3, 7)])] == [
        "goals: open data. The second is plain"
    ]


SPLIT_AT = SPEECH.index("The third")
FOUR = GATHERED[0][0]


def split_source(text: str, cut: int, *, second: str = "d#1", gap: str = "") -> EvidenceSource:
    """`text` stored as two passages, the second starting at `cut` (after `gap`)."""
    stored = text[:cut] + gap + text[cut:]
    return EvidenceSource(
        "S1",
        "d",
        stored,
        (("d#0", 0, cut), (second, cut + len(gap), len(stored))),
        title="Remarks",
        date="1941-01-06",
        names=("Franklin D. Roosevelt",),
    )


def test_a_list_may_run_on_into_the_next_passage() -> None:
    (claim,) = split_claims(FOUR)
    checks, _ = check_claim(claim, {"S1": split_source(SPEECH, SPLIT_AT)})
    assert checks.grounding == ()
    assert checks.carried_by == ("d#0", "d#1")


@pytest.mark.parametrize(
    ("second", "gap"),
    [("d#5", ""), ("d#1", "Applause. ")],
    ids=["not the next passage", "words between them"],
)
def test_a_list_runs_on_only_into_the_passage_next_to_it(second: str, gap: str) -> None:
    (claim,) = split_claims(FOUR)
    checks, _ = check_claim(claim, {"S1": split_source(SPEECH, SPLIT_AT, second=second, gap=gap)})
    assert checks.grounding


def test_what_opens_the_next_passage_may_not_govern_an_item() -> None:
    refuted = SPEECH[:SPLIT_AT] + "But I do not believe in this. " + SPEECH[SPLIT_AT:]
    (claim,) = split_claims(FOUR)
    checks, _ = check_claim(claim, {"S1": split_source(refuted, SPLIT_AT)})
    assert checks.grounding


def test_only_a_list_runs_on_into_the_next_passage() -> None:
    text = "We look forward to a world founded upon four essential human freedoms. "
    cut = text.index("founded")
    (claim,) = split_claims(
        "Roosevelt said that we look forward to a world founded upon four essential human "
        "freedoms [S1]."
    )
    assert check_claim(claim, {"S1": source(text)})[0].grounding == ()
    checks, _ = check_claim(claim, {"S1": split_source(text, cut)})
    assert checks.grounding
