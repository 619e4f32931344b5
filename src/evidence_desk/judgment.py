"""One judgment of a draft, one path: check, audit, decide.

Wherever a draft is judged, it is judged here: a run's verify, audit and gate stages
(`runs/stages.py`), the `check` command (`desk/drafts.py`), and an editor's edit of a held run
(`desk/workspace/review.py`). Like pydantic-ai's `run`, `run_sync` and `run_stream` driving one
`iter`, the three differ only in where their inputs come from:

| | sources | texts | the question read by |
|---|---|---|---|
| a run | the ones it selected | by (doc_id, content hash), `source_texts` | coverage |
| `check` | every passage of each cited document | the archive's current ones | `reads_question` |
| an edit | the held run's own | by (doc_id, content hash), `source_texts` | the run's coverage |

The steps, one implementation each:

1. `check`: the deterministic checks of `trust/` on every claim of the draft, against
   each source's stored text (`evidence_of`).
2. `audit`: the auditor's verdict on each claim (advice only). An auditor that fails
   (`AgentFailure`) leaves every claim `unsupported`, the strictest verdict short of
   contradicted, so the gate holds; its failure is returned, never raised.
3. `decide`: `trust.gate.decide`, with the three rules every caller shares: where the
   policy allows paraphrase, a claim the contract does not carry is re-checked in the
   paraphrase tier on the spans its supporting auditor named (`trust.checks.with_paraphrase`,
   against the same sources and texts); a question outside coverage judges no claim; and a
   judgment with a failure (an agent that gave up) never publishes and says so in its
   reason; a draft that code found to answer another question than the one asked (the
   `reads_question` of `judge`, against the passages that carry it) is held, not cleared.
   Before it, a run lends its answerer's spans (`Draft.rests`) to the claims a model
   auditor found supported without naming any (`lend_rests`); the offline auditor's
   verdicts never take them. Lent or named, the spans are only advice: `with_paraphrase`
   checks each one verbatim and every anchor of the sentence against them.

`judge` runs the three in order. A run's stages call them one at a time, because each stage
commits its own output before the next begins (a run killed between verify and audit
resumes at audit); `check` and an edit call `judge`.

A source's text is the one its content hash names (`source_texts`): the archive's current
text while its hash matches, a text kept since a re-ingest replaced it, or the snapshot a
web page or attached file was read into. A draft is never judged against a text other than
the one the run read: when that text is gone, `MissingText` names the source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .agents.base import AgentFailure, Auditor, ClaimToAudit, ModelUsage, RunBudget
from .agents.providers import OFFLINE
from .trust import gate
from .trust.checks import CheckedClaim, EvidenceSource, check_draft, with_paraphrase
from .trust.claims import strip_markers
from .types import (
    Claim,
    ClaimAudit,
    Coverage,
    GateOutcome,
    GatePolicy,
    SentenceRest,
    Source,
    Verdict,
)

# The texts a store holds for (doc_id, content hash) pairs; pairs it has none for are absent.
TextLookup = Callable[[Iterable[tuple[str, str]]], Mapping[tuple[str, str], str]]
# Why the checked draft answers another question than the one asked, or None when it may:
# given the question, the checked claims and the sources they were checked against.
QuestionReader = Callable[[str, Sequence[CheckedClaim], Sequence[Source]], str | None]


class MissingText(LookupError):
    """The text a source's content hash names is no longer stored anywhere."""

    def __init__(self, source: Source) -> None:
        self.source = source
        super().__init__(
            f"The text of source {source.id} ({source.doc_id}) that the run read is no longer "
            "stored: the draft cannot be checked against it."
        )


def source_texts(sources: Sequence[Source], lookup: TextLookup) -> dict[str, str]:
    """Each source's text by source id: the one its (doc_id, content hash) names.

    Raises `MissingText` for the first source whose text `lookup` does not hold, rather
    than let a draft be judged against another text of the same document.
    """
    found = lookup([(s.doc_id, s.content_sha256) for s in sources])
    for s in sources:
        if (s.doc_id, s.content_sha256) not in found:
            raise MissingText(s)
    return {s.id: found[s.doc_id, s.content_sha256] for s in sources}


def evidence_of(sources: Sequence[Source], texts: Mapping[str, str]) -> dict[str, EvidenceSource]:
    """The trust boundary's view of the sources: stored text, passages, metadata."""
    return {s.id: EvidenceSource.from_source(s, texts[s.id]) for s in sources}


def check(draft: str, sources: Sequence[Source], texts: Mapping[str, str]) -> list[CheckedClaim]:
    """Step 1: every claim of `draft` with its deterministic checks and located quotes."""
    return check_draft(draft, evidence_of(sources, texts))


@dataclass(frozen=True)
class Audited:
    """Step 2's result: one audit per claim, what the auditor cost, and its failure."""

    audits: tuple[ClaimAudit, ...]
    usage: ModelUsage | None
    failure: AgentFailure | None = None


def audit(
    question: str,
    checked: Sequence[CheckedClaim],
    sources: Sequence[Source],
    auditor: Auditor,
    budget: RunBudget,
) -> Audited:
    """Step 2: the auditor's verdict on each claim; a failed auditor, every claim
    `unsupported` with its reason (so the gate holds) and the failure returned."""
    to_audit = [ClaimToAudit(text=c.text, citations=c.citations) for c in checked]
    try:
        advice = auditor.audit(question, to_audit, list(sources), budget)
    except AgentFailure as failure:
        audits = tuple(
            ClaimAudit(verdict=Verdict.UNSUPPORTED, rationale=failure.reason) for _ in checked
        )
        return Audited(audits, failure.usage, failure)
    return Audited(tuple(advice.value), advice.usage)


ANSWERER = "answerer"  # `ClaimAudit.spans_by` for spans lent from the answerer


def _plain(text: str) -> str:
    return " ".join(strip_markers(text).split())


def lend_rests(
    checked: Sequence[CheckedClaim],
    audits: Sequence[ClaimAudit],
    rests: Sequence[SentenceRest],
    auditor: str,
) -> list[ClaimAudit]:
    """The audits with the answerer's spans standing in where a model auditor found a claim
    supported and named no spans of its own (`spans_by` then says `answerer`).

    `auditor` is the engine that gave `audits`: the offline auditor's verdicts never take
    the answerer's spans (its `supported` is not precise enough to grant the paraphrase
    tier, docs/grounding.md), nor do verdicts given from outside (`by`). A sentence takes
    the spans of the rest whose text is its own, citation markers aside.
    """
    if auditor == OFFLINE or not rests:
        return list(audits)
    by_text = {_plain(r.text): r.spans for r in reversed(rests)}  # the first rest of a text
    lent: list[ClaimAudit] = []
    for claim, audit in zip(checked, audits, strict=True):
        spans = by_text.get(_plain(claim.text))
        if spans and audit.verdict == Verdict.SUPPORTED and not audit.spans and not audit.by:
            audit = audit.model_copy(update={"spans": spans, "spans_by": ANSWERER})
        lent.append(audit)
    return lent


def decide(
    checked: Sequence[CheckedClaim],
    audits: Sequence[ClaimAudit],
    coverage: Coverage | None,
    policy: GatePolicy,
    failure: str | None = None,
    *,
    sources: Sequence[Source] = (),
    texts: Mapping[str, str] | None = None,
    unanswered: str | None = None,
) -> tuple[list[Claim], GateOutcome]:
    """Step 3: the gate's decision and the judged claims (`trust.gate.decide`).

    Outside coverage no claim is judged. `failure`: the reason an agent gave up (the
    planner, answerer or auditor); the outcome then holds and its reason says why.
    `sources` and `texts` (by source id), the ones step 1 checked against, are what the
    paraphrase tier re-checks on when the policy allows it; without them it is not tried.
    `unanswered`: why code found that the draft answers another question (it is held).
    """
    if coverage is not None and not coverage.covered:
        checked, audits = [], []
    elif policy.grounding == "paraphrase" and texts is not None:
        checked = with_paraphrase(checked, audits, evidence_of(sources, texts))
    claims, outcome = gate.decide(checked, audits, coverage, policy, unanswered)
    if failure is not None:
        if outcome.decision in gate.PUBLISHING:  # pragma: no cover - by construction
            raise AssertionError("a judgment with a failure must not publish")
        reason = f"{failure} Nothing was published; the answer needs review."
        outcome = outcome.model_copy(update={"reason": reason})
    return claims, outcome


@dataclass(frozen=True)
class Judgment:
    """A draft judged whole: its checked claims, their audits, the judged claims, the
    gate's outcome, and the auditor's failure (None when it gave its verdicts)."""

    checked: tuple[CheckedClaim, ...]
    audits: tuple[ClaimAudit, ...]
    claims: tuple[Claim, ...]
    outcome: GateOutcome
    failure: AgentFailure | None
    usage: ModelUsage | None


def judge(
    draft: str,
    question: str,
    sources: Sequence[Source],
    texts: Mapping[str, str],
    auditor: Auditor,
    budget: RunBudget,
    coverage: Coverage | None,
    policy: GatePolicy,
    reads_question: QuestionReader | None = None,
) -> Judgment:
    """Check, audit and decide `draft` against `sources` and their `texts` (by source id);
    `reads_question`, where no coverage stage read the question (`check`)."""
    checked = check(draft, sources, texts)
    unanswered = reads_question(question, checked, sources) if reads_question else None
    audited = audit(question, checked, sources, auditor, budget)
    reason = audited.failure.reason if audited.failure is not None else None
    claims, outcome = decide(
        checked,
        audited.audits,
        coverage,
        policy,
        reason,
        sources=sources,
        texts=texts,
        unanswered=unanswered,
    )
    return Judgment(
        tuple(checked), audited.audits, tuple(claims), outcome, audited.failure, audited.usage
    )
