"""The stages of a run, one function each: plan, retrieve, select, coverage, answer, verify,
audit, gate; discover and read (`web.py`) between retrieve and select when a run reaches
beyond the archive.

Each stage function reads a `RunState` and the run's parts (`Deps`) and returns a `Step`
(both `deps.py`): the fields it sets (`state.STAGE_OUTPUTS`), the stage that follows, and
what its agent cost. `run_stage` times it and folds the step into the next state with its
`StageRecord`; the executors (`loop.py`) only choose where the states are kept. The
retrieve stage searches the archive through `retrieve.py`.

Agents (planner, answerer, auditor) advise; `trust/` checks and decides. verify, audit and
gate are the three steps of the one judgment every draft gets (`judgment.py`; the `check`
command and an editor's edit run it whole), one stage each, so that each step's output is
committed before the next begins. An agent stage that fails (`AgentFailure`) records its
reason as the run's failure and jumps to the gate, which holds the run: a failed planner
searches nothing, a failed answerer leaves no claims, a failed auditor leaves every claim
`unsupported`. A question outside coverage also jumps to the gate, with no agent asked to
write.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import judgment
from ..agents.base import AgentFailure, split_price_sources
from ..clock import iso_us
from ..retrieval.coverage import ArchiveStats, assess
from ..retrieval.subject import many_voices
from ..trust.checks import CheckedClaim, resting_spans
from ..trust.claims import split_claims
from ..types import (
    Coverage,
    EngineIds,
    GatePolicy,
    Hit,
    Plan,
    Receipt,
    Source,
    StageFailure,
    StageRecord,
    SubQuestion,
    TimeWindow,
    Usage,
)
from .deps import Deps, StageFunction, Step
from .gaps import EXTRA_PASSAGES
from .illustrate import illustrate_stage
from .numbering import in_reading_order
from .retrieve import retrieve_sides
from .selection import SelectionBounds, kept_hits, select_sources
from .state import CheckedRecord, RunState
from .teach import teach_stage, teaching_review_stage
from .web import discover_stage, read_stage

# --------------------------------------------------------------------------- the stages


def fallback_plan(question: str, mode: str) -> Plan:
    """The plan recorded when the planner failed: the question itself, nothing searched."""
    return Plan(
        subquestions=(SubQuestion(text=question.strip() or question),),
        queries=(),
        mode="deep" if mode == "deep" else "quick",
    )


def _failed(stage: str, failure: AgentFailure, updates: Mapping[str, Any]) -> Step:
    """An agent stage that failed: its failure recorded, on to the gate, which holds."""
    recorded = StageFailure(stage=stage, reason=failure.reason, kind=failure.kind)
    return Step({**updates, "failure": recorded}, "gate", failure.usage, failure.reason)


def plan_stage(state: RunState, deps: Deps) -> Step:
    try:
        profile = deps.archive.profile()
        if state.thread:
            advice = deps.planner.plan(state.question, profile, deps.budget, earlier=state.thread)
        else:  # a lone question is asked as before conversations (any planner takes it)
            advice = deps.planner.plan(state.question, profile, deps.budget)
    except AgentFailure as failure:
        return _failed("plan", failure, {"plan": fallback_plan(state.question, state.mode)})
    plan = advice.value
    if state.mode == "deep":
        plan = plan.model_copy(update={"mode": "deep"})
    return Step({"plan": plan}, "retrieve", advice.usage)


def _plan(state: RunState) -> Plan:
    if state.plan is None:
        raise RuntimeError(f"Run {state.run_id} has no plan before its {state.next_stage} stage.")
    return state.plan


def _sources(state: RunState) -> tuple[Source, ...]:
    return state.sources or ()


def _after_retrieve(state: RunState, deps: Deps) -> str:
    """discover with a search provider; read with attached files alone; else select."""
    if deps.web is not None and deps.web.provider is not None:
        return "discover"
    return "read" if deps.web is not None and state.attachments else "select"


def retrieve_stage(state: RunState, deps: Deps) -> Step:
    sides, searches = retrieve_sides(deps, _plan(state), deep=state.mode == "deep")
    hits = tuple(tuple(side) for side in sides)
    return Step({"hits": hits, "searches": tuple(searches)}, _after_retrieve(state, deps))


def select_stage(state: RunState, deps: Deps) -> Step:
    """The archive's sources (`selection.py`), then the read stage's web sources and
    attachments, numbered after them."""
    sides = state.hits or ()
    doc_ids = list(dict.fromkeys(h.passage.doc_id for side in sides for h in side))
    documents = deps.archive.documents(doc_ids)
    extra = EXTRA_PASSAGES if state.mode == "deep" else 0
    many = many_voices(state.question)
    at = iso_us(deps.clock())
    sources = select_sources(sides, documents, deps.config.bounds, at, extra, many)
    for doc in documents.values():
        deps.texts[doc.doc_id, doc.content_sha256] = doc.text
    for web_source in state.web_sources or ():
        sources.append(web_source.model_copy(update={"id": f"S{len(sources) + 1}"}))
    return Step({"sources": tuple(sources)}, "coverage")


def with_evidence_scores(source: Source, scores: Mapping[str, float]) -> Source:
    """The source with each passage's coverage evidence score (0..1) as its score."""
    passages = tuple(
        p.model_copy(update={"score": scores.get(p.id, p.score)}) for p in source.passages
    )
    return source.model_copy(update={"passages": passages})


def quick_view(
    sources: Sequence[Source],
    sides: Sequence[Sequence[Hit]],
    bounds: SelectionBounds,
    voices: Mapping[str, str] | None = None,
) -> list[Source]:
    """The sources with only the passages Quick mode's bound keeps (Deep's extra ones out;
    a web source's passages are the pool's, which that bound does not touch); `voices` as
    selection read them (`kept_hits`)."""
    kept = {h.passage.id for hs in kept_hits(sides, bounds, 0, voices).values() for h in hs}
    return [
        s
        if s.origin != "archive"
        else s.model_copy(update={"passages": tuple(p for p in s.passages if p.id in kept)})
        for s in sources
    ]


def with_web_dates(stats: ArchiveStats, sources: Sequence[Source]) -> ArchiveStats:
    """`stats` whose window counts include the run's dated web sources and attachments:
    a period the archive lacks is covered by a page from it."""
    dated = [s.date for s in sources if s.origin != "archive" and s.date]
    if not dated:
        return stats

    def docs_in_window(w: TimeWindow) -> int:
        own = sum(1 for d in dated if w.start[:10] <= d[:10] <= w.end[:10])
        return stats.docs_in_window(w) + own

    return replace(stats, docs_in_window=docs_in_window)


def coverage_stage(state: RunState, deps: Deps) -> Step:
    """Whether the archive covers the question, judged on what Quick mode would select: the
    extra passage Deep shows a source never lifts a question over the floor (as a gap
    query's cosine never does, `retrieve.merge_gap_hits`); it is scored for the reader all
    the same."""
    config = deps.config
    hits = [h for side in state.hits or () for h in side] + list(state.web_hits or ())
    stats = with_web_dates(deps.archive.stats(), _sources(state))

    def judge(sources: Sequence[Source]) -> tuple[Coverage, dict[str, float]]:
        return assess(
            _plan(state),
            hits,
            sources,
            stats,
            floor=config.policy.coverage_floor,
            rare_term_max_df=config.rare_term_max_df,
            question=state.question,
            common_zipf=config.common_zipf,
        )

    shown = _sources(state)
    coverage, scores = judge(shown)
    if state.mode == "deep":
        voices = {s.doc_id: next(iter(s.names), s.doc_id) for s in shown}
        many = voices if many_voices(state.question) else None
        coverage, _ = judge(quick_view(shown, state.hits or (), config.bounds, many))
    sources = tuple(with_evidence_scores(s, scores) for s in shown)
    return Step(
        {"coverage": coverage, "sources": sources}, "answer" if coverage.covered else "gate"
    )


def answer_stage(state: RunState, deps: Deps) -> Step:
    try:
        advice = deps.answerer.answer(
            state.question, _plan(state), list(_sources(state)), deps.budget
        )
    except AgentFailure as failure:
        return _failed("answer", failure, {"draft": ""})
    # The sources are renumbered in reading order: the answer cites S1 first, then S2.
    draft, sources = in_reading_order(advice.value, _sources(state))
    updates = {"draft": draft.text, "draft_rests": draft.rests, "sources": sources}
    return Step(updates, "verify", advice.usage)


def verify_stage(state: RunState, deps: Deps) -> Step:
    """Judgment step 1 (`judgment.check`) on the run's own sources and texts."""
    sources = _sources(state)
    checked = judgment.check(state.draft or "", sources, deps.source_texts(sources))
    records = tuple(CheckedRecord(checks=c.checks, quotes=c.quotes) for c in checked)
    return Step({"checked": records}, "audit")


def checked_claims(state: RunState) -> list[CheckedClaim]:
    """The verify stage's findings joined again with the draft's claims."""
    claims = split_claims(state.draft or "")
    records = state.checked or ()
    return [CheckedClaim(c, r.checks, r.quotes) for c, r in zip(claims, records, strict=True)]


def audit_stage(state: RunState, deps: Deps) -> Step:
    """Judgment step 2 (`judgment.audit`); a failed auditor ends the run at the gate."""
    audited = judgment.audit(
        state.question, checked_claims(state), _sources(state), deps.auditor, deps.budget
    )
    if audited.failure is not None:
        return _failed("audit", audited.failure, {"audits": audited.audits})
    return Step({"audits": audited.audits}, "gate", audited.usage)


def auditor_engine(state: RunState, deps: Deps) -> str:
    """The engine that gave the run's verdicts: the one its audit stage recorded, else the
    run's auditor (a resumed run's settings may name another since)."""
    record = next((s for s in reversed(state.stages) if s.name == "audit"), None)
    return record.engine if record is not None and record.engine else deps.auditor.engine_id


def gate_stage(state: RunState, deps: Deps) -> Step:
    """Judgment step 3 (`judgment.decide`) on what the stages before it committed, with the
    answerer's spans lent where a model auditor supported a claim and named none."""
    checked = checked_claims(state) if state.audits is not None else []
    failure = state.failure.reason if state.failure is not None else None
    policy = deps.config.policy
    sources = _sources(state)
    audits = judgment.lend_rests(
        checked, state.audits or (), state.draft_rests, auditor_engine(state, deps)
    )
    # The paraphrase tier re-checks against the run's texts only when there are spans.
    rests = policy.grounding == "paraphrase" and any(resting_spans(audits))
    texts = deps.source_texts(sources) if rests and checked else None
    claims, outcome = judgment.decide(
        checked, audits, state.coverage, policy, failure, sources=sources, texts=texts
    )
    return Step({"claims": tuple(claims), "outcome": outcome}, "publish")


STAGE_FUNCTIONS: dict[str, StageFunction] = {
    "plan": plan_stage,
    "retrieve": retrieve_stage,
    "discover": discover_stage,
    "read": read_stage,
    "select": select_stage,
    "coverage": coverage_stage,
    "answer": answer_stage,
    "verify": verify_stage,
    "audit": audit_stage,
    "gate": gate_stage,
    "teach": teach_stage,
    "teaching_review": teaching_review_stage,
    "illustrate": illustrate_stage,
}


def record_of(name: str, started: str, ms: float, step: Step) -> StageRecord:
    u = step.usage
    spend = 0.0 if u is None else (None if u.spend_usd is None else round(u.spend_usd, 6))
    return StageRecord(
        name=name,
        started_at=started,
        latency_ms=round(ms, 3),
        calls=u.calls if u else 0,
        input_tokens=u.input_tokens if u else 0,
        output_tokens=u.output_tokens if u else 0,
        engine=u.engine if u else None,
        estimated_spend_usd=spend,
        price_source=u.price_source if u else None,
        error=step.error,
    )


def run_stage(
    name: str, state: RunState, deps: Deps, functions: Mapping[str, StageFunction] | None = None
) -> RunState:
    """Run stage `name` on `state`: the next state, with the stage's record appended."""
    fn = (functions or STAGE_FUNCTIONS)[name]
    started = iso_us(deps.clock())
    t0 = time.perf_counter()
    deps.budget.begin_stage()
    try:
        step = fn(state, deps)
    finally:
        seconds = time.perf_counter() - t0
        deps.budget.add_seconds(seconds)
    record = record_of(name, started, seconds * 1000.0, step)
    return state.model_copy(
        update={**step.updates, "next_stage": step.next_stage, "stages": (*state.stages, record)}
    )


# --------------------------------------------------------------------------- the receipt


def receipt_of(state: RunState, engine: EngineIds, policy: GatePolicy) -> Receipt:
    """The unsealed receipt of a run that has passed its gate."""
    if state.outcome is None or state.plan is None:
        raise RuntimeError(f"Run {state.run_id} has not passed its gate.")
    stages = [s for s in state.stages if s.name != "publish"]
    claims = list(state.claims or ())
    active = sum(s.latency_ms for s in stages) / 1000.0
    unpriced = tuple(
        dict.fromkeys(s.engine for s in stages if s.estimated_spend_usd is None and s.engine)
    )
    outcome = state.outcome
    return Receipt(
        run_id=state.run_id,
        created_at=state.created_at,
        question=state.question,
        plan=state.plan,
        sources=list(_sources(state)),
        draft=state.draft or "",
        claims=claims,
        quotes=[q for c in claims for q in c.quotes],
        decision=outcome.decision,
        reason=outcome.reason,
        published_answer=outcome.published_answer,
        engine=engine,
        policy=policy,
        coverage=state.coverage,
        stages=stages,
        usage=Usage(
            model_calls=sum(s.calls for s in stages),
            input_tokens=sum(s.input_tokens for s in stages),
            output_tokens=sum(s.output_tokens for s in stages),
            active_seconds=round(active, 4),
            estimated_spend_usd=round(sum(s.estimated_spend_usd or 0.0 for s in stages), 6),
            unpriced_engines=unpriced,
            price_sources=split_price_sources(*(s.price_source for s in stages)),
        ),
        failure=state.failure,
        searches=list(state.searches or ()),
        web=state.web,
    )
