"""The one place that builds a desk's parts, from its settings or from what it was given.

`Desk` (`facade.py`) and `Workspace` (`workspace/`) are both built on one `Parts`: the
archive store, the embedders, the hybrid index, the agents, the pipeline, the web parts, the
signing key, the publisher, the run records and the executor. Each opens lazily on first use,
so `evidence-desk receipt verify` never loads a model and `ask` never rebuilds an index that
is current; `store`, `embedder` and `agents` may be given instead (tests, benches, an app
that shares one embedder between desks), and `clock`, which every run's times and the run
records' leases read (`clock.py`).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..agents.registry import Agents
from ..agents.registry import resolve as resolve_agents
from ..clock import Clock, system_clock
from ..errors import DeskError
from ..retrieval.embedder import Embedder
from ..runs.deps import PipelineConfig, StageFunction
from ..runs.illustrate import IllustrationParts
from ..runs.loop import StoredExecutor
from ..runs.pipeline import Pipeline
from ..runs.publish import Publisher
from ..runs.selection import SelectionBounds
from ..runs.stages import STAGE_FUNCTIONS
from ..runs.teach import TeachingParts
from ..settings import Settings
from ..store.protocol import Store
from ..store.runs import RunRecords
from ..store.sqlite import ArchiveStore
from ..trust.signing import load_or_create_key
from ..types import GatePolicy, Receipt
from .archive import DeskArchive
from .embedding import DeskEmbedding
from .web import DeskWeb

if TYPE_CHECKING:
    from .preparing import SamplePreparation

# What an embedder change makes stale (`forget_embedders`): everything that embeds or holds
# an embedder.
EMBEDDING_PARTS = ("embedder", "judge_embedder", "archive", "agents", "pipeline", "web")


class Parts:
    """The parts of one desk on one data directory, each built on first use."""

    preparation: SamplePreparation | None = None  # the sample being prepared here, if any

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        agents: Agents | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.clock: Clock = clock or system_clock
        self.given_embedder = embedder  # what ingests embed with too (None: the archive's own)
        given = {"store": store, "embedder": embedder, "agents": agents}
        self.__dict__.update({name: part for name, part in given.items() if part is not None})

    @cached_property
    def store(self) -> Store:
        self.settings.home.mkdir(parents=True, exist_ok=True)
        return ArchiveStore(self.settings.db_path)  # StoreError, SchemaError: a DeskError

    @cached_property
    def embedding(self) -> DeskEmbedding:
        """Which embedder this archive uses, ingest's workers, estimates, `reembed`."""
        return DeskEmbedding(self.settings, self.store)

    @cached_property
    def embedder(self) -> Embedder:
        """The archive's own embedder, in process, for its queries (`embedding.py`).

        One thread: a query is a few dozen tokens, and with two threads each call
        measured up to ~0.5 s at p95 whenever another process held a core.
        """
        return self.embedding.query

    @cached_property
    def judge_embedder(self) -> Embedder:
        """What the offline answerer and auditor and web-page scoring embed with: fp32."""
        if self.given_embedder is not None:
            return self.given_embedder
        return self.embedding.judge

    @cached_property
    def archive(self) -> DeskArchive:
        return DeskArchive(self.store, self.settings, lambda: self.embedder)

    @cached_property
    def policy(self) -> GatePolicy:
        s = self.settings
        return GatePolicy(
            coverage_floor=s.coverage_floor,
            max_pruned_fraction=s.max_pruned_fraction,
            grounding=s.grounding,
        )

    @cached_property
    def agents(self) -> Agents:
        """The planner, answerer and auditor on the engines the settings name."""
        try:
            return resolve_agents(self.settings, self.judge_embedder)
        except ValueError as exc:
            raise DeskError(str(exc)) from exc

    @cached_property
    def pipeline(self) -> Pipeline:
        agents = self.agents
        s = self.settings
        config = PipelineConfig(
            policy=self.policy,
            bounds=SelectionBounds(s.max_sources, s.passages_per_source),
            rare_term_max_df=s.rare_term_max_df,
            common_zipf=s.common_zipf,
            max_model_calls=s.max_model_calls,
            max_model_tokens=s.max_model_tokens,
            max_spend_usd=s.max_run_spend_usd,
            max_active_seconds=s.max_active_seconds,
            relative_date_reach_days=s.relative_date_reach_days,
        )
        return Pipeline(
            self.archive,
            agents.planner,
            agents.answerer,
            agents.auditor,
            config,
            clock=self.clock,
            web=self.web.parts(),
            teaching=TeachingParts(
                agents.teacher, self.answer_receipt, illustration=self.illustration
            ),
        )

    @property
    def illustration(self) -> IllustrationParts | None:
        """The illustrate stage's parts: the illustrator the settings name and where shown
        pictures are kept; None when illustrations are off (`EVIDENCE_DESK_ILLUSTRATOR`)."""
        illustrator = self.agents.illustrator
        if illustrator is None:
            return None
        return IllustrationParts(illustrator, self.settings.illustrations_dir)

    def answer_receipt(self, run_id: str) -> Receipt | None:
        """The sealed receipt of run `run_id`, parsed; None when it has none."""
        stored = self.store.get_receipt(run_id)
        return None if stored is None else Receipt.model_validate_json(stored.json)

    @cached_property
    def web(self) -> DeskWeb:
        """Web search, safe fetch, reading, attachments and snapshots (`web.py`)."""
        return DeskWeb(self.settings, self.store, self.judge_embedder, self.clock)

    @cached_property
    def key(self) -> Any:
        return load_or_create_key(self.settings.key_path)

    @cached_property
    def publisher(self) -> Publisher:
        return Publisher(self.store, lambda: self.key, self.settings.receipts_dir)

    @cached_property
    def run_records(self) -> RunRecords:
        """The stored runs, their times read from the desk's clock."""
        return self.store.runs_on(self.clock)

    @cached_property
    def executor(self) -> StoredExecutor:
        """The executor the settings name; both store the same records (`runs/graph.py`)."""
        s = self.settings
        executor = StoredExecutor(self.run_records, lease_seconds=s.run_lease_seconds)
        if s.executor == "langgraph":
            from ..runs.graph import GraphExecutor

            executor = GraphExecutor(
                self.run_records, s.graph_db_path, lease_seconds=s.run_lease_seconds
            )
        executor.max_running = s.max_concurrent_runs
        return executor

    @property
    def stage_functions(self) -> dict[str, StageFunction]:
        return {**STAGE_FUNCTIONS, "publish": self.publisher.stage}

    def forget_embedders(self) -> None:
        """Drops every part built on the embedders (after `reembed`): each is built again,
        on the settings' embedder, when next used."""
        for name in EMBEDDING_PARTS:
            self.__dict__.pop(name, None)

    def open(self) -> None:
        """Every part a run needs, opened now in this thread (the index brought up to date),
        so concurrent runs share them."""
        self.archive.refresh()
        _ = self.pipeline, self.key, self.executor
        self.embedder.embed(["warm"])
