"""The answer as a whole: sentences that lean on another sentence (trust/answer.py), and the
gate pruning a sentence together with those that lean on it (docs/grounding.md)."""

from __future__ import annotations

import pytest

from evidence_desk.trust.checks import CheckedClaim, EvidenceSource, check_draft
from evidence_desk.trust.gate import decide_claims, effective_verdict, standing
from evidence_desk.types import Claim, ClaimChecks, Decision, GatePolicy, Verdict

S1_TEXT = (
    "Taxes rose in the spring of that year. As a result, the deficit fell by half. This left "
    "the Treasury with room to spare. It is our purpose and our pledge. We will cut taxes "
    "again next year. But only if the budget is balanced"
)
S2_TEXT = "The navy grew larger than ever before in our history."


def _source(sid: str, text: str) -> EvidenceSource:
    return EvidenceSource(sid, f"d{sid}", text, ((f"d{sid}#0", 0, len(text)),), title="A post")


SOURCES = {"S1": _source("S1", S1_TEXT), "S2": _source("S2", S2_TEXT)}


def checked(draft: str) -> list[CheckedClaim]:
    return check_draft(draft, SOURCES)


def leaning(draft: str) -> list[tuple[tuple[int, ...], bool]]:
    """Each claim's `leans_on` and whether it passed every check."""
    return [(c.checks.leans_on, c.checks.passed) for c in checked(draft)]


RISE = "Taxes rose in the spring of that year [S1]."
RESULT = "As a result, the deficit fell by half [S1]."
THIS = "This left the Treasury with room to spare [S1]."
NAVY = "The navy grew larger than ever before [S2]."
CUT = "We will cut taxes again next year [S1]."
LIMIT = "But only if the budget is balanced [S1]."

CASES = [
    # a connective after the sentence its source says it follows
    (f"{RISE} {RESULT}", [((), True), ((1,), True)]),
    # ...after a sentence of another source, or of a later place in the same one
    (f"{NAVY} {RESULT}", [((), True), ((1,), False)]),
    (f"{THIS} {RESULT}", [((), True), ((1,), False)]),
    # ...after a sentence that is not grounded (it falls with it at the gate)
    (f"Taxes fell [S1]. {RESULT}", [((), False), ((1,), False)]),
    # ...as the first sentence it leans on nothing
    (RESULT, [((), True)]),
    # words opening with a pointing word: right after what they point to, or held
    (f"{RESULT} {THIS}", [((), True), ((1,), True)]),
    (f"{RISE} {THIS}", [((), True), ((1,), False)]),
    # a quote that opens with one is read as a quote
    (f'{NAVY} "It is our purpose and our pledge" [S1].', [((), True), ((), True)]),
    # a pronoun frame: the speaker of the sentence before
    (f"{RISE} It added that the deficit fell by half [S1].", [((), True), ((1,), True)]),
    (f"{NAVY} It added that the deficit fell by half [S1].", [((), True), ((1,), False)]),
    # a limit in the source's next sentence: carried next, or the sentence is held
    (f"{CUT} {LIMIT}", [((2,), True), ((), True)]),
    (CUT, [((), False)]),
    (f"{CUT} {NAVY}", [((), False), ((), True)]),
    (f"{CUT} {RISE}", [((), False), ((), True)]),
    # a bare yes or no: every later sentence leans on it
    (f"Yes. {RISE} {NAVY}", [((), False), ((1,), True), ((1,), True)]),
    ("No, it did not. " + RISE, [((), False), ((1,), True)]),
    (f"Yes: taxes rose in the spring of that year [S1]. {NAVY}", [((), False), ((1,), True)]),
]


@pytest.mark.parametrize(("draft", "expected"), CASES)
def test_what_a_sentence_leans_on(draft: str, expected: list[tuple[tuple[int, ...], bool]]) -> None:
    assert leaning(draft) == expected


def test_a_lean_the_answer_does_not_satisfy_says_why() -> None:
    problems = [c.checks.grounding for c in checked(f"{NAVY} {RESULT} {CUT}")]
    assert "ties it to the sentence before" in problems[1][-1]
    assert "limits these words (“But only if”)" in problems[2][-1]
    (pronoun,) = checked(f"{NAVY} He said the deficit fell by half [S1].")[1].checks.grounding
    assert "reads as the speaker of the sentence before" in pronoun


def test_overlapping_sentences_of_one_passage_lean_on_each_other() -> None:
    first = 'It said: "Taxes rose in the spring of that year. As a result, the deficit fell" [S1].'
    assert leaning(f"{first} {RESULT}") == [((), True), ((1,), True)]


def test_a_long_sentence_after_is_no_limit() -> None:
    text = (
        "We will cut taxes again next year. Not until the war is won can we rest from the "
        "labor of these long years."
    )
    (only,) = check_draft(CUT, {"S1": _source("S1", text)})
    assert only.checks.passed


def test_a_sentence_at_the_end_of_its_source_has_no_next_sentence() -> None:
    src = {"S1": _source("S1", "We will cut taxes again next year")}
    (only,) = check_draft(CUT, src)
    assert only.checks.passed and only.checks.leans_on == ()


def _claim(leans_on: tuple[int, ...] = (), grounded: bool = True) -> Claim:
    checks = ClaimChecks(
        has_citation=True,
        citations_exist=True,
        quotes_verbatim=True,
        numbers_dates=grounded,
        leans_on=leans_on,
    )
    verdict = effective_verdict(Verdict.SUPPORTED, checks)
    return Claim(
        text="A [S1].", citations=("S1",), checks=checks, verdict=verdict, auditor_verdict=verdict
    )


def test_a_sentence_stands_only_with_what_it_leans_on() -> None:
    claims = [_claim(), _claim((3,)), _claim(grounded=False), _claim((2,)), _claim((1,))]
    assert standing(claims) == (True, False, False, False, True)
    # a number outside the answer, or its own, never stands
    assert standing([_claim((0,)), _claim((9,)), _claim((3,))]) == (False, False, False)


def test_the_gate_prunes_a_sentence_with_the_sentences_that_lean_on_it() -> None:
    claims = [_claim(), _claim(), _claim(), _claim(grounded=False), _claim((4,))]
    outcome = decide_claims(claims, None, GatePolicy(coverage_floor=0.4, max_pruned_fraction=0.5))
    assert outcome.decision == Decision.PUBLISHED_AFTER_PRUNING
    assert outcome.kept == (True, True, True, False, False)


def _dated(sid: str, text: str, date: str | None) -> EvidenceSource:
    return EvidenceSource(
        sid, f"d{sid}", text, ((f"d{sid}#0", 0, len(text)),), date=date, names=(f"Speaker{sid}",)
    )


@pytest.mark.parametrize(
    ("lead", "second", "grounded"),
    [
        ("Decades later", "1963-01-14", True),
        ("Decades later", "1950-01-14", False),  # nine years are not decades
        ("Years later", "1950-01-14", True),
        ("A century later", "2041-01-06", True),
        ("A century later", "1963-01-14", False),
        ("Decades later", None, False),  # an undated source is dated no time after
        ("22 years later", "1963-01-14", True),  # the difference of the years
        ("21 years later", "1963-01-14", True),  # or one less: the dates, not the years
        ("20 years later", "1963-01-14", False),
        ("23 years later", "1963-01-14", False),
        ("22 years later", None, False),
    ],
)
def test_a_time_from_the_sentence_before_needs_the_sources_dated_so(
    lead: str, second: str | None, grounded: bool
) -> None:
    sources = {
        "S1": _dated("S1", S2_TEXT, "1941-01-06"),
        "S2": _dated("S2", "We will cut taxes again next year.", second),
    }
    draft = (
        f'SpeakerS1 said: "The navy grew larger than ever before in our history." [S1] '
        f'{lead}, SpeakerS2 said: "We will cut taxes again next year." [S2]'
    )
    first, later = check_draft(draft, sources)
    assert first.checks.passed
    assert later.checks.leans_on == (1,)
    assert later.checks.passed == grounded, later.checks.grounding
    if not grounded:
        assert "not dated that long after" in later.checks.grounding[-1]
    # a number of years is a figure no passage holds: once the dates bear it out, it is the
    # answer's own arithmetic
    number = lead.split()[0]
    if number.isdigit():
        assert later.checks.numbers_dates == grounded
        assert later.checks.unmatched_numbers == (() if grounded else (number,))


def test_a_number_of_years_is_checked_only_against_a_sentence_before() -> None:
    sources = {
        "S1": _dated("S1", S2_TEXT, "1941-01-06"),
        "S2": _dated("S2", "We will cut taxes again next year.", "1963-01-14"),
    }
    said = 'SpeakerS2 said: "We will cut taxes again next year." [S2]'
    [first] = check_draft(f"22 years later, {said}", sources)
    assert not first.checks.passed and first.checks.unmatched_numbers == ("22",)
    # the same number as a figure of the sentence too is not the answer's arithmetic alone
    before = 'SpeakerS1 said: "The navy grew larger than ever before in our history." [S1]'
    again = '"We will cut taxes again next year." [S2]'
    draft = f"{before} 22 years later, SpeakerS2 said 22 times: {again}"
    _, twice = check_draft(draft, sources)
    assert "22" in twice.checks.unmatched_numbers
