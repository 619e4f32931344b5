"""The façade: the one object the command line calls, and the web app starts from.

`Desk` is one data directory's desk: ingest, ask, runs, `check`, receipts, evaluation, doctor
and status. Its parts (the archive store, the hybrid index, the embedding model, the agents,
the signing key, the run records) are built in `parts.py` and open lazily, so `evidence-desk
receipt verify` never loads a model and `ask` never rebuilds an index that is current. Runs
are opened and read through `running.py`, which the workspace shares. The index is derived
data: whenever the store's generation moved past the index's, it is rebuilt from the store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from ..agents import probe
from ..agents.doctor import DoctorReport, diagnose
from ..agents.offline.planner import OfflinePlanner
from ..agents.probe import EngineProbe as EngineProbe
from ..agents.probe import ProbePlan
from ..agents.registry import ROLES, Agents
from ..archive.ingest import IngestError, IngestProgress, IngestSummary, ingest
from ..archive.loaders import iter_documents
from ..archive.results import LoadResult, published_by
from ..archive.sample import SAMPLES, SampleError, load_sample
from ..clock import Clock
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
from ..runs.loop import OnEvent, StoredExecutor
from ..runs.pipeline import Pipeline
from ..runs.publish import Publisher
from ..runs.records import RunSummary
from ..settings import Settings
from ..store.embedding_cache import EmbeddingCache
from ..store.protocol import Store
from ..store.rows import RunOwner
from ..store.runs import RunRecords, StoredEvent, StoredRun
from ..trust.signing import (
    key_id_for,
    public_key_b64,
    raw_public_key,
)
from ..types import GatePolicy, Receipt
from .archive import PREPARING_KEY, DeskArchive
from .drafts import DraftFileError, DraftInput, check_drafts, question_reader, read_drafts
from .embedding import DeskEmbedding, Estimate, ReembedSummary
from .parts import Parts
from .preparing import SamplePreparation
from .receipts import ChainOutcome, ReceiptChecker, VerifyOutcome
from .running import AskResult, Runs
from .web import DeskWeb, FetchReport
from .workspace import Workspace

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


class Desk:
    """Evidence Desk on one data directory.

    Its parts (`parts.py`) open lazily from the settings; `store`, `embedder` and `agents`
    may be given instead (tests, benches, an app that shares one embedder between desks),
    and `clock`, which every run's times and the run records' leases read (`clock.py`).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        agents: Agents | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.parts = Parts(
            self.settings, store=store, embedder=embedder, agents=agents, clock=clock
        )
        self.clock: Clock = self.parts.clock
        self._runs = Runs(self.parts)

    # ------------------------------------------------------------------ parts (`parts.py`)

    @property
    def store(self) -> Store:
        return self.parts.store

    @property
    def embedding(self) -> DeskEmbedding:
        return self.parts.embedding

    @property
    def embedder(self) -> Embedder:
        return self.parts.embedder

    @property
    def judge_embedder(self) -> Embedder:
        return self.parts.judge_embedder

    @property
    def archive(self) -> DeskArchive:
        return self.parts.archive

    @property
    def policy(self) -> GatePolicy:
        return self.parts.policy

    @property
    def agents(self) -> Agents:
        return self.parts.agents

    @property
    def pipeline(self) -> Pipeline:
        return self.parts.pipeline

    @property
    def web(self) -> DeskWeb:
        return self.parts.web

    @property
    def key(self) -> Any:
        return self.parts.key

    @property
    def publisher(self) -> Publisher:
        return self.parts.publisher

    @property
    def run_records(self) -> RunRecords:
        return self.parts.run_records

    @property
    def executor(self) -> StoredExecutor:
        """The executor the settings name (`parts.py`)."""
        return self.parts.executor

    @cached_property
    def workspace(self) -> Workspace:
        """Readers, editors, sessions, conversations, reviews, the kill switch (`workspace/`),
        on this desk's parts and runs."""
        return Workspace(self.parts, self._runs)

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
        return self.parts.given_embedder

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
        self.parts.preparation = preparation
        preparation.start()
        return preparation

    @property
    def preparation(self) -> SamplePreparation | None:
        return self.parts.preparation

    def stop_preparation(self) -> None:
        """Stops a preparation still under way and waits for it: nothing half-stored stays."""
        if self.parts.preparation is not None:
            self.parts.preparation.stop()

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
        if self.parts.given_embedder is not None:
            return
        name = self.embedding.target() if reembed else self.embedding.bulk_name()
        if not reembed:
            self.embedding.check_ingest(name)
        self.embedding.prepare(name, notice)

    def reembed(self, progress: Callable[[int, int], None] | None = None) -> ReembedSummary:
        """Re-embeds every passage with the settings' embedder (`auto`: the default one)."""
        summary = self.embedding.reembed(self.embedding.target(), progress)
        self.parts.forget_embedders()
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
        given = self.parts.given_embedder
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

    # ------------------------------------------------------------------ ask (`running.py`)

    def require_archive(self, question: str = "", mode: str = "quick") -> None:
        """Refuses a question the archive cannot answer yet: empty, or still being prepared
        (`ArchivePreparing`, carrying the question, here or in another process)."""
        self._runs.require_archive(question, mode)

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
        return self._runs.start(
            question, mode=mode, on_event=on_event, attachments=attachments, thread=thread
        )

    def submit(
        self,
        question: str,
        *,
        mode: str = "quick",
        owned_by: RunOwner | None = None,
        attachments: Sequence[str] = (),
        thread: Sequence[str] = (),
    ) -> str:
        """Open a run and return its id at once, queued; `execute` runs it (the web app's
        executor). `owned_by`: whose it is, written in the transaction that opens it;
        `thread`: the earlier questions of its conversation, oldest first."""
        return self._runs.submit(
            question, mode=mode, owned_by=owned_by, attachments=attachments, thread=thread
        )

    def execute(self, run_id: str) -> None:
        """Run a submitted (or interrupted) run to its end in this thread."""
        self._runs.execute(run_id)

    def warm(self) -> None:
        """Open every part a run needs now, in this thread, so concurrent runs share them
        (the web app calls this before it serves)."""
        self.require_archive()
        self.open_parts()

    def open_parts(self) -> None:
        """`warm` without asking whether the archive is ready (a preparation's last step)."""
        self.parts.open()
        _ = self.workspace

    # ------------------------------------------------------------------ runs (`running.py`)

    def resume(self, run_id: str, *, on_event: OnEvent | None = None) -> AskResult:
        """Continue a stored run from the stage it was in (its worker died or was stopped)."""
        return self._runs.resume(run_id, on_event=on_event)

    def explain(
        self, run_id: str, *, on_event: OnEvent | None = None, illustrate: bool = False
    ) -> AskResult:
        """The lesson of the published answer `run_id` (`runs/teach.py`): its saved lesson
        as it is, else an explanation run of its own, stored as it goes and taken to its end;
        the result is the lesson's receipt (the answer's, with its `teaching` section).

        `illustrate`: give the lesson a picture (`runs/illustrate.py`), only on this explicit
        request and only with `EVIDENCE_DESK_ILLUSTRATOR` set (else a `DeskError`). A saved
        lesson that was asked to illustrate is returned as it is, with no model call; one
        that was not is explained again by a new run that illustrates."""
        return self._runs.explain(run_id, on_event=on_event, illustrate=illustrate)

    def cancel(self, run_id: str) -> StoredRun:
        """Stop a running run before its next stage; a finished run is left as it is."""
        return self._runs.cancel(run_id)

    def runs(self, state: str | None = None, limit: int = 50) -> list[RunSummary]:
        """The newest runs first with their display state (`runs/records.py`), only those
        in `state` when given."""
        return self._runs.recent(state, limit)

    def run_record(self, run_id: str) -> dict[str, Any]:
        """One run as stored: its row, each finished stage's record, and its state."""
        return self._runs.record(run_id)

    def runs_state(self, run_id: str) -> str:
        """A stored run's display state now (`runs/records.py`)."""
        return self._runs.state(run_id)

    def run_events(self, run_id: str, after: int = 0) -> list[StoredEvent]:
        return self._runs.events(run_id, after)

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
            if not events and self.runs_state(run_id) != "running":
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

    def document_count(self) -> int:
        """How many documents the archive holds; 0 before the first ingest, without
        creating the archive."""
        return self.store.count_documents() if self.settings.db_path.exists() else 0

    def passage_count(self) -> int:
        """How many passages the archive holds; 0 before the first ingest, without
        creating the archive."""
        return self.store.count_passages() if self.settings.db_path.exists() else 0

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
