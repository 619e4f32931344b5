"""The policy gate: the one place that decides what a reader may see.

The agents advise, the gate decides. Its inputs are the claims with their deterministic
checks and quotes, the auditor's verdict on each, the coverage finding and the policy.

Effective verdict. The auditor's verdict, except that a claim that failed any check can be
no better than `unsupported` (`supported` and `partial` become `unsupported`;
`contradicted` stays). An auditor can make the gate stricter, never rescue a claim.
A claim is grounded when all its checks pass (the grounding contract among them: one passage
of a cited source carries the whole sentence, `grounding.py`, or, where the policy allows
paraphrase, the paraphrase tier rests it on spans its supporting auditor named and code
checked, `paraphrase.py`), every one of its quotes is verbatim, and its effective verdict is
`supported`.

The pruning policy, applied in this order:

1. OUTSIDE_COVERAGE when coverage was evaluated and found the question not covered, or
   its best evidence score is below the policy's coverage floor (the gate re-applies the
   floor itself rather than trusting the coverage stage's flag alone).
2. HELD_FOR_REVIEW when the draft has no claims; or code found that it answers another
   question than the one asked (`unanswered`: `evidence-desk check`, which has no coverage
   stage, reads the question against the passages that carry the draft); or any quote is
   not verbatim; or any claim cites a source that does not exist (malformed markers
   included); or any claim is contradicted; or any claim that does not stand (3.) contains
   a quote (a quoted sentence is never dropped silently); or any claim cites a source whose
   passages address a model (`screen.py`: a steered model may have written or judged the
   other sentences too); or any claim carries a hidden character (`characters.py`: what a
   reader sees would not be what was checked); or any claim has a quotation mark without
   its partner.
3. Otherwise the claims that do not stand would be dropped: a claim stands when it is
   grounded and every claim it leans on (`checks.leans_on`, `answer.py`) stands, so
   pruning removes a sentence together with the sentences that lean on it. HELD_FOR_REVIEW
   when none
   would remain, when more than `policy.max_pruned_fraction` of the claims would be
   dropped, or when fewer than `policy.min_kept_claims` would remain.
4. PUBLISHED_AFTER_PRUNING when some claims were dropped; AUTO_CLEARED when every claim is
   grounded.

The published answer is the kept claims' texts, in draft order, joined by one space; it is
empty unless the decision publishes. A claim is kept only when the answer is published and
the claim stands (so it is grounded).

THE GATE INVARIANT: a published answer never contains a claim that is not grounded, nor a
quote that is not verbatim in a cited source. `decide_claims` guarantees it by construction (kept
implies grounded, and grounded implies every check passed), whatever the auditor said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import (
    Claim,
    ClaimAudit,
    ClaimChecks,
    Coverage,
    Decision,
    GateOutcome,
    GatePolicy,
    Verdict,
)
from .checks import CheckedClaim

PUBLISHING = frozenset({Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING})
_FAILED_CHECK_CAP = {Verdict.SUPPORTED: Verdict.UNSUPPORTED, Verdict.PARTIAL: Verdict.UNSUPPORTED}


def effective_verdict(auditor: Verdict, checks: ClaimChecks) -> Verdict:
    """The auditor's verdict, capped at `unsupported` when a deterministic check failed."""
    return auditor if checks.passed else _FAILED_CHECK_CAP.get(auditor, auditor)


def is_grounded(claim: Claim) -> bool:
    """Checks passed, every quote verbatim and the effective verdict is `supported`."""
    return (
        claim.checks.passed
        and all(q.verbatim for q in claim.quotes)
        and claim.verdict == Verdict.SUPPORTED
    )


def standing(claims: Sequence[Claim]) -> tuple[bool, ...]:
    """For each claim, whether it stands: grounded, and every claim it leans on stands (a
    number outside the answer, or its own, never does)."""
    keep = [is_grounded(c) for c in claims]
    changed = True
    while changed:
        changed = False
        for k, claim in enumerate(claims):
            if keep[k] and not all(
                0 < j <= len(claims) and j != k + 1 and keep[j - 1] for j in claim.checks.leans_on
            ):
                keep[k], changed = False, True
    return tuple(keep)


def judge(checked: Sequence[CheckedClaim], audits: Sequence[ClaimAudit]) -> list[Claim]:
    """Combine each claim's checks with the auditor's advice (one audit per claim)."""
    if len(checked) != len(audits):
        raise ValueError(f"The auditor returned {len(audits)} verdicts for {len(checked)} claims.")
    return [
        Claim(
            text=c.claim.text,
            citations=c.claim.citations,
            quotes=c.quotes,
            checks=c.checks,
            verdict=effective_verdict(a.verdict, c.checks),
            auditor_verdict=a.verdict,
            evidence=a.evidence,
            spans=a.spans,
            audited_by=a.by,
            spans_by=a.spans_by,
        )
        for c, a in zip(checked, audits, strict=True)
    ]


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def _hold_reasons(claims: Sequence[Claim], stands: Sequence[bool]) -> list[str]:
    # (count, noun, verb when singular, verb when plural, the rest of the sentence)
    findings = [
        (
            sum(not q.verbatim for c in claims for q in c.quotes),
            "quote", "is", "are", "not word for word in a cited source",
        ),
        (
            sum(not c.checks.citations_exist for c in claims),
            "sentence", "cites", "cite", "a source that does not exist",
        ),
        (
            sum(c.verdict == Verdict.CONTRADICTED for c in claims),
            "sentence", "is", "are", "contradicted by the sources",
        ),
        (
            sum(bool(c.quotes) and not s for c, s in zip(claims, stands, strict=True)),
            "quoted sentence", "is", "are", "not supported by the sources",
        ),
        (
            sum(bool(c.checks.model_directed_sources) for c in claims),
            "sentence", "cites", "cite", "a source that contains instructions aimed at an AI model",
        ),
        (
            sum(bool(c.checks.hidden_characters) for c in claims),
            "sentence", "carries", "carry", "invisible, direction-changing or look-alike "
            "characters (" + "; ".join(h for c in claims for h in c.checks.hidden_characters[:1])
            + ")",
        ),
        (
            sum(c.checks.unbalanced_quote_marks for c in claims),
            "sentence", "has", "have", "a quotation mark without its partner",
        ),
    ]  # fmt: skip
    return [
        f"{_count(n, noun)} {one if n == 1 else many} {rest}"
        for n, noun, one, many, rest in findings
        if n
    ]


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _held(reason: str, n: int) -> GateOutcome:
    return GateOutcome(
        decision=Decision.HELD_FOR_REVIEW, reason=reason, published_answer="", kept=(False,) * n
    )


def _pruning_hold(dropped: int, total: int, policy: GatePolicy) -> str | None:
    kept = total - dropped
    if kept == 0:
        return f"Held for review because none of the {_count(total, 'sentence')} is supported."
    if dropped / total > policy.max_pruned_fraction:
        return (
            f"Held for review because {dropped} of {total} sentences are not supported by "
            f"their sources, more than the {policy.max_pruned_fraction:.0%} the policy "
            "allows to drop."
        )
    if kept < policy.min_kept_claims:
        return (
            f"Held for review because only {kept} of {total} sentences are supported, "
            f"fewer than the {policy.min_kept_claims} the policy requires."
        )
    return None


def decide_claims(
    claims: Sequence[Claim],
    coverage: Coverage | None,
    policy: GatePolicy,
    unanswered: str | None = None,
) -> GateOutcome:
    """The gate decision for judged claims (`Claim.verdict` is the effective verdict);
    `unanswered`: why code found that the draft answers another question, if it did."""
    n = len(claims)
    if coverage is not None and (not coverage.covered or coverage.score < policy.coverage_floor):
        reason = "No answer is published because the sources do not cover this question."
        detail = (
            coverage.reason.strip()
            if coverage.covered is False
            else (
                f"The best passage scored {coverage.score:.2f}, below the coverage floor of "
                f"{policy.coverage_floor:.2f}."
            )
        )
        return GateOutcome(
            decision=Decision.OUTSIDE_COVERAGE,
            reason=f"{reason} {detail}" if detail else reason,
            published_answer="",
            kept=(False,) * n,
        )
    if n == 0:
        return _held("Held for review because the draft has no sentences to check.", 0)
    grounded = standing(claims)
    reasons = [unanswered] if unanswered else []
    reasons += _hold_reasons(claims, grounded)
    if reasons:
        return _held(f"Held for review because {_join(reasons)}.", n)
    dropped = grounded.count(False)
    hold = _pruning_hold(dropped, n, policy)
    if hold is not None:
        return _held(hold, n)
    answer = " ".join(c.text for c, keep in zip(claims, grounded, strict=True) if keep)
    if dropped:
        verb = "was" if dropped == 1 else "were"
        return GateOutcome(
            decision=Decision.PUBLISHED_AFTER_PRUNING,
            reason=f"{dropped} of {n} sentences {verb} dropped because their sources do not "
            "support them.",
            published_answer=answer,
            kept=grounded,
        )
    return GateOutcome(
        decision=Decision.AUTO_CLEARED,
        reason="Every sentence is supported by its cited sources and every quote is verbatim.",
        published_answer=answer,
        kept=grounded,
    )


def decide(
    checked: Sequence[CheckedClaim],
    audits: Sequence[ClaimAudit],
    coverage: Coverage | None,
    policy: GatePolicy,
    unanswered: str | None = None,
) -> tuple[list[Claim], GateOutcome]:
    """Judge the claims, decide, and mark which claims the published answer keeps."""
    claims = judge(checked, audits)
    outcome = decide_claims(claims, coverage, policy, unanswered)
    kept = [c.model_copy(update={"kept": k}) for c, k in zip(claims, outcome.kept, strict=True)]
    return kept, outcome


def decide_from_receipt(receipt: Mapping[str, Any]) -> GateOutcome:
    """Re-derive the decision from a receipt's recorded claims, coverage and policy.

    Raises pydantic's ValidationError when those parts of the receipt are malformed.
    """
    claims = [Claim.model_validate(c) for c in receipt["claims"]]
    raw_coverage = receipt.get("coverage")
    coverage = None if raw_coverage is None else Coverage.model_validate(raw_coverage)
    return decide_claims(claims, coverage, GatePolicy.model_validate(receipt["policy"]))
