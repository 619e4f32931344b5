"""One run of the desk: plan → retrieve → select → coverage → answer → verify → audit → gate.

The pipeline owns the order of the stages and the timing of each; it knows nothing about
storage or the command line. Each stage is a method with one job. Agents (planner, answerer,
auditor) advise; `trust/` checks and decides. The result is an unsealed receipt: sealing,
signing and persisting belong to the desk.

An agent stage that fails (its role raised `AgentFailure`) ends the run there: the receipt
records the stage, its reason and what it cost, and the gate holds the run. A failed auditor
leaves every claim `unsupported`; a failed planner or answerer leaves no claims.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Protocol

from ..agents.base import (
    AgentFailure,
    Answerer,
    ArchiveProfile,
    Auditor,
    ClaimToAudit,
    ModelUsage,
    Planner,
    RunBudget,
)
from ..agents.offline.docdates import relative_windows
from ..retrieval.coverage import ArchiveStats, assess
from ..trust import gate as trust_gate
from ..trust.checks import EvidenceSource, check_draft
from ..types import (
    Claim,
    ClaimAudit,
    Coverage,
    Document,
    EngineIds,
    GateOutcome,
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
    Verdict,
)
from .selection import SelectionBounds, select_sources


class ArchiveAccess(Protocol):
    """What a run needs from the archive (the desk provides it)."""

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]: ...

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]: ...

    def stats(self) -> ArchiveStats: ...

    def profile(self) -> ArchiveProfile: ...


@dataclass(frozen=True)
class PipelineConfig:
    policy: GatePolicy
    bounds: SelectionBounds
    rare_term_max_df: float
    common_zipf: float = 0.0
    hits_per_query: int = 24
    max_model_calls: int = 12
    max_model_tokens: int = 90_000
    relative_date_reach_days: int = 0  # see `reach_windows`; 0 searches the plan's windows


SHORT_WINDOW_DAYS = 31


def reach_windows(windows: Sequence[TimeWindow], reach_days: int) -> list[TimeWindow]:
    """For each plan window of at most 31 days, the `reach_days` after it (the "tail").

    A later article may date what happened in a short period relative to itself ("In early
    April, ..." on August 28), and the answerer may quote it (`relative_date_reach_days`),
    so retrieval must reach it. Only the search reaches further: the plan and the coverage
    stage keep the real windows, and a tail's hit counts only through a sentence that dates
    itself into the window (`dates_into`). An empty window (start after end) has no tail.
    """
    out: list[TimeWindow] = []
    for w in windows:
        try:
            start, end = date.fromisoformat(w.start[:10]), date.fromisoformat(w.end[:10])
            if reach_days > 0 and 0 <= (end - start).days < SHORT_WINDOW_DAYS:
                after = end + timedelta(days=1)
                last = end + timedelta(days=reach_days)
                out.append(TimeWindow(start=after.isoformat(), end=last.isoformat(), label=w.label))
        except (ValueError, OverflowError):
            pass  # not an ISO date, or past year 9999: no tail
    return out


def dates_into(hit: Hit, windows: Sequence[TimeWindow]) -> bool:
    """True when a sentence of the hit's passage, read against its document's date, dates
    what it says inside one of `windows`."""
    return any(
        w.start <= r.start[:10] and r.end[:10] <= w.end
        for r in relative_windows(hit.passage.text, hit.doc_date)
        for w in windows
    )


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("run-%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]


@dataclass
class _Meter:
    """What an agent stage cost, filled in by the stage body."""

    usage: ModelUsage | None = None
    error: str | None = None


@dataclass
class _Clock:
    stages: list[StageRecord] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[_Meter]:
        started = utc_now()
        t0 = time.perf_counter()
        meter = _Meter()
        try:
            yield meter
        finally:
            ms = (time.perf_counter() - t0) * 1000.0
            u = meter.usage
            spend = 0.0 if u is None else (None if u.spend_usd is None else round(u.spend_usd, 6))
            self.stages.append(
                StageRecord(
                    name=name,
                    started_at=started,
                    latency_ms=round(ms, 3),
                    calls=u.calls if u else 0,
                    input_tokens=u.input_tokens if u else 0,
                    output_tokens=u.output_tokens if u else 0,
                    engine=u.engine if u else None,
                    estimated_spend_usd=spend,
                    error=meter.error,
                )
            )


class StageFailed(Exception):
    """An agent stage failed; carries what the run had gathered so far."""

    def __init__(self, stage: str, failure: AgentFailure) -> None:
        super().__init__(failure.reason)
        self.stage = stage
        self.reason = failure.reason


@contextmanager
def _agent_stage(clock: _Clock, name: str) -> Iterator[_Meter]:
    """A stage that runs an agent: an `AgentFailure` is recorded and ends the run."""
    with clock.stage(name) as meter:
        try:
            yield meter
        except AgentFailure as failure:
            meter.usage = failure.usage
            meter.error = failure.reason
            raise StageFailed(name, failure) from failure


@dataclass(frozen=True)
class Gathered:
    """What a run knows before any agent writes."""

    plan: Plan
    sources: list[Source]
    documents: dict[str, Document]
    coverage: Coverage | None  # None only when the run failed before the coverage stage


def with_evidence_scores(source: Source, scores: Mapping[str, float]) -> Source:
    """The source with each passage's coverage evidence score (0..1) as its score."""
    passages = tuple(
        p.model_copy(update={"score": scores.get(p.id, p.score)}) for p in source.passages
    )
    return source.model_copy(update={"passages": passages})


def evidence_sources(
    sources: Sequence[Source], documents: Mapping[str, Document]
) -> dict[str, EvidenceSource]:
    """The trust boundary's view of a run's sources: stored text, passages, metadata."""
    return {src.id: EvidenceSource.from_source(src, documents[src.doc_id].text) for src in sources}


class Pipeline:
    """Runs questions against one archive with one set of agents and one policy."""

    def __init__(
        self,
        archive: ArchiveAccess,
        planner: Planner,
        answerer: Answerer,
        auditor: Auditor,
        config: PipelineConfig,
    ) -> None:
        self.archive = archive
        self.planner = planner
        self.answerer = answerer
        self.auditor = auditor
        self.config = config

    @property
    def engine(self) -> EngineIds:
        return EngineIds(
            planner=self.planner.engine_id,
            answerer=self.answerer.engine_id,
            auditor=self.auditor.engine_id,
        )

    def budget(self) -> RunBudget:
        return RunBudget(self.config.max_model_calls, self.config.max_model_tokens)

    def gather(
        self,
        question: str,
        *,
        mode: str = "quick",
        clock: _Clock | None = None,
        budget: RunBudget | None = None,
    ) -> Gathered:
        """The stages before any agent writes: plan, retrieve, select, coverage.

        Raises `StageFailed` when the planner fails.
        """
        clock = clock or _Clock()
        budget = budget or self.budget()
        with _agent_stage(clock, "plan") as meter:
            advice = self.planner.plan(question, self.archive.profile(), budget)
            meter.usage = advice.usage
            plan = advice.value
            if mode == "deep":
                plan = plan.model_copy(update={"mode": "deep"})
        with clock.stage("retrieve"):
            sides = self._retrieve(plan)
        with clock.stage("select"):
            doc_ids = list(dict.fromkeys(h.passage.doc_id for side in sides for h in side))
            documents = self.archive.documents(doc_ids)
            sources = select_sources(sides, documents, self.config.bounds, utc_now())
        with clock.stage("coverage"):
            coverage, scores = assess(
                plan,
                [h for side in sides for h in side],
                sources,
                self.archive.stats(),
                floor=self.config.policy.coverage_floor,
                rare_term_max_df=self.config.rare_term_max_df,
                question=question,
                common_zipf=self.config.common_zipf,
            )
            sources = [with_evidence_scores(src, scores) for src in sources]
        return Gathered(plan, sources, documents, coverage)

    def run(self, question: str, *, mode: str = "quick") -> Receipt:
        clock = _Clock()
        created = utc_now()
        budget = self.budget()
        try:
            g = self.gather(question, mode=mode, clock=clock, budget=budget)
        except StageFailed as failed:
            g = Gathered(_fallback_plan(question, mode), [], {}, None)
            return self._failed(question, created, g, "", [], failed, clock)
        if g.coverage is not None and not g.coverage.covered:
            with clock.stage("gate"):
                _, outcome = trust_gate.decide([], [], g.coverage, self.config.policy)
            return self._receipt(question, created, g, "", [], outcome, clock)
        try:
            with _agent_stage(clock, "answer") as meter:
                advice = self.answerer.answer(question, g.plan, g.sources, budget)
                meter.usage, draft = advice.usage, advice.value
        except StageFailed as failed:
            return self._failed(question, created, g, "", [], failed, clock)
        with clock.stage("verify"):
            checked = check_draft(draft.text, evidence_sources(g.sources, g.documents))
        to_audit = [ClaimToAudit(text=c.text, citations=c.citations) for c in checked]
        try:
            with _agent_stage(clock, "audit") as meter:
                audit = self.auditor.audit(question, to_audit, g.sources, budget)
                meter.usage, audits = audit.usage, audit.value
        except StageFailed as failed:
            # Every claim gets the strictest verdict short of contradicted, so the gate holds.
            audits = [
                ClaimAudit(verdict=Verdict.UNSUPPORTED, rationale=failed.reason) for _ in checked
            ]
            with clock.stage("gate"):
                claims, _ = trust_gate.decide(checked, audits, g.coverage, self.config.policy)
            return self._failed(question, created, g, draft.text, claims, failed, clock)
        with clock.stage("gate"):
            claims, outcome = trust_gate.decide(checked, audits, g.coverage, self.config.policy)
        return self._receipt(question, created, g, draft.text, claims, outcome, clock)

    def _failed(
        self,
        question: str,
        created: str,
        g: Gathered,
        draft: str,
        claims: Sequence[Claim],
        failed: StageFailed,
        clock: _Clock,
    ) -> Receipt:
        """The receipt of a run that ended at a failed stage: held, nothing published."""
        outcome = trust_gate.decide_claims(claims, g.coverage, self.config.policy)
        if outcome.decision in trust_gate.PUBLISHING:  # pragma: no cover - by construction
            raise AssertionError("a failed run must not publish")
        outcome = outcome.model_copy(
            update={"reason": f"{failed.reason} Nothing was published; the run needs review."}
        )
        failure = StageFailure(stage=failed.stage, reason=failed.reason)
        return self._receipt(question, created, g, draft, claims, outcome, clock, failure)

    def _retrieve(self, plan: Plan) -> list[list[Hit]]:
        """One hit list per side.

        A comparison searches each side inside its own window, with the plan's main query and
        the side's own sub-question; any other plan searches every query in the plan's windows.
        """
        subs = plan.subquestions
        main = plan.queries[0] if plan.queries else subs[0].text
        if plan.kind == "comparison" and len(subs) > 1:
            return [
                self._search_all(
                    (main, sq.text), [sq.window] if sq.window else list(plan.time_windows)
                )
                for sq in subs
            ]
        return [self._search_all(plan.queries or (main,), list(plan.time_windows))]

    def _search_all(self, queries: Sequence[str], windows: list[TimeWindow]) -> list[Hit]:
        """Hits of several queries, each passage once with its best score, best first."""
        merged: dict[str, Hit] = {}
        tails = reach_windows(windows, self.config.relative_date_reach_days)
        for query in dict.fromkeys(queries):
            hits = self.archive.search(query, windows, self.config.hits_per_query)
            if tails:
                later = self.archive.search(query, tails, self.config.hits_per_query)
                hits += [h for h in later if dates_into(h, windows)]
            for hit in hits:
                if hit.passage.id not in merged or merged[hit.passage.id].score < hit.score:
                    merged[hit.passage.id] = hit
        return sorted(merged.values(), key=lambda h: (-h.score, h.passage.id))

    def _receipt(
        self,
        question: str,
        created: str,
        g: Gathered,
        draft: str,
        claims: Sequence[Claim],
        outcome: GateOutcome,
        clock: _Clock,
        failure: StageFailure | None = None,
    ) -> Receipt:
        active = sum(s.latency_ms for s in clock.stages) / 1000.0
        unpriced = tuple(
            dict.fromkeys(
                s.engine for s in clock.stages if s.estimated_spend_usd is None and s.engine
            )
        )
        return Receipt(
            run_id=new_run_id(),
            created_at=created,
            question=question,
            plan=g.plan,
            sources=list(g.sources),
            draft=draft,
            claims=list(claims),
            quotes=[q for c in claims for q in c.quotes],
            decision=outcome.decision,
            reason=outcome.reason,
            published_answer=outcome.published_answer,
            engine=self.engine,
            policy=self.config.policy,
            coverage=g.coverage,
            stages=clock.stages,
            usage=Usage(
                model_calls=sum(s.calls for s in clock.stages),
                input_tokens=sum(s.input_tokens for s in clock.stages),
                output_tokens=sum(s.output_tokens for s in clock.stages),
                active_seconds=round(active, 4),
                estimated_spend_usd=round(
                    sum(s.estimated_spend_usd or 0.0 for s in clock.stages), 6
                ),
                unpriced_engines=unpriced,
            ),
            failure=failure,
        )


def _fallback_plan(question: str, mode: str) -> Plan:
    """The plan recorded when the planner failed: the question itself, nothing searched."""
    return Plan(
        subquestions=(SubQuestion(text=question.strip() or question),),
        queries=(),
        mode="deep" if mode == "deep" else "quick",
    )
