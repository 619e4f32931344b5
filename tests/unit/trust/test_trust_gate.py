"""The gate: effective verdicts, the pruning policy and the four decisions."""

from __future__ import annotations

from typing import Any

import pytest

from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.gate import (
    PUBLISHING,
    decide,
    decide_claims,
    decide_from_receipt,
    effective_verdict,
    is_grounded,
    judge,
)
from evidence_desk.types import (
    Claim,
    ClaimAudit,
    ClaimChecks,
    Coverage,
    Decision,
    GatePolicy,
    Quote,
    Verdict,
)

PASS = ClaimChecks(
    has_citation=True, citations_exist=True, quotes_verbatim=True, numbers_dates=True
)
NO_CITATION = PASS.model_copy(update={"has_citation": False})
UNKNOWN = PASS.model_copy(update={"citations_exist": False, "unknown_citations": ("S9",)})
BAD_QUOTE = PASS.model_copy(update={"quotes_verbatim": False})
POLICY = GatePolicy(coverage_floor=0.4)
GOOD_QUOTE = Quote(text="q", source_id="S1", verbatim=True, start=0, end=1)
FAKE_QUOTE = Quote(text="x", source_id=None, verbatim=False)


def claim(
    text: str = "A [S1].",
    checks: ClaimChecks = PASS,
    verdict: Verdict = Verdict.SUPPORTED,
    quotes: tuple[Quote, ...] = (),
) -> Claim:
    return Claim(
        text=text,
        citations=("S1",),
        quotes=quotes,
        checks=checks,
        verdict=effective_verdict(verdict, checks),
        auditor_verdict=verdict,
    )


@pytest.mark.parametrize(
    ("auditor", "checks", "expected"),
    [
        (Verdict.SUPPORTED, PASS, Verdict.SUPPORTED),
        (Verdict.PARTIAL, PASS, Verdict.PARTIAL),
        (Verdict.SUPPORTED, NO_CITATION, Verdict.UNSUPPORTED),
        (Verdict.PARTIAL, BAD_QUOTE, Verdict.UNSUPPORTED),
        (Verdict.UNSUPPORTED, UNKNOWN, Verdict.UNSUPPORTED),
        (Verdict.CONTRADICTED, NO_CITATION, Verdict.CONTRADICTED),
    ],
)
def test_effective_verdict(auditor: Verdict, checks: ClaimChecks, expected: Verdict) -> None:
    assert effective_verdict(auditor, checks) == expected


def test_grounded_needs_checks_verdict_and_verbatim_quotes() -> None:
    assert is_grounded(claim())
    assert not is_grounded(claim(verdict=Verdict.PARTIAL))
    assert not is_grounded(claim(checks=NO_CITATION))
    # a recorded claim whose flags disagree with its quotes is still not grounded
    assert not is_grounded(claim(quotes=(FAKE_QUOTE,)))


def test_auto_cleared() -> None:
    out = decide_claims([claim("A [S1]."), claim("B [S2].", quotes=(GOOD_QUOTE,))], None, POLICY)
    assert out.decision == Decision.AUTO_CLEARED
    assert out.published_answer == "A [S1]. B [S2]."
    assert out.kept == (True, True)
    assert "Every sentence" in out.reason


def test_outside_coverage_wins_and_publishes_nothing() -> None:
    coverage = Coverage(covered=False, score=0.1, floor=0.4, reason="Nothing dated 1850.")
    out = decide_claims([claim()], coverage, POLICY)
    assert out.decision == Decision.OUTSIDE_COVERAGE
    assert out.published_answer == "" and out.kept == (False,)
    assert out.reason.endswith("Nothing dated 1850.")
    bare = coverage.model_copy(update={"reason": " "})
    assert decide_claims([], bare, POLICY).reason.endswith("cover this question.")


def test_covered_coverage_lets_the_gate_decide() -> None:
    coverage = Coverage(covered=True, score=0.9, floor=0.4, reason="")
    assert decide_claims([claim()], coverage, POLICY).decision == Decision.AUTO_CLEARED


def test_no_claims_is_held() -> None:
    out = decide_claims([], None, POLICY)
    assert out.decision == Decision.HELD_FOR_REVIEW and out.kept == ()
    assert "no sentences" in out.reason


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (claim("Q [S1].", BAD_QUOTE, quotes=(FAKE_QUOTE,)), "1 quote is not word for word"),
        (claim("U [S9].", UNKNOWN), "1 sentence cites a source that does not exist"),
        (claim("C [S1].", verdict=Verdict.CONTRADICTED), "1 sentence is contradicted"),
        (
            claim("P [S1].", verdict=Verdict.PARTIAL, quotes=(GOOD_QUOTE,)),
            "1 quoted sentence is not supported",
        ),
    ],
)
def test_hold_rules_even_with_many_good_claims(bad: Claim, words: str) -> None:
    out = decide_claims([claim(), claim(), claim(), bad], None, POLICY)
    assert out.decision == Decision.HELD_FOR_REVIEW
    assert out.published_answer == "" and not any(out.kept)
    assert words in out.reason


def test_hold_reasons_are_counted_and_joined() -> None:
    claims = [
        claim("Q [S1].", BAD_QUOTE, quotes=(FAKE_QUOTE, FAKE_QUOTE)),
        claim("U [S9].", UNKNOWN),
        claim("V [S9].", UNKNOWN),
        claim("C [S1].", verdict=Verdict.CONTRADICTED),
        claim("D [S1].", verdict=Verdict.CONTRADICTED),
    ]
    out = decide_claims(claims, None, POLICY)
    assert out.reason == (
        "Held for review because 2 quotes are not word for word in a cited source, "
        "2 sentences cite a source that does not exist, 2 sentences are contradicted by the "
        "sources and 1 quoted sentence is not supported by the sources."
    )
    two_quoted = [claim("Q [S1].", BAD_QUOTE, quotes=(FAKE_QUOTE,))] * 2
    assert "2 quoted sentences are not supported" in decide_claims(two_quoted, None, POLICY).reason


def test_a_draft_that_answers_another_question_is_held_whatever_its_claims() -> None:
    why = "the question asks about Ronald Reagan and no source that carries it is dated then"
    out = decide_claims([claim(), claim("B [S1].")], None, POLICY, why)
    assert out.decision == Decision.HELD_FOR_REVIEW and out.published_answer == ""
    assert out.reason == f"Held for review because {why}."
    mixed = decide_claims([claim("U [S9].", UNKNOWN)], None, POLICY, why)
    assert (
        mixed.reason
        == f"Held for review because {why} and 1 sentence cites a source that does not exist."
    )
    assert decide_claims([claim()], None, POLICY, None).decision == Decision.AUTO_CLEARED


def test_published_after_pruning() -> None:
    claims = [claim("A [S1]."), claim("B.", NO_CITATION), claim("C [S1].")]
    out = decide_claims(claims, None, POLICY)
    assert out.decision == Decision.PUBLISHED_AFTER_PRUNING
    assert out.published_answer == "A [S1]. C [S1]."
    assert out.kept == (True, False, True)
    assert out.reason == "1 of 3 sentences was dropped because their sources do not support them."
    two = decide_claims([*claims, claim("D.", verdict=Verdict.UNSUPPORTED), claim()], None, POLICY)
    assert two.reason.startswith("2 of 5 sentences were dropped")


def test_pruning_more_than_allowed_is_held() -> None:
    claims = [claim(), claim("B.", NO_CITATION), claim("C.", NO_CITATION)]
    out = decide_claims(claims, None, POLICY)
    assert out.decision == Decision.HELD_FOR_REVIEW
    assert "2 of 3 sentences are not supported" in out.reason and "50%" in out.reason
    loose = POLICY.model_copy(update={"max_pruned_fraction": 0.7})
    assert decide_claims(claims, None, loose).decision == Decision.PUBLISHED_AFTER_PRUNING


def test_exactly_the_allowed_fraction_may_be_pruned() -> None:
    claims = [claim(), claim("B.", NO_CITATION)]
    assert decide_claims(claims, None, POLICY).decision == Decision.PUBLISHED_AFTER_PRUNING


def test_nothing_left_is_held_even_when_pruning_is_unlimited() -> None:
    unlimited = POLICY.model_copy(update={"max_pruned_fraction": 1.0, "min_kept_claims": 0})
    out = decide_claims([claim("B.", NO_CITATION)], None, unlimited)
    assert out.decision == Decision.HELD_FOR_REVIEW
    assert "none of the 1 sentence is supported" in out.reason


def test_min_kept_claims() -> None:
    policy = POLICY.model_copy(update={"min_kept_claims": 2, "max_pruned_fraction": 0.9})
    out = decide_claims([claim(), claim("B.", NO_CITATION)], None, policy)
    assert out.decision == Decision.HELD_FOR_REVIEW
    assert "only 1 of 2 sentences are supported, fewer than the 2" in out.reason
    assert decide_claims([claim()], None, policy).decision == Decision.HELD_FOR_REVIEW
    assert decide_claims([claim(), claim()], None, policy).decision == Decision.AUTO_CLEARED


def test_judge_combines_checks_and_audits(sources: dict[str, EvidenceSource]) -> None:
    checked = check_draft("The only thing we have to fear is fear itself [S1]. Fear [S9].", sources)
    audits = [
        ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("d#0",)),
        ClaimAudit(verdict=Verdict.SUPPORTED),
    ]
    claims = judge(checked, audits)
    assert [c.verdict for c in claims] == [Verdict.SUPPORTED, Verdict.UNSUPPORTED]
    assert [c.auditor_verdict for c in claims] == [Verdict.SUPPORTED, Verdict.SUPPORTED]
    assert claims[0].evidence == ("d#0",) and claims[0].citations == ("S1",)
    with pytest.raises(ValueError, match="1 verdicts for 2 claims"):
        judge(checked, audits[:1])


def test_decide_marks_kept_claims(sources: dict[str, EvidenceSource]) -> None:
    draft = "Our greatest primary task [S1]. Fear is all. Put people to work [S1]."
    checked = check_draft(draft, sources)
    audits = [ClaimAudit(verdict=Verdict.SUPPORTED)] * 3
    claims, out = decide(checked, audits, None, POLICY)
    assert out.decision in PUBLISHING
    assert [c.kept for c in claims] == [True, False, True] == list(out.kept)
    assert out.published_answer == "Our greatest primary task [S1]. Put people to work [S1]."


def test_decide_from_receipt(make_receipt: Any) -> None:
    receipt = make_receipt()
    out = decide_from_receipt(receipt)
    assert out.decision == Decision.AUTO_CLEARED
    assert out.published_answer == receipt["published_answer"]
    coverage = Coverage(covered=False, score=0.0, floor=0.4, reason="")
    outside = make_receipt(coverage=coverage)
    assert decide_from_receipt(outside).decision == Decision.OUTSIDE_COVERAGE


def test_gate_reapplies_the_coverage_floor_itself() -> None:
    flagged_covered = Coverage(covered=True, score=0.2, floor=0.1, reason="looks fine")
    out = decide_claims([claim()], flagged_covered, POLICY)
    assert out.decision == Decision.OUTSIDE_COVERAGE
    assert "0.20" in out.reason and "0.40" in out.reason
    assert out.published_answer == ""
