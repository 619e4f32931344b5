"""Noun phrases, and the one that says what a side of a comparison speaks of and the other
does not (`agents/offline/phrases.py`)."""

from __future__ import annotations

import pytest

from evidence_desk.agents.offline.phrases import distinct_phrase, noun_phrases

KENNEDY = (
    "But I am convinced that the enactment this year of tax reduction and tax reform "
    "overshadows all other domestic problems in this Congress"
)
REAGAN = (
    "Last year I asked Treasury Secretary-then-Regan to develop a plan to simplify the tax "
    "code, so all taxpayers would be treated more fairly and personal tax rates could come "
    "further down"
)


def phrases(text: str) -> list[str]:
    return [text[a:b] for a, b in noun_phrases(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (KENNEDY, ["the enactment", "tax reduction and tax reform", "domestic problems"]),
        ("to remove unwarranted tax preferences, and", ["unwarranted tax preferences"]),
        ("to foster the development of atomic energy", ["the development of atomic energy"]),
        ("the Soviets beat us into space", ["the Soviets", "space"]),  # a verb ends it
        ("so that the taxes rise", ["the taxes"]),
        ("the tax code and", ["the tax code"]),  # `and` joins only two nominal words
        ("tax—freedom from want", ["tax", "freedom", "want"]),  # a dash is no joiner
    ],
)
def test_noun_phrases(text: str, expected: list[str]) -> None:
    found = phrases(text)
    assert [p for p in found if p in expected] == expected, found


def test_a_noun_of_time_opens_no_phrase() -> None:
    assert "tax reduction and tax reform" in phrases(KENNEDY)
    assert not any(p.startswith(("year", "this year")) for p in phrases(KENNEDY))


def test_the_distinct_phrase_holds_a_term_and_a_word_the_other_side_lacks() -> None:
    assert distinct_phrase([KENNEDY], ["taxes"], [REAGAN]) == "tax reduction and tax reform"
    assert distinct_phrase([REAGAN], ["taxes"], [KENNEDY]) == "the tax code"
    # every word of it the other side's too: the next phrase that differs
    assert distinct_phrase([REAGAN], ["taxes"], ["the tax code"]) == "personal tax rates"
    # no phrase holds a term of the question
    assert distinct_phrase([KENNEDY], ["navy"], [REAGAN]) is None
    # a phrase of two words is too short to quote
    assert distinct_phrase(["we must pay the tax"], ["taxes"], []) is None
    assert distinct_phrase([KENNEDY], ["taxes"], []) == "tax reduction and tax reform"
