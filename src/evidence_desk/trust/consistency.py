"""Does a receipt's verdict follow from what it records? Checks that need no archive.

A signature proves who wrote a receipt, not that its decision was right. These checks
re-derive, from the receipt alone:

* the claims from the draft: the same sentences, citations and quote texts (`claims.py`),
  and check flags that agree with them and with the run's source ids;
* the check for text aimed at a model, from the cited sources' recorded passages;
* the grounding contract's checks (`checks.py`): whether a recorded passage carries each
  sentence, and what it leans on in the answer, its hidden characters, its markup and its
  quotation marks, re-run on the recorded passages and the sources' recorded metadata
  (receipts of version 2 on; version 1 was written before the contract and carries none of
  these checks), and, where the policy allowed paraphrase, the paraphrase tier on the spans
  each supported claim records (its tier and the stretches it rests on compared);
* each effective verdict from the auditor's verdict and the checks (`gate.py`);
* the top-level `quotes` list as the claims' quotes in order;
* each quote marked verbatim that lies inside a recorded passage matches that passage's text;
* the decision, the kept flags and the published answer from the claims, coverage and
  policy (`gate.decide_claims`); the reason's wording is not compared.
"""

from __future__ import annotations

from ..types import Claim, ClaimAudit, Receipt
from .checks import CheckedClaim, EvidenceSource, check_claims, resting_spans
from .claims import DraftClaim, split_claims
from .gate import decide_claims, effective_verdict
from .screen import model_directed
from .text import matches_at


def _parse_problems(n: int, parsed: DraftClaim, claim: Claim, source_ids: set[str]) -> list[str]:
    """The citation facts `checks.check_claim` would record for the sentence, compared."""
    problems: list[str] = []
    unknown = tuple(c for c in parsed.citations if c not in source_ids) + parsed.malformed
    checks = claim.checks
    if parsed.citations != claim.citations or checks.has_citation != bool(parsed.citations):
        problems.append(f"Claim {n}'s citations are not the ones its sentence gives.")
    if checks.unknown_citations != unknown or checks.citations_exist != (not unknown):
        problems.append(f"Claim {n}'s cited-sources check does not match the run's sources.")
    if parsed.quotes != tuple(q.text for q in claim.quotes):
        problems.append(f"Claim {n}'s quotes are not the ones its sentence gives.")
    return problems


def _contract_problems(n: int, checked: CheckedClaim, claim: Claim, version: int) -> list[str]:
    """The grounding contract's checks re-run on the recorded passages, compared (the tier
    and what a sentence rests on from version 3 on)."""
    derived, recorded = checked.checks, claim.checks
    problems: list[str] = []
    if derived.leans_on != recorded.leans_on:
        problems.append(f"Claim {n}'s sentences it leans on are not the ones its answer gives.")
    tiers = (derived.tier, derived.rests_on), (recorded.tier, recorded.rests_on)
    if bool(derived.grounding) != bool(recorded.grounding):
        problems.append(
            f"Claim {n}'s grounding check does not match its recorded passages "
            f"({'not carried' if derived.grounding else 'carried'} when re-checked)."
        )
    elif version >= 3 and tiers[0] != tiers[1]:
        problems.append(f"Claim {n}'s tier or the words it rests on do not match when re-checked.")
    if (derived.hidden_characters, derived.markup, derived.unbalanced_quote_marks) != (
        recorded.hidden_characters,
        recorded.markup,
        recorded.unbalanced_quote_marks,
    ):
        problems.append(f"Claim {n}'s character, markup or quotation-mark check does not match.")
    return problems


def _screen_problems(n: int, claim: Claim, directed: set[str]) -> list[str]:
    """The cited sources whose recorded passages address a model, compared with the check."""
    flagged = tuple(dict.fromkeys(c for c in claim.citations if c in directed))
    if claim.checks.model_directed_sources != flagged:
        return [f"Claim {n}'s check for text aimed at a model does not match its sources."]
    return []


def _claim_problems(n: int, claim: Claim) -> list[str]:
    problems: list[str] = []
    checks = claim.checks
    if checks.quotes_verbatim != all(q.verbatim for q in claim.quotes):
        problems.append(f"Claim {n}'s quote check does not match its quotes.")
    if checks.numbers_dates == bool(checks.unmatched_numbers):
        problems.append(f"Claim {n}'s number check does not match its unmatched numbers.")
    if claim.verdict != effective_verdict(claim.auditor_verdict, checks):
        problems.append(f"Claim {n}'s verdict does not follow from the auditor and the checks.")
    return problems


def _passage_problems(receipt: Receipt) -> list[str]:
    problems: list[str] = []
    sources = {s.id: s for s in receipt.sources}
    for quote in (q for c in receipt.claims for q in c.quotes if q.verbatim):
        source = sources.get(quote.source_id or "")
        if source is None or quote.start is None or quote.end is None:
            continue  # reported by the evidence check when documents are available
        for p in source.passages:
            if p.start <= quote.start and quote.end <= p.end:
                at = quote.start - p.start, quote.end - p.start
                if not matches_at(quote.text, p.text, *at):
                    problems.append(f"The quote {quote.text!r} does not match passage {p.id}.")
                break
    return problems


def consistency_problems(receipt: Receipt) -> list[str]:
    """Every way the receipt's recorded verdicts and decision fail to follow from its content."""
    source_ids = {s.id for s in receipt.sources}
    problems: list[str] = []
    parsed = split_claims(receipt.draft)
    if [p.text for p in parsed] != [c.text for c in receipt.claims]:
        problems.append("The recorded claims are not the sentences of the recorded draft.")
    else:
        evidence = {s.id: EvidenceSource.from_passages(s) for s in receipt.sources}
        spans = None
        if receipt.policy.grounding == "paraphrase":
            audits = [ClaimAudit(verdict=c.auditor_verdict, spans=c.spans) for c in receipt.claims]
            spans = resting_spans(audits)
        rechecked = check_claims(parsed, evidence, spans) if receipt.receipt_version >= 2 else []
        for n, (p, c) in enumerate(zip(parsed, receipt.claims, strict=True), start=1):
            problems.extend(_parse_problems(n, p, c, source_ids))
            if rechecked:
                problems.extend(_contract_problems(n, rechecked[n - 1], c, receipt.receipt_version))
    directed = {s.id for s in receipt.sources if any(model_directed(p.text) for p in s.passages)}
    for n, claim in enumerate(receipt.claims, start=1):
        problems.extend(_claim_problems(n, claim))
        problems.extend(_screen_problems(n, claim, directed))
    if [q for c in receipt.claims for q in c.quotes] != list(receipt.quotes):
        problems.append("The receipt's quotes list is not the claims' quotes in order.")
    problems.extend(_passage_problems(receipt))
    outcome = decide_claims(receipt.claims, receipt.coverage, receipt.policy)
    if outcome.decision != receipt.decision:
        problems.append(
            f"The recorded decision {receipt.decision.value} does not follow from the recorded "
            f"claims under the recorded policy, which give {outcome.decision.value}."
        )
    if outcome.published_answer != receipt.published_answer:
        problems.append("The published answer is not the kept claims of the recorded answer.")
    if outcome.kept != tuple(c.kept for c in receipt.claims):
        problems.append("The claims marked kept are not the ones the gate keeps.")
    return problems
