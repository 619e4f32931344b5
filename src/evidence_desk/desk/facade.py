"""The façade: the one object the command line (and later the web app) calls.

`Desk` owns the settings, the archive store, the hybrid index, the embedding model, the
agents and the desk's signing key, and opens each lazily, so `evidence-desk receipt verify`
never loads a model and `ask` never rebuilds an index that is current. The index is derived
data: whenever the store's generation moved past the index's, it is rebuilt from the store.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents import probe
from ..agents.doctor import DoctorReport, diagnose
from ..agents.offline.planner import OfflinePlanner
from ..agents.probe import EngineProbe as EngineProbe
from ..agents.probe import ProbePlan
from ..agents.registry import ROLES, Agents
from ..agents.registry import resolve as resolve_agents
from ..archive.ingest import IngestError, IngestProgress, IngestSummary, ingest
from ..archive.loaders import iter_documents
from ..archive.results import LoadResult, published_by
from ..archive.sample import SAMPLES, SampleError, load_sample
from ..clock import Clock, system_clock
from ..errors import DeskError
from ..evaluation.questions import (
    BUNDLED_ARCHIVES,
    Question,
    QuestionFileError,
    bundled_questions,
    load_questions,
)
from ..evaluation.runner import evaluate
from ..judgment import QuestionReader
from ..retrieval.coverage import SubjectRule
from ..retrieval.embedder import Embedder
from ..retrieval.parallel import ParallelEmbedder
from ..runs.loop import OnEvent, StoredExecutor, is_dead, quiet
from ..runs.pipeline import Pipeline, PipelineConfig
from ..runs.publish import Publisher
from ..runs.records import DISPLAY_STATES, RunSummary, run_json, summarize
from ..runs.selection import SelectionBounds
from ..runs.stages import STAGE_FUNCTIONS, StageFunction
from ..settings import Settings
from ..store.embedding_cache import EmbeddingCache
from ..store.runs import LeaseLost, RunNotFound, RunRecords, StoredEvent, StoredRun
from ..store.sqlite import ArchiveStore
from ..trust.signing import (
    key_id_for,
    load_or_create_key,
    public_key_b64,
    raw_public_key,
)
from ..types import GatePolicy, Receipt
from .archive import PREPARING_KEY, DeskArchive
from .drafts import DraftFileError, DraftInput, check_drafts, question_reader, read_drafts
from .embedding import DeskEmbedding, Estimate, ReembedSummary
from .preparing import SamplePreparation, unfinished
from .receipts import ChainOutcome, ReceiptChecker, VerifyOutcome
from .web import DeskWeb, FetchReport

MAX_PUBLISHER_CHARS = 100


def publisher_name(given: str) -> str:
    """The publisher an operator gave `ingest`, its white space runs made one space; a
    `DeskError` when it is empty, longer than `MAX_PUBLISHER_CHARS` or not printable."""
    name = " ".join(given.split())
    if not name or len(name) > MAX_PUBLISHER_CHARS or not name.isprintable():
        raise DeskError(
            f"A publisher is a name of 1 to {MAX_PUBLISHER_CHARS} printable characters."
        )
    return name


if TYPE_CHECKING:
    from .workspace import Workspace


@dataclass(frozen=True)
class AskResult:
    receipt: dict[str, Any]
    path: Path | None


class Desk:
    """Evidence Desk on one data directory.

    Its parts open lazily from the settings; `store`, `embedder` and `agents` may be given
    instead (tests, benches, an app that shares one embedder between desks), and `clock`,
    which every run's times and the run records' leases read (`clock.py`).
    """

    _preparation: SamplePreparation | None = None  # `prepare_sample`'s, once it was called

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: ArchiveStore | None = None,
        embedder: Embedder | None = None,
        agents: Agents | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.clock: Clock = clock or system_clock
        self._given_embedder = embedder
        given = {"store": store, "embedder": embedder, "agents": agents}
        self.__dict__.update({name: part for name, part in given.items() if part is not None})

    # ------------------------------------------------------------------ parts, opened lazily

    @cached_property
    def store(self) -> ArchiveStore:
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
        if self._given_embedder is not None:
            return self._given_embedder
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
        )

    @cached_property
    def web(self) -> DeskWeb:
        """Web search, safe fetch, reading, attachments and snapshots (`web.py`)."""
        return DeskWeb(self.settings, self.store, self.judge_embedder, self.clock)

    def fetch_page(self, url: str, question: str | None = None) -> FetchReport:
        """One URL through the runs' own safe fetch and reader; nothing is stored."""
        return self.web.fetch_report(url, question)

    def attach(self, paths: Sequence[Path]) -> list[str]:
        """Read files a reader attaches to a question; their snapshot ids, for `ask`."""
        return [self.web.attach(p) for p in paths]

    # ------------------------------------------------------------------ ingest

    @property
    def given_embedder(self) -> Embedder | None:
        """The embedder this desk was given, which its ingests embed with too (None: the
        archive's own, with worker processes)."""
        return self._given_embedder

    def needs_preparation(self) -> bool:
        """True when the archive holds no document, or an earlier preparation of a sample
        stopped before its last document was stored (`preparing.py`)."""
        if not self.settings.db_path.exists():
            return True
        return self.store.count_documents() == 0 or bool(self.store.get_meta(PREPARING_KEY))

    def prepare_sample(
        self, name: str, *, load: Callable[[], Sequence[LoadResult]] | None = None
    ) -> SamplePreparation:
        """Starts preparing the bundled sample `name` on a background thread and returns at
        once (`preparing.py`); until it is ready, asking is refused with `ArchivePreparing`.
        `load` reads other documents in its place (a test's small archive)."""
        if load is None and name not in SAMPLES:
            raise DeskError(f"Unknown sample {name!r}; available samples: {', '.join(SAMPLES)}.")
        preparation = SamplePreparation(self, name, load=load)
        self._preparation = preparation
        preparation.start()
        return preparation

    @property
    def preparation(self) -> SamplePreparation | None:
        return self._preparation

    def stop_preparation(self) -> None:
        """Stops a preparation still under way and waits for it: nothing half-stored stays."""
        if self._preparation is not None:
            self._preparation.stop()

    def ingest(
        self,
        paths: Sequence[Path],
        progress: Callable[[IngestProgress], None] | None = None,
        *,
        publisher: str | None = None,
    ) -> IngestSummary:
        """Ingest `paths`; `publisher`: who published their documents, kept as each one's
        `publisher` metadata unless its own names one (a name frames may use)."""
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise DeskError(f"{missing[0]} does not exist.")
        results = iter_documents(list(paths))
        if publisher is not None:
            results = published_by(results, publisher_name(publisher))
        return self._ingest(results, progress)

    def ingest_sample(
        self, name: str, progress: Callable[[IngestProgress], None] | None = None
    ) -> IngestSummary:
        try:
            results = list(load_sample(name))
        except SampleError as exc:
            raise DeskError(str(exc)) from exc
        summary = self._ingest(results, progress)
        if self.store.get_meta(PREPARING_KEY) == name:  # a preparation it has finished
            self.store.set_meta(PREPARING_KEY, "")
        return summary

    def ingest_estimate(self, name: str) -> Estimate | None:
        """How long ingesting the bundled sample `name` would embed for (None: short)."""
        try:
            results = list(load_sample(name))
        except SampleError as exc:
            raise DeskError(str(exc)) from exc
        bulk = self.embedding.bulk_name()
        return self.embedding.estimate(list(self.embedding.to_embed(results, bulk).values()), bulk)

    def ingest_estimate_paths(self, paths: Sequence[Path]) -> Estimate | None:
        """About how long ingesting `paths` would embed for (None: short), judged from an
        even sample of their files (`DeskEmbedding.estimate_files`)."""
        return self.embedding.estimate_files(paths, self.embedding.bulk_name())

    def prepare_embedder(self, notice: Callable[[str], None], *, reembed: bool = False) -> None:
        """Builds the model file the next ingest (or `reembed`) embeds with, when this
        machine has none yet, telling `notice` first (`DeskEmbedding.prepare`). An ingest
        that would be refused (another embedder's archive) is refused here, before a build."""
        if self._given_embedder is not None:
            return
        name = self.embedding.target() if reembed else self.embedding.bulk_name()
        if not reembed:
            self.embedding.check_ingest(name)
        self.embedding.prepare(name, notice)

    def reembed(self, progress: Callable[[int, int], None] | None = None) -> ReembedSummary:
        """Re-embeds every passage with the settings' embedder (`auto`: the default one)."""
        summary = self.embedding.reembed(self.embedding.target(), progress)
        for name in ("embedder", "judge_embedder", "archive", "agents", "pipeline", "web"):
            self.__dict__.pop(name, None)
        self.archive.refresh()
        return summary

    def reembed_estimate(self) -> Estimate | None:
        _, texts = self.store.passage_texts()
        return self.embedding.estimate(list(texts.values()), self.embedding.target())

    def _ingest(
        self, results: Any, progress: Callable[[IngestProgress], None] | None
    ) -> IngestSummary:
        loaded: Sequence[LoadResult] = results
        s = self.settings
        cache = EmbeddingCache(s.cache_dir) if s.cache_dir else None
        # A desk given its embedder embeds its archive with it too (vectors must agree).
        given = self._given_embedder
        name = self.embedding.bulk_name()
        if given is None:
            self.embedding.check_ingest(name)
        bulk: Embedder = given or self.embedding.bulk(name)
        started = time.perf_counter()
        try:
            summary = ingest(
                loaded,
                self.store,
                bulk,
                target_words=s.passage_words,
                max_words=s.passage_max_words,
                cache=cache,
                on_progress=progress,
            )
        except IngestError as exc:
            raise DeskError(str(exc)) from exc
        finally:
            if isinstance(bulk, ParallelEmbedder):
                bulk.close()
        if given is None:
            self.embedding.record_rate(
                name, summary.passages_embedded, time.perf_counter() - started
            )
        self.archive.refresh()
        return summary

    # ------------------------------------------------------------------ ask

    def require_archive(self, question: str = "", mode: str = "quick") -> None:
        """Refuses a question the archive cannot answer yet: empty, or still being prepared
        (`ArchivePreparing`, carrying the question, here or in another process)."""
        if self._preparation is not None:
            self._preparation.require_ready(question, mode)
        name = self.store.get_meta(PREPARING_KEY)
        if name:
            raise unfinished(self.settings.home, name)
        if self.store.count_documents() == 0:
            raise DeskError(
                f"The archive in {self.settings.home} is empty: run `evidence-desk ingest PATH...` "
                "or `evidence-desk ingest --sample sotu` first."
            )

    def run(
        self, question: str, *, mode: str = "quick", attachments: Sequence[str] = ()
    ) -> Receipt:
        """One run, not sealed or stored (evaluation uses this)."""
        question = question.strip()
        if not question:
            raise DeskError("The question is empty.")
        self.require_archive()
        return self.pipeline.run(question, mode=mode, attachments=attachments)

    def ask(
        self,
        question: str,
        *,
        mode: str = "quick",
        persist: bool = True,
        on_event: OnEvent | None = None,
        attachments: Sequence[str] = (),
        thread: Sequence[str] = (),
    ) -> AskResult:
        """Answer `question`. With `persist` (the default) the run is stored as it goes
        (`runs list` shows it from its first moment) and its receipt is sealed, chained and
        written; `on_event(kind, stage, state)` follows it stage by stage. `attachments`:
        snapshot ids from `attach`, sources of this run alone; `thread`: the earlier
        questions of its conversation, oldest first (stored runs only)."""
        if not persist:
            receipt = self.run(question, mode=mode, attachments=attachments)
            return AskResult(receipt.model_dump(mode="json"), None)
        question = question.strip()
        if not question:
            raise DeskError("The question is empty.")
        self.require_archive()
        state = self.pipeline.opening(question, mode, attachments, thread=thread)
        self._executor.start(
            state,
            self.pipeline.deps(),
            functions=self._stage_functions,
            on_event=on_event or quiet,
        )
        return self._result(state.run_id)

    def submit(
        self,
        question: str,
        *,
        mode: str = "quick",
        also: Callable[[sqlite3.Connection, str], None] | None = None,
        attachments: Sequence[str] = (),
        thread: Sequence[str] = (),
    ) -> str:
        """Open a run and return its id at once, queued; `execute` runs it (the web app's
        executor). `also(db)` is written in the transaction that opens it (its reader);
        `thread`: the earlier questions of its conversation, oldest first, stored with the
        run so a resumed run plans against them too."""
        question = question.strip()
        if not question:
            raise DeskError("The question is empty.")
        self.require_archive(question, mode)
        state = self.pipeline.opening(question, mode, attachments, thread=thread)
        run_id = state.run_id
        self._executor.open(state, also=None if also is None else lambda db: also(db, run_id))
        return run_id

    def execute(self, run_id: str) -> None:
        """Run a submitted (or interrupted) run to its end in this thread."""
        run = self._run_or_fail(run_id)
        if run.status not in ("running", "queued"):
            return
        self._executor.resume(
            run_id, self.pipeline.deps, self.pipeline.budget(), functions=self._stage_functions
        )

    def warm(self) -> None:
        """Open every part a run needs now, in this thread, so concurrent runs share them
        (the web app calls this before it serves)."""
        self.require_archive()
        self.open_parts()

    def open_parts(self) -> None:
        """`warm` without asking whether the archive is ready (a preparation's last step)."""
        self.archive.refresh()
        _ = self.pipeline, self.key, self._executor, self.workspace
        self.embedder.embed(["warm"])

    @cached_property
    def workspace(self) -> Workspace:
        """Readers, editors, sessions, conversations, reviews, the kill switch (`workspace/`)."""
        from .workspace import Workspace

        return Workspace(self)

    @cached_property
    def key(self) -> Any:
        return load_or_create_key(self.settings.key_path)

    # ------------------------------------------------------------------ runs

    @cached_property
    def publisher(self) -> Publisher:
        return Publisher(self.store, lambda: self.key, self.settings.receipts_dir)

    @cached_property
    def run_records(self) -> RunRecords:
        """The stored runs, their times read from the desk's clock."""
        return self.store.runs_on(self.clock)

    @cached_property
    def _executor(self) -> StoredExecutor:
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
    def _stage_functions(self) -> dict[str, StageFunction]:
        return {**STAGE_FUNCTIONS, "publish": self.publisher.stage}

    def _result(self, run_id: str) -> AskResult:
        """The run's sealed receipt and its file, or the run's state when it has none."""
        stored = self.store.get_receipt(run_id)
        if stored is None:
            run = self.run_records.get(run_id)
            raise DeskError(f"Run {run_id} stopped before publishing ({run.status}).")
        return AskResult(json.loads(stored.json), self.publisher.receipt_path(run_id))

    def _run_or_fail(self, run_id: str) -> StoredRun:
        try:
            return self.run_records.get(run_id)
        except RunNotFound:
            raise DeskError(f"There is no run {run_id} in {self.settings.home}.") from None

    def resume(self, run_id: str, *, on_event: OnEvent | None = None) -> AskResult:
        """Continue a stored run from the stage it was in (its worker died or was stopped)."""
        run = self._run_or_fail(run_id)
        if run.status not in ("running", "queued"):
            if run.status == "finished":
                return self._result(run_id)
            raise DeskError(
                f"Run {run_id} was {run.status}; only a running or queued run can resume."
            )
        try:
            self._executor.resume(
                run_id,
                self.pipeline.deps,
                self.pipeline.budget(),
                functions=self._stage_functions,
                on_event=on_event or quiet,
            )
        except LeaseLost as exc:
            raise DeskError(f"{exc} Resume it when that worker has stopped.") from None
        return self._result(run_id)

    def cancel(self, run_id: str) -> StoredRun:
        """Stop a running run before its next stage; a finished run is left as it is."""
        self._run_or_fail(run_id)
        return self.run_records.cancel(run_id)

    def runs(self, state: str | None = None, limit: int = 50) -> list[RunSummary]:
        """The newest runs first with their display state (`runs/records.py`), only those
        in `state` when given."""
        if state is not None and state not in DISPLAY_STATES:
            raise DeskError(f"Unknown run state {state!r}: use one of {', '.join(DISPLAY_STATES)}.")
        now = self.run_records.now()
        summaries = (summarize(r, is_dead, now) for r in self.run_records.recent(limit=10_000))
        return [r for r in summaries if state is None or r.state == state][:limit]

    def run_record(self, run_id: str) -> dict[str, Any]:
        """One run as stored: its row, each finished stage's record, and its state."""
        run = self._run_or_fail(run_id)
        state = self._executor.load(run_id)
        summary = summarize(run, is_dead, self.run_records.now())
        return run_json(summary, state, self.run_records.calls(run_id))

    def runs_state(self, run_id: str) -> str:
        """A stored run's display state now (`runs/records.py`)."""
        return self._state(run_id)

    def _state(self, run_id: str) -> str:
        return summarize(self.run_records.get(run_id), is_dead, self.run_records.now()).state

    def run_events(self, run_id: str, after: int = 0) -> list[StoredEvent]:
        self._run_or_fail(run_id)
        return self.run_records.events(run_id, after)

    def follow_events(
        self, run_id: str, *, follow: bool = False, poll: float = 0.2
    ) -> Iterator[StoredEvent]:
        """A run's events in order; with `follow`, new ones as they are stored, until the run
        is no longer running (finished, cancelled, or its worker died)."""
        after = 0
        while True:
            events = self.run_events(run_id, after)
            yield from events
            after = events[-1].seq if events else after
            if not follow:
                return
            if not events and self._state(run_id) != "running":
                return
            if not events:
                time.sleep(poll)

    # ------------------------------------------------------------------ check

    def check_file(self, path: Path) -> list[dict[str, Any]]:
        """One result per draft of the file, in file order.

        An invalid draft's result is `InvalidDraft.to_json()` (its place, `error`, and
        `decision` null); every other draft is checked.
        """
        try:
            items = read_drafts(path)
        except DraftFileError as exc:
            raise DeskError(str(exc)) from exc
        self.require_archive()
        drafts = [d for d in items if isinstance(d, DraftInput)]
        checked = iter(
            check_drafts(
                drafts,
                self.store,
                self.agents.auditor,
                self.policy,
                self.settings,
                self.question_reader(),
            )
        )
        return [next(checked) if isinstance(d, DraftInput) else d.to_json() for d in items]

    def question_reader(self) -> QuestionReader:
        """How `check` reads a draft's question (`drafts.question_reader`): with the offline
        planner, whatever planner the settings name, and this archive's statistics."""
        profile = self.archive.profile()
        planner = OfflinePlanner()
        s = self.settings
        return question_reader(
            lambda q: planner.plan(q, profile),
            self.archive.stats(),
            SubjectRule(s.rare_term_max_df, s.common_zipf),
            s.relative_date_reach_days,
        )

    # ------------------------------------------------------------------ receipts

    def public_key(self) -> str:
        """This desk's public key in base64, one line of another desk's trusted-keys file."""
        return public_key_b64(self.key)

    def trusted_keys(self, key_files: Sequence[Path] = ()) -> dict[bytes, str]:
        """The public keys receipts may be signed with, each with where it was trusted
        (`receipts.ReceiptChecker.trusted_keys`)."""
        return self._receipts.trusted_keys(key_files)

    def verify_receipt_file(self, path: Path, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        return self._receipts.verify_file(path, key_files=key_files)

    def verify_receipt(self, data: Any, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        """Re-check a parsed receipt against the keys `trusted_keys(key_files)` trusts."""
        return self._receipts.verify(data, key_files=key_files)

    def verify_chain(self, *, key_files: Sequence[Path] = ()) -> ChainOutcome:
        """Every stored receipt in chain order; the first break named."""
        return self._receipts.verify_chain(key_files=key_files)

    @cached_property
    def _receipts(self) -> ReceiptChecker:
        return ReceiptChecker(self.settings, lambda: self.store, lambda: self.key)

    # ------------------------------------------------------------------ evaluation

    def sample_questions(self, name: str) -> list[Question]:
        try:
            return bundled_questions(name)
        except QuestionFileError as exc:
            raise DeskError(str(exc)) from exc

    def require_gold_documents(self, name: str, questions: Sequence[Question]) -> None:
        """Fail in one sentence unless the archive holds a gold document of bundled set `name`."""
        wanted = sorted({doc_id for q in questions for doc_id in q.gold_doc_ids})
        if not wanted:
            return
        if self.settings.db_path.exists() and any(
            self.store.document_sha(doc_id) is not None for doc_id in wanted
        ):
            return
        how = BUNDLED_ARCHIVES.get(name, "evidence-desk ingest PATH...")
        raise DeskError(
            f"The archive in {self.settings.home} holds none of the gold documents of the "
            f"{name!r} question set: run `{how}` first."
        )

    def evaluate(
        self, questions: Path | Sequence[Question], *, mode: str = "quick"
    ) -> dict[str, Any]:
        """Run and score a question set in `mode` (`quick` or `deep`); nothing is stored."""
        if isinstance(questions, Path):
            try:
                questions = load_questions(questions)
            except QuestionFileError as exc:
                raise DeskError(str(exc)) from exc
        self.require_archive()

        def text_of(doc_id: str) -> str | None:
            doc = self.store.get_document(doc_id)
            return None if doc is None else doc.text

        return evaluate(questions, lambda q, m: self.run(q, mode=m), text_of, mode=mode)

    # ------------------------------------------------------------------ doctor

    def doctor(self, timeout: float = 5.0) -> DoctorReport:
        """Each role's engine, key presence, endpoint and price, and what is missing."""
        return diagnose(self.settings, timeout)

    def probe_plan(self) -> ProbePlan:
        """What `probe_engines` would send and cost at most, before it sends anything."""
        return probe.plan(self.settings)

    def probe_engines(self, plan: ProbePlan) -> list[EngineProbe]:
        """One tiny request per engine of `plan`, in the mode a run would use (`doctor
        --probe`): which mode works, and for Ollama whether its context is long enough."""
        return probe.run(self.settings, plan)

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        s = self.settings
        info: dict[str, Any] = {"data directory": str(s.home)}
        if not s.db_path.exists():
            info["archive"] = "empty (nothing ingested yet)"
            return info
        info["documents"] = self.store.count_documents()
        info["passages"] = self.store.count_passages()
        info["generation"] = self.store.generation()
        info["embedder"] = self.embedding.summary()
        index = self.archive.index_if_current()
        info["index"] = f"generation {index.generation}" if index else "stale (rebuilt on next ask)"
        info["receipts"] = sum(1 for _ in self.store.iter_receipts())
        if s.key_path.exists():
            info["signing key"] = key_id_for(raw_public_key(self.key))
        info["engines"] = " ".join(f"{r}={s.engine_name(r)}" for r in ROLES)
        return info
