"""The parts a run is given and what a stage gives back: the types every stage shares.

A stage function (`StageFunction`) reads a `RunState` and the run's parts (`Deps`) and returns
a `Step`: the fields it sets, the stage after it, and what its agent cost. The parts are the
archive as the run sees it (`ArchiveAccess`), the agents, the desk's policy and bounds
(`PipelineConfig`), the run's budget, and its web parts when it reaches beyond the archive
(`effects.WebParts`). The stages are `stages.py` and `web.py`; `Pipeline` (`pipeline.py`)
hands each run its `Deps`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .. import judgment
from ..agents.base import Answerer, ArchiveProfile, Auditor, ModelUsage, Planner, RunBudget
from ..clock import Clock, system_clock
from ..retrieval.coverage import ArchiveStats
from ..types import Document, EngineIds, GatePolicy, Hit, Source, TimeWindow
from .effects import WebParts
from .selection import SelectionBounds
from .state import RunState

if TYPE_CHECKING:
    from .teach import TeachingParts


class ArchiveAccess(Protocol):
    """What a run needs from the archive (the desk provides it)."""

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]: ...

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]: ...

    def texts(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The text each (doc_id, content hash) names, current or kept since a re-ingest."""
        ...

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
    max_spend_usd: float | None = None
    max_active_seconds: float | None = None
    relative_date_reach_days: int = 0  # `retrieve.reach_windows`; 0: the plan's windows


@dataclass
class Deps:
    """The parts one run uses. `texts` caches stored texts by (doc_id, content hash);
    `clock` dates the stages' starts and the sources' retrieval."""

    archive: ArchiveAccess
    planner: Planner
    answerer: Answerer
    auditor: Auditor
    config: PipelineConfig
    budget: RunBudget
    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    clock: Clock = system_clock
    web: WebParts | None = None
    teaching: TeachingParts | None = None

    @property
    def engine(self) -> EngineIds:
        return EngineIds(
            planner=self.planner.engine_id,
            answerer=self.answerer.engine_id,
            auditor=self.auditor.engine_id,
        )

    def source_texts(self, sources: Sequence[Source]) -> dict[str, str]:
        """Each source's stored text (the one its content hash names), by source id
        (`judgment.source_texts`), looked up in `texts` first."""
        return judgment.source_texts(sources, self._texts)

    def _texts(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        wanted = list(pairs)
        missing = [p for p in wanted if p not in self.texts]
        if missing:
            self.texts.update(self.archive.texts(missing))
        return {p: self.texts[p] for p in wanted if p in self.texts}


@dataclass(frozen=True)
class Step:
    """What a stage did: the fields it sets, the stage after it, and its agent's cost."""

    updates: Mapping[str, Any]
    next_stage: str | None
    usage: ModelUsage | None = None
    error: str | None = None


# A stage: the state it is at and the run's parts in, what it did out (`stages.run_stage`).
StageFunction = Callable[[RunState, Deps], Step]
