"""Assertion in context: the source holds the words; does it assert them there?
(trust/assertion.py, docs/grounding.md "Assertion in context")."""

from __future__ import annotations

import pytest

from evidence_desk.trust.assertion import unasserted
from evidence_desk.trust.claims import DraftClaim, split_claims
from evidence_desk.trust.grounding import Carrier, ground
from evidence_desk.trust.text import StoredText
from evidence_desk.trust.units import Metadata


def sentence(draft: str) -> DraftClaim:
    (claim,) = split_claims(draft)
    return claim


def finding(text: str, words: str, claim: str = "", dated: bool = False) -> str | None:
    """`unasserted` for the (first) occurrence of `words` in `text`, the whole text as region."""
    a = text.index(words)
    return unasserted(text, (0, len(text)), (a, a + len(words)), sentence(claim or words), dated)


ASSERTED = [
    # (source text, carried words, the sentence that carries them)
    ("We will cut taxes this year. The budget is balanced.", "We will cut taxes", ""),
    # a question the sentence asks too
    ("Can we cut taxes this year?", "cut taxes this year", "Can we cut taxes this year?"),
    # a reported-view cue after the words is no cue against them
    ("We will cut taxes, whatever some say about it.", "We will cut taxes", ""),
    # the sentence before reports a view but says something of its own
    ("Some say we cannot afford it. We will cut taxes.", "We will cut taxes", ""),
    # the next sentence is not a short refutation...
    ("We will cut taxes. That is what the people want.", "We will cut taxes", ""),
    # ...its cue word belongs to a clause of its own ("wrong to wait")
    ("We will cut taxes. It is wrong to wait.", "We will cut taxes", ""),
    # ...or it is long, or it does not point back
    (
        "We will cut taxes. That would be wrong only if the deficit grew beyond every "
        "estimate the Treasury has made in the last ten years of careful work.",
        "We will cut taxes",
        "",
    ),
    ("We will cut taxes. Critics are wrong.", "We will cut taxes", ""),
    # a `Facts` line is the article's own, whatever label sits above
    ("Myth #1\nFact: the form takes ten minutes.", "the form takes ten minutes", ""),
    # a heading that is not a label stops the search upward
    ("Myths\n\nHow to apply\n\nThe form takes ten minutes.", "The form takes ten minutes", ""),
    # a quotation the source speaks in its own voice
    ('We say to them: "we will cut taxes."', "we will cut taxes", ""),
    # a quotation the sentence says is quoted, or whose speaker it names
    ('Lincoln wrote, "the Union is perpetual."', "the Union is perpetual", "He quoted it."),
    (
        'Lincoln wrote, "the Union is perpetual."',
        "the Union is perpetual",
        "Lincoln wrote that the Union is perpetual",
    ),
    ('Lincoln wrote, "the Union is perpetual."', "the Union is perpetual", "He used the words"),
    # another time, but the sentence does not date its content by the source's date
    ("Last year, taxes rose.", "taxes rose", ""),
    # a sentence that is the whole region (no sentence before it)
    ("Taxes rose", "Taxes rose", ""),
]


@pytest.mark.parametrize(("text", "words", "claim"), ASSERTED)
def test_what_the_source_asserts(text: str, words: str, claim: str) -> None:
    assert finding(text, words, claim) is None


UNASSERTED = [
    ("Can we cut taxes this year?", "we cut taxes this year", "", "question"),
    (
        "There are those who say that we cannot win this war.",
        "we cannot win this war",
        "",
        "reports",
    ),
    ("Critics argue that the plan will fail.", "the plan will fail", "", "reports"),
    ("We are told that the deficit is growing.", "the deficit is growing", "", "reports"),
    ("It is often said that the budget is balanced.", "the budget is balanced", "", "reports"),
    ("A common misconception is that the form is long.", "the form is long", "", "reports"),
    ("Here is a common myth. The form takes an hour.", "The form takes an hour", "", "reports"),
    ("Some say this:\nthe form takes an hour.", "the form takes an hour", "", "reports"),
    (
        "Law and order are code words for repression. That is dangerous nonsense.",
        "Law and order are code words",
        "",
        "refutes",
    ),
    (
        "The war is lost. Nothing could be further from the truth.",
        "The war is lost",
        "",
        "refutes",
    ),
    ("The war is lost. That is not true", "The war is lost", "", "refutes"),
    ("Myth #2. The form takes an hour.", "The form takes an hour", "", "label"),
    ("DON'T: share your password with anyone.", "share your password", "", "label"),
    ("DON'T\n\n- share your password\n- reuse a password", "reuse a password", "", "label"),
    (
        "If we fail to act now, in the years that follow the whole of the world will pay.",
        "the whole of the world will pay",
        "",
        "condition",
    ),
    ("Should we falter, the nation will fall.", "the nation will fall", "", "condition"),
    (
        'Bin Laden declared, "America is weak and will run."',
        "America is weak and will run",
        "Bush said America is weak and will run",
        "quotes",
    ),
    ("Last year, taxes rose.", "taxes rose", "In 1941, taxes rose", "another time"),
    ("Two years ago we cut taxes.", "we cut taxes", "In 1941, we cut taxes", "another time"),
]


@pytest.mark.parametrize(("text", "words", "claim", "reason"), UNASSERTED)
def test_what_the_source_holds_without_asserting(
    text: str, words: str, claim: str, reason: str
) -> None:
    problem = finding(text, words, claim, dated=reason == "another time")
    assert problem is not None
    assert reason in problem.format(sid="S1")


def test_a_time_the_carried_words_hold_is_the_reader_s_to_see() -> None:
    text = "Last year, taxes rose."
    assert finding(text, "Last year, taxes rose", 'In 1941: "Last year, taxes rose."', True) is None
    assert finding(text, "taxes rose", "In 1941, taxes rose", True) is not None


def test_context_is_read_only_inside_the_region() -> None:
    text = "Some say this:\nthe form takes an hour. That is false."
    a = text.index("the form")
    b = a + len("the form takes an hour")
    assert unasserted(text, (0, len(text)), (a, b), sentence("the form takes an hour")) is not None
    # the setup before the region and the refutation after it are not read
    assert unasserted(text, (a, b + 1), (a, b), sentence("the form takes an hour")) is None


def test_a_sentence_without_an_end_mark_runs_to_the_region_end() -> None:
    text = "Critics argue that the plan will fail"
    assert finding(text, "the plan will fail") is not None


def test_the_sentence_before_may_be_missing() -> None:
    text = "\n\nThe form takes an hour."
    a = text.index("The")
    claim = sentence("The form takes an hour")
    assert unasserted(text, (2, len(text)), (a, len(text) - 1), claim) is None


def test_a_refutation_must_be_the_next_sentence_inside_the_region() -> None:
    text = "The war is lost.   "
    assert finding(text, "The war is lost") is None


def test_a_label_line_farther_up_counts_until_a_heading() -> None:
    text = "Myth #3\nMost people think so.\nThe form takes an hour."
    assert finding(text, "The form takes an hour") is not None


def test_a_quotation_elsewhere_on_the_line_does_not_count() -> None:
    text = 'He wrote "the Union is perpetual" and we will cut taxes.'
    assert finding(text, "we will cut taxes") is None


def test_a_quotation_without_a_named_speaker_is_still_another_voice() -> None:
    text = '"the Union is perpetual"'
    assert finding(text, "the Union is perpetual", "the Union is perpetual") is not None


def test_a_name_inside_the_sentence_s_own_quote_names_no_speaker() -> None:
    text = 'A State could host "Federal Business Opportunities for the Lone Star State."'
    words = "Federal Business Opportunities for the Lone Star State"
    assert finding(text, words, f'The article notes that "{words}."') is not None


# Through `ground`: a window's context is its neighbouring passages, in document order.
PASSAGES = ["Some say this:", "the form takes an hour.", "That is how it works."]


def _carrier(ids: list[str], gap: str = " ") -> Carrier:
    text, spans = "", []
    for pid, passage in zip(ids, PASSAGES, strict=True):
        if text:
            text += gap
        spans.append((pid, len(text), len(text) + len(passage)))
        text += passage
    return Carrier("S1", StoredText(text), spans, Metadata(title="A post"))


def _grounded(carrier: Carrier, draft: str = "The form takes an hour [S1].") -> bool:
    (claim,) = split_claims(draft)
    return ground(claim, [carrier]).grounded


def test_a_neighbouring_passage_is_read_as_context() -> None:
    assert not _grounded(_carrier(["d#0", "d#1", "d#2"]))


def test_passages_that_do_not_follow_each_other_are_not_context() -> None:
    assert _grounded(_carrier(["d#0", "d#5", "d#6"]))  # not consecutive ordinals
    assert _grounded(_carrier(["x", "d#1", "d#2"]))  # an id without an ordinal
    assert _grounded(_carrier(["d#0", "d#1", "d#2"], gap=" ... "))  # text between them


def test_the_sentence_after_is_read_in_the_next_passage() -> None:
    text = "The war is lost. That is false."
    carrier = Carrier(
        "S1", StoredText(text), [("d#0", 0, 16), ("d#1", 17, len(text))], Metadata(title="x")
    )
    assert not _grounded(carrier, "The war is lost [S1].")
