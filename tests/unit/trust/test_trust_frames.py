"""Frames that assert nothing: discourse words, reporting verbs, offices, addressees and
attribution phrases set aside only in the shape of an attribution (docs/grounding.md)."""

from __future__ import annotations

import pytest

from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.grounding import Carrier, ground
from evidence_desk.trust.text import StoredText
from evidence_desk.trust.units import Metadata, read_units

TEXT = (
    "We must, as a nation, invest in schools. Our resources and added to our strength grew. "
    "The first is freedom of speech and expression "
    "everywhere in the world. We will not raise taxes. We plan to cut taxes this year. "
    "We must expand the navy. Congress passed the act to build ships."
)
ADDRESS = Metadata(
    title="Franklin D. Roosevelt — Annual Message to Congress, 1941",
    date="1941-01-06",
    names=("Franklin D. Roosevelt",),
    offices=("President",),
    addressees=("Congress",),
)
BLOG = Metadata(title="A post", date="1941-01-06", names=("Franklin D. Roosevelt",))


def grounded(draft: str, metadata: Metadata = ADDRESS) -> bool:
    (claim,) = split_claims(draft)
    carrier = Carrier("S1", StoredText(TEXT), [("d#0", 0, len(TEXT))], metadata)
    return ground(claim, [carrier]).grounded


def units(draft: str, metadata: Metadata = ADDRESS) -> list[str | int | None]:
    (claim,) = split_claims(draft)
    return [u.word or u.quote for u in read_units(claim, metadata).units]


# (widening, a sentence it now grounds, a sentence that is still held)
WIDENINGS = [
    (
        "discourse word before the verb",
        'It also said: "We must, as a nation, invest in schools" [S1].',
        "He also vetoed the act to build ships [S1].",  # no attribution verb: `also` is a word
    ),
    (
        "discourse word, but a word outside the passage",
        "It also said we must expand the navy [S1].",
        "It also said we must expand the schools [S1].",
    ),
    (
        "discourse phrase opening the sentence",
        "Later in the same speech, he said we will not raise taxes [S1].",
        "Later in the same speech, taxes rose [S1].",
    ),
    (
        "discourse words after the verb, before `that`",
        "He said in the same address that we will not raise taxes [S1].",
        "Roosevelt said further taxes will not rise [S1].",  # `further` is the content's
    ),
    (
        "discourse word after a speaker mid-sentence",
        "We must expand the navy, he also said [S1].",
        "We must expand the navy too, he said [S1].",  # `too` before the speaker
    ),
    (
        "went on to",
        "He went on to say that we will not raise taxes [S1].",
        "Roosevelt said that too we must expand the navy [S1].",
    ),
    (
        "discourse word between two quotes, with a verb",
        '"We will not raise taxes," he said, and later "We must expand the navy" [S1].',
        '"We will not raise taxes" and also "We must expand the navy" [S1].',
    ),
    (
        "reporting verb before `that`",
        "Roosevelt argued that we must, as a nation, invest in schools [S1].",
        "Roosevelt argued we must, as a nation, invest in schools [S1].",
    ),
    (
        "reporting verb in another form",
        "Roosevelt emphasizes that we must expand the navy [S1].",
        "Roosevelt acknowledged that we must expand the navy [S1].",  # a concession: refused
    ),
    (
        "reporting verb at the end of its run, beside a speaker",
        '"We will not raise taxes," the President warned [S1].',
        "Roosevelt said we must maintain the navy [S1].",  # `maintain` states a deed here
    ),
    (
        "reporting verb that also states deeds",
        "Roosevelt declared that we must expand the navy [S1].",
        "Roosevelt declared the act to build ships [S1].",
    ),
    (
        "reporting verb after a discourse word",
        'He continued, saying "We will not raise taxes" [S1].',
        '"We will not raise taxes," he continued [S1].',  # `continued` is no verb
    ),
    (
        "a noun is not a reporting verb",
        "The President's address said that we will not raise taxes [S1].",
        "In the report, Roosevelt vetoed the act to build ships [S1].",
    ),
    (
        "attribution phrase: in his words",
        'In his own words, "We will not raise taxes" [S1].',
        "In his words the navy sank [S1].",
    ),
    (
        "attribution phrase: as he put it",
        'As he put it, "We will not raise taxes" [S1].',
        "He put it on the ships [S1].",
    ),
    (
        "office as the speaker",
        "The President told Congress that we must, as a nation, invest in schools [S1].",
        "The President opposed the act to build ships [S1].",
    ),
    (
        "office after a prepositional frame",
        "According to the President, we will not raise taxes [S1].",
        "He said the President will not raise taxes [S1].",  # the President is the content's
    ),
    (
        "office in `in the words of`",
        "In the words of the President, we will not raise taxes [S1].",
        "In the words of the President, the navy sank [S1].",
    ),
    (
        "office inverted at the end",
        '"We will not raise taxes," said the President [S1].',
        '"We will not raise taxes," the President vetoed [S1].',
    ),
    (
        "office with a discourse word",
        "Then the President said we will not raise taxes [S1].",
        "Then the President vetoed the act to build ships [S1].",
    ),
    (
        "addressee after the verb, before `that`",
        "He said to Congress that we will not raise taxes [S1].",
        "Roosevelt asked Congress to cut taxes this year [S1].",  # not `that`: a request
    ),
    (
        "addressee after a source noun's `to`",
        "In his message to Congress, Roosevelt said we will not raise taxes [S1].",
        "According to Congress, we will not raise taxes [S1].",  # Congress is no speaker
    ),
    (
        "addressee at the end",
        '"We will not raise taxes," Roosevelt told Congress [S1].',
        "Roosevelt told Congress to cut taxes this year [S1].",
    ),
    (
        "attribution phrase: used the phrase",
        'Roosevelt used the phrase "freedom of speech and expression" [S1].',
        "Roosevelt used the phrase freedom of worship [S1].",
    ),
    (
        "reporting phrase: went on",
        'He went on: "We will not raise taxes" [S1].',
        "The navy went on to build ships [S1].",
    ),
    (
        "discourse phrase after a speaker",
        'Roosevelt, for his part, said: "We will not raise taxes" [S1].',
        "For his part, the navy sank [S1].",
    ),
    (
        "possessive in a frame",
        "In its message, the address said we will not raise taxes [S1].",
        "In its message, the navy sank [S1].",
    ),
]


@pytest.mark.parametrize(("why", "passes", "held"), WIDENINGS, ids=[w[0] for w in WIDENINGS])
def test_each_widening_grounds_an_honest_frame_and_holds_a_stretch(
    why: str, passes: str, held: str
) -> None:
    assert grounded(passes), (why, units(passes))
    assert not grounded(held), (why, units(held))


@pytest.mark.parametrize(
    "draft",
    [
        "The President said that we will not raise taxes [S1].",
        "Roosevelt told Congress that we will not raise taxes [S1].",
        '"We will not raise taxes," said the President [S1].',
    ],
)
def test_offices_and_addressees_come_from_the_carrying_sources_metadata(draft: str) -> None:
    assert grounded(draft)
    assert not grounded(draft, BLOG)


def test_reporting_verbs_are_words_outside_the_shape_of_a_frame() -> None:
    assert units("We must maintain the navy [S1].") == ["we", "must", "maintain", "navy"]
    assert units("The navy, we must maintain [S1].") == ["navy", "we", "must", "maintain"]
    assert units("Roosevelt warned that we must expand the navy [S1].") == [
        "we",
        "must",
        "expand",
        "navy",
    ]


def test_discourse_words_between_quotes_need_a_verb() -> None:
    assert units('"We will not raise taxes" and "We must expand the navy" [S1].') == [0, 1]
    assert units('"We will not raise taxes" and then "We must expand the navy" [S1].') == [
        0,
        "and",
        "then",
        1,
    ]
    assert units('"We will not raise taxes," he said again, "We must expand the navy" [S1].') == [
        0,
        1,
    ]


def test_a_pronoun_after_the_verb_and_an_empty_office_stay_words() -> None:
    assert units("Roosevelt said that they will not raise taxes [S1].")[0] == "they"
    assert Metadata(offices=("—",), addressees=("",)).phrases == ()
    # an office or addressee after `that` is the content's, not the frame's
    assert units("He said that the President will not raise taxes [S1].")[0] == "president"
    assert units("Roosevelt said that Congress will not raise taxes [S1].")[0] == "congress"
    assert units("Congress, he said, will not raise taxes [S1].")[0] == "congress"


def test_a_gap_may_skip_the_words_the_sentence_sets_aside_there() -> None:
    # `and added to` is a frame of the sentence's own, and the passage has it too
    assert grounded("Roosevelt said our resources and added to our strength grew [S1].")
    assert not grounded("Roosevelt said our resources our strength grew [S1].")


@pytest.mark.parametrize(
    ("draft", "first"),
    [
        ('On taxes, Roosevelt said: "We will not raise taxes" [S1].', 0),  # the topic is free
        ('On schools, Roosevelt said: "We will not raise taxes" [S1].', "on"),  # not quoted
        ('On the, Roosevelt said: "We will not raise taxes" [S1].', 0),  # frame words alone
        ('On taxes and the navy and schools, he said: "We will not raise taxes" [S1].', "on"),
        ("On taxes we will not raise [S1].", "on"),  # no comma
        ("On [S1].", "on"),
    ],
)
def test_a_topic_lead_is_free_only_when_the_quotes_hold_it(draft: str, first: object) -> None:
    assert units(draft)[0] == first
