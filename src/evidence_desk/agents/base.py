"""The agent roles as interfaces: planner, answerer, auditor, and the teacher.

Every role is a Pydantic AI agent with a typed output (`roles.py`); the model behind it is
the offline engine or a provider's (`providers.py`). Agents advise: a plan, a draft and
per-claim verdicts, each returned as `Advice` with the model usage it cost. Whatever they
return, the deterministic checks and the gate in `trust/` decide what is published.

A role that cannot produce advice (the provider kept failing, the output never matched
its schema, the run's budget ran out) raises `AgentFailure`; the run then ends without
publishing. There is no fallback to an unchecked answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, Protocol, TypeVar

from ..types import Claim, ClaimAudit, Draft, Lesson, Plan, Source, TimeWindow

T = TypeVar("T")


@dataclass(frozen=True)
class ArchiveProfile:
    """What a planner may know about the archive without searching it.

    `entities` maps a lower-cased name (a president, an author) to the windows in which the
    archive holds documents by or about them, e.g. {"lincoln": [1861-03-04..1865-04-15]}.
    """

    min_date: str | None = None
    max_date: str | None = None
    entities: dict[str, tuple[TimeWindow, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimToAudit:
    """A claim as the auditor sees it: its text (markers and quotes included) and citations."""

    text: str
    citations: tuple[str, ...]


@dataclass(frozen=True)
class ModelUsage:
    """What one role's work cost: model requests, tokens and the estimated spend.

    `spend_usd` is None when no price source knows the model (`agents/prices.py`);
    `price_source` names where the spend's price came from ("packaged table 2025-10-01"),
    None when unpriced. A sum is unpriced when either part is; otherwise its source is the
    parts' sources, each once, in order, joined by "; " (`PRICE_SOURCE_SEPARATOR`).
    """

    engine: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    spend_usd: float | None = 0.0
    price_source: str | None = None

    def __add__(self, other: ModelUsage) -> ModelUsage:
        priced = self.spend_usd is not None and other.spend_usd is not None
        return ModelUsage(
            engine=self.engine,
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            spend_usd=(self.spend_usd or 0.0) + (other.spend_usd or 0.0) if priced else None,
            price_source=join_price_sources(self.price_source, other.price_source)
            if priced
            else None,
        )


PRICE_SOURCE_SEPARATOR = "; "


def split_price_sources(*joined: str | None) -> tuple[str, ...]:
    """Each price source named in `joined` (sources as `ModelUsage` joins them), once."""
    parts = (p for j in joined if j for p in j.split(PRICE_SOURCE_SEPARATOR))
    return tuple(dict.fromkeys(parts))


def join_price_sources(*sources: str | None) -> str | None:
    return PRICE_SOURCE_SEPARATOR.join(split_price_sources(*sources)) or None


@dataclass(frozen=True)
class Advice(Generic[T]):
    """A role's output and what producing it cost."""

    value: T
    usage: ModelUsage


FailureKind = Literal["agent", "budget"]


class AgentFailure(Exception):
    """A role gave up: `reason` is one sentence a reader can understand; `kind` is "budget"
    when the run's limits stopped the call before it was sent, "agent" otherwise."""

    def __init__(
        self, role: str, reason: str, usage: ModelUsage, kind: FailureKind = "agent"
    ) -> None:
        super().__init__(reason)
        self.role = role
        self.reason = reason
        self.usage = usage
        self.kind: FailureKind = kind


@dataclass(frozen=True)
class RecordedReply:
    """A model reply kept in a run's ledger: the role's typed output as JSON, and its cost."""

    output: str
    usage: ModelUsage


class CallLedger(Protocol):
    """Where a stored run's model tries are recorded as they return (`runs/ledger.py`).

    `key` names a call by what it sends (role, engine, prompt, and how many times this run
    asked the same); a stage re-run after a crash asks again under the same key and gets the
    recorded reply instead of paying for it twice.
    """

    def key(self, role: str, engine: str, prompt: str) -> str: ...

    def reply(self, key: str) -> RecordedReply | None: ...

    def record(self, key: str, role: str, usage: ModelUsage, output: str | None) -> None:
        """Record one try: a reply's output, or None for a try that failed."""
        ...


class RunBudget:
    """What one run may spend across all roles (thread-safe): model calls, tokens, the
    estimated spend in USD (None: no cap) and active seconds (None: no limit).

    Callers reserve before each model call (`agents/calls.py`) and `charge` what the call
    really used afterwards. Active seconds are the stages' own time: `add_seconds` after
    each stage, plus the time since the current stage began (`begin_stage`). A resumed run
    starts from what its ledger and recorded stages spent, so a restart hands it no fresh
    budget. `ledger` is the stored run's record of its calls (None: a run kept in memory).
    """

    def __init__(
        self,
        max_calls: int,
        max_tokens: int,
        max_spend_usd: float | None = None,
        max_seconds: float | None = None,
        *,
        ledger: CallLedger | None = None,
    ) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.max_spend_usd = max_spend_usd
        self.max_seconds = max_seconds
        self.ledger = ledger
        self.calls = 0
        self.tokens = 0
        self.spend_usd = 0.0
        self.seconds = 0.0
        self._stage_began: float | None = None
        self._lock = threading.Lock()

    def remaining(self) -> tuple[int, int]:
        with self._lock:
            return max(self.max_calls - self.calls, 0), max(self.max_tokens - self.tokens, 0)

    def charge(self, calls: int, tokens: int, spend_usd: float = 0.0) -> None:
        with self._lock:
            self.calls += calls
            self.tokens += tokens
            self.spend_usd += spend_usd

    def spend_left(self) -> float | None:
        with self._lock:
            if self.max_spend_usd is None:
                return None
            return max(self.max_spend_usd - self.spend_usd, 0.0)

    def begin_stage(self) -> None:
        with self._lock:
            self._stage_began = time.monotonic()

    def add_seconds(self, seconds: float) -> None:
        """A stage ended after `seconds` (or a resumed run's recorded stages took them)."""
        with self._lock:
            self.seconds += seconds
            self._stage_began = None

    def seconds_left(self) -> float | None:
        with self._lock:
            if self.max_seconds is None:
                return None
            running = 0.0 if self._stage_began is None else time.monotonic() - self._stage_began
            return max(self.max_seconds - self.seconds - running, 0.0)


class Planner(Protocol):
    """Turns a question into sub-questions, time windows and at most 3 queries.

    `earlier`: the questions asked before it in the same conversation, oldest first (data,
    like the question): a follow-up's pronouns and elided subject are resolved against them,
    and the plan records what was resolved (`Plan.resolved_question`). A run asked outside
    a conversation passes none (and may call a planner without the argument).
    """

    engine_id: str

    def plan(
        self,
        question: str,
        profile: ArchiveProfile,
        budget: RunBudget,
        earlier: Sequence[str] = (),
    ) -> Advice[Plan]: ...


class Answerer(Protocol):
    """Writes a grounded draft: every sentence cites `[S#]`; quotes in double quotes."""

    engine_id: str

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]: ...


class Auditor(Protocol):
    """Gives each claim a verdict with evidence passage ids. Advice only."""

    engine_id: str

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]: ...


class Teacher(Protocol):
    """Proposes a lesson of a published answer: blocks citing `[S#]` and typed relations,
    from the answer's kept claims and its retained sources alone. Advice only: the teaching
    review decides what a reader sees (`runs/teach.py`)."""

    engine_id: str

    def teach(
        self,
        question: str,
        claims: Sequence[Claim],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[Lesson]: ...
