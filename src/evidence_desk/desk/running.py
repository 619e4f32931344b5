"""Runs on a desk's parts: opening one, executing, resuming, cancelling, and reading them back.

`Desk` (`facade.py`) offers these to the command line and `Workspace` (`workspace/`) to the
web app; both hold the same `Runs`, built on the same `Parts`, so the workspace never reaches
into the desk. A question the archive cannot answer yet (empty, or a sample still being
prepared) is refused here, before any run opens.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DeskError
from ..runs.loop import OnEvent, is_dead, quiet
from ..runs.records import DISPLAY_STATES, RunSummary, run_json, summarize
from ..store.rows import RunOwner
from ..store.runs import LeaseLost, RunNotFound, StoredEvent, StoredRun
from ..types import Decision
from .archive import PREPARING_KEY
from .parts import Parts
from .preparing import unfinished

PUBLISHED = (Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING)
ILLUSTRATIONS_OFF = (
    "Illustrations are off: set EVIDENCE_DESK_ILLUSTRATOR to an image engine "
    "(e.g. openai:gpt-image-1) to illustrate a lesson."
)


@dataclass(frozen=True)
class AskResult:
    receipt: dict[str, Any]
    path: Path | None


class Runs:
    """The runs of one desk, on its parts."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def require_archive(self, question: str = "", mode: str = "quick") -> None:
        """Refuses a question the archive cannot answer yet: empty, or still being prepared
        (`ArchivePreparing`, carrying the question, here or in another process)."""
        p = self.parts
        if p.preparation is not None:
            p.preparation.require_ready(question, mode)
        name = p.store.get_meta(PREPARING_KEY)
        if name:
            raise unfinished(p.settings.home, name)
        if p.store.count_documents() == 0:
            raise DeskError(
                f"The archive in {p.settings.home} is empty: run `evidence-desk ingest PATH...` "
                "or `evidence-desk ingest --sample sotu` first."
            )

    def start(
        self,
        question: str,
        *,
        mode: str,
        on_event: OnEvent | None,
        attachments: Sequence[str],
        thread: Sequence[str],
    ) -> AskResult:
        """Open a run and run it to its end in this thread, stored as it goes."""
        question = _stripped(question)
        self.require_archive()
        p = self.parts
        state = p.pipeline.opening(question, mode, attachments, thread=thread)
        p.executor.start(
            state, p.pipeline.deps(), functions=p.stage_functions, on_event=on_event or quiet
        )
        return self.result(state.run_id)

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
        `thread`: the earlier questions of its conversation, oldest first, stored with the
        run so a resumed run plans against them too."""
        question = _stripped(question)
        self.require_archive(question, mode)
        p = self.parts
        state = p.pipeline.opening(question, mode, attachments, thread=thread)
        p.executor.open(state, owned_by=owned_by)
        return state.run_id

    def execute(self, run_id: str) -> None:
        """Run a submitted (or interrupted) run to its end in this thread."""
        run = self.get(run_id)
        if run.status not in ("running", "queued"):
            return
        p = self.parts
        p.executor.resume(run_id, p.pipeline.deps, p.pipeline.budget(), functions=p.stage_functions)

    def resume(self, run_id: str, *, on_event: OnEvent | None = None) -> AskResult:
        """Continue a stored run from the stage it was in (its worker died or was stopped)."""
        run = self.get(run_id)
        if run.status not in ("running", "queued"):
            if run.status == "finished":
                return self.result(run_id)
            raise DeskError(
                f"Run {run_id} was {run.status}; only a running or queued run can resume."
            )
        p = self.parts
        try:
            p.executor.resume(
                run_id,
                p.pipeline.deps,
                p.pipeline.budget(),
                functions=p.stage_functions,
                on_event=on_event or quiet,
            )
        except LeaseLost as exc:
            raise DeskError(f"{exc} Resume it when that worker has stopped.") from None
        return self.result(run_id)

    # ------------------------------------------------------------------ explanations

    def explanation_of(self, answer_run_id: str) -> StoredRun | None:
        """The answer's explanation run: its newest one that was not cancelled, or None."""
        runs = self.parts.run_records.explanations(answer_run_id)
        return next((r for r in reversed(runs) if r.status != "cancelled"), None)

    def open_explanation(
        self, run_id: str, *, owned_by: RunOwner | None = None, illustrate: bool = False
    ) -> str:
        """The id of the answer's explanation run: its saved one, or a new one opened now,
        queued (`execute` or `explain` runs it). Only a published answer is explained.

        `illustrate`: the lesson is to have a picture (`runs/illustrate.py`), which needs an
        illustrator set. A saved explanation that was asked to illustrate is returned as it
        is, its picture shown or not; one that was not asked opens a new explanation run
        that illustrates (its teacher and reviews are asked again, on a budget of its own)."""
        if illustrate and not self.parts.settings.illustrator.strip():
            raise DeskError(ILLUSTRATIONS_OFF)
        found = self.explanation_of(run_id)
        if found is not None and (not illustrate or found.opening.get("illustrate")):
            return found.run_id
        answer = self.get(run_id)
        if answer.opening.get("explains"):
            raise DeskError(f"Run {run_id} is an explanation itself: explain its answer instead.")
        receipt = self.parts.answer_receipt(run_id)
        if receipt is None or receipt.decision not in PUBLISHED:
            raise DeskError(
                f"Run {run_id} has no published answer: only a published answer is explained."
            )
        p = self.parts
        state = p.pipeline.explaining(run_id, receipt.question, illustrate=illustrate)
        p.executor.open(state, owned_by=owned_by)
        return state.run_id

    def explain(
        self, run_id: str, *, on_event: OnEvent | None = None, illustrate: bool = False
    ) -> AskResult:
        """The lesson receipt of the published answer `run_id`: a saved one as it is (no
        model is asked again), else its explanation run taken to its end (`runs/teach.py`);
        `illustrate` as `open_explanation` says."""
        explanation = self.open_explanation(run_id, illustrate=illustrate)
        run = self.get(explanation)
        if run.status in ("running", "queued"):
            self.resume(explanation, on_event=on_event)
        return self.result(explanation)

    def cancel(self, run_id: str) -> StoredRun:
        """Stop a running run before its next stage; a finished run is left as it is."""
        self.get(run_id)
        return self.parts.run_records.cancel(run_id)

    def result(self, run_id: str) -> AskResult:
        """The run's sealed receipt and its file, or the run's state when it has none."""
        p = self.parts
        stored = p.store.get_receipt(run_id)
        if stored is None:
            run = p.run_records.get(run_id)
            raise DeskError(f"Run {run_id} stopped before publishing ({run.status}).")
        return AskResult(json.loads(stored.json), p.publisher.receipt_path(run_id))

    def get(self, run_id: str) -> StoredRun:
        """The stored run; a `DeskError` in one sentence when there is none."""
        try:
            return self.parts.run_records.get(run_id)
        except RunNotFound:
            raise DeskError(f"There is no run {run_id} in {self.parts.settings.home}.") from None

    def exists(self, run_id: str) -> bool:
        try:
            self.parts.run_records.get(run_id)
        except RunNotFound:
            return False
        return True

    def recent(self, state: str | None = None, limit: int = 50) -> list[RunSummary]:
        """The newest runs first with their display state (`runs/records.py`), only those
        in `state` when given."""
        if state is not None and state not in DISPLAY_STATES:
            raise DeskError(f"Unknown run state {state!r}: use one of {', '.join(DISPLAY_STATES)}.")
        records = self.parts.run_records
        now = records.now()
        summaries = (summarize(r, is_dead, now) for r in records.recent(limit=10_000))
        return [r for r in summaries if state is None or r.state == state][:limit]

    def record(self, run_id: str) -> dict[str, Any]:
        """One run as stored: its row, each finished stage's record, and its state."""
        run = self.get(run_id)
        records = self.parts.run_records
        state = self.parts.executor.load(run_id)
        return run_json(summarize(run, is_dead, records.now()), state, records.calls(run_id))

    def state(self, run_id: str) -> str:
        """A stored run's display state now (`runs/records.py`)."""
        records = self.parts.run_records
        return summarize(records.get(run_id), is_dead, records.now()).state

    def events(self, run_id: str, after: int = 0) -> list[StoredEvent]:
        self.get(run_id)
        return self.parts.run_records.events(run_id, after)


def _stripped(question: str) -> str:
    question = question.strip()
    if not question:
        raise DeskError("The question is empty.")
    return question
