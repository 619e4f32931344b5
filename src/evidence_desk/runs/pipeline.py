"""One archive, one set of agents, one policy: the parts every run of a desk shares.

`Pipeline` hands each run its `Deps` (`deps.py`: the parts plus a fresh budget) and runs
questions in memory (`run`, for evaluation; `gather`, the stages before any agent writes).
The stages themselves are `stages.py`; storing a run as it goes is `loop.StoredExecutor`;
sealing and signing is `publish.py`. The result of `run` is an unsealed receipt.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..agents.base import Answerer, Auditor, Planner, RunBudget
from ..clock import Clock, iso_us, system_clock
from ..types import Coverage, Document, EngineIds, Plan, Receipt, Source
from .deps import ArchiveAccess, Deps, PipelineConfig
from .effects import WebParts
from .loop import drive
from .stages import fallback_plan, receipt_of
from .state import Mode, RunState
from .teach import TeachingParts


def new_run_id(now: datetime) -> str:
    return now.strftime("run-%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]


@dataclass(frozen=True)
class Gathered:
    """What a run knows before any agent writes."""

    plan: Plan
    sources: list[Source]
    documents: dict[str, Document]
    coverage: Coverage | None  # None only when the run failed before the coverage stage


class Pipeline:
    """Runs questions against one archive with one set of agents and one policy."""

    def __init__(
        self,
        archive: ArchiveAccess,
        planner: Planner,
        answerer: Answerer,
        auditor: Auditor,
        config: PipelineConfig,
        *,
        clock: Clock = system_clock,
        web: WebParts | None = None,
        teaching: TeachingParts | None = None,
    ) -> None:
        """`clock`: what each run's id, created time and stage starts are read from; `web`:
        what runs reach beyond the archive with (None: the archive alone)."""
        self.archive = archive
        self.web = web
        self.teaching = teaching
        self.clock = clock
        self.planner = planner
        self.answerer = answerer
        self.auditor = auditor
        self.config = config

    @property
    def engine(self) -> EngineIds:
        return self.deps().engine

    def budget(self) -> RunBudget:
        c = self.config
        return RunBudget(
            c.max_model_calls, c.max_model_tokens, c.max_spend_usd, c.max_active_seconds
        )

    def deps(self, budget: RunBudget | None = None) -> Deps:
        """The parts for one run, with `budget` (a fresh one by default)."""
        return Deps(
            self.archive,
            self.planner,
            self.answerer,
            self.auditor,
            self.config,
            budget or self.budget(),
            clock=self.clock,
            web=self.web,
            teaching=self.teaching,
        )

    def opening(
        self,
        question: str,
        mode: str = "quick",
        attachments: Sequence[str] = (),
        *,
        thread: Sequence[str] = (),
    ) -> RunState:
        """A new run's state: its id and time minted now, before any stage. `attachments`:
        snapshot ids of files the reader attached (`Desk.attach`); `thread`: the earlier
        questions of its conversation, oldest first (what a follow-up is planned against)."""
        kind: Mode = "deep" if mode == "deep" else "quick"
        now = self.clock()
        return RunState.opening(
            new_run_id(now), iso_us(now), question, kind, attachments, thread=thread
        )

    def explaining(
        self, answer_run_id: str, question: str, *, illustrate: bool = False
    ) -> RunState:
        """A new explanation run of the published answer `answer_run_id` (`teach.py`),
        asked to illustrate its lesson when `illustrate` (`illustrate.py`)."""
        now = self.clock()
        return RunState.explaining(
            new_run_id(now), iso_us(now), question, answer_run_id, illustrate=illustrate
        )

    def gather(self, question: str, *, mode: str = "quick") -> Gathered:
        """The stages before any agent writes: plan, retrieve, select, coverage."""
        state = drive(self.opening(question, mode), self.deps(), until=("answer", "gate"))
        sources = list(state.sources or ())
        documents = self.archive.documents([s.doc_id for s in sources]) if sources else {}
        plan = state.plan or fallback_plan(question, mode)
        return Gathered(plan, sources, documents, state.coverage)

    def run(
        self, question: str, *, mode: str = "quick", attachments: Sequence[str] = ()
    ) -> Receipt:
        """One run in memory, up to its gate: the unsealed receipt."""
        deps = self.deps()
        state = drive(self.opening(question, mode, attachments), deps, until=("publish",))
        return receipt_of(state, deps.engine, self.config.policy)
