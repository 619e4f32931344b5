"""A follow-up's thread is part of its run: stored with the opening, read back by whichever
worker executes or resumes it, and what the planner resolves the follow-up against."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from evidence_desk.desk import Desk
from evidence_desk.runs.state import MAX_THREAD, RunState
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.types import Receipt

QUESTION = "What did Franklin D. Roosevelt say about freedom of speech in 1941?"
FOLLOWUP = "What did he say about freedom from fear?"
RESOLVED = "What did Franklin D. Roosevelt say about freedom from fear?"
ROOSEVELT = {"1934-Roosevelt-1", "1941-Roosevelt-1"}
T0 = datetime(2031, 5, 17, 9, 30, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Crash(Exception):
    """Stands in for the worker dying as the plan stage starts."""


def desk_on(home: Path, cache: Path, clock: Clock | None = None) -> Desk:
    settings = Settings(home=home, cache_dir=cache, embed_workers=1, run_lease_seconds=60)
    if clock is None:
        return Desk(settings, embedder=HashingEmbedder())
    return Desk(settings, embedder=HashingEmbedder(), clock=clock)


def test_a_submitted_follow_up_keeps_its_thread_for_its_executor(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_on(home, embedding_cache)
    thread = ["What did Lincoln say about slavery?", "Who wrote the Gettysburg Address?"]
    run_id = desk.submit(FOLLOWUP, thread=[*thread, "  ", QUESTION])
    stored = desk.run_records.get(run_id).opening
    assert stored["thread"] == [*thread, QUESTION]  # oldest first, blank ones dropped
    worker = desk  # the web app's executor runs it from the stored opening
    worker.execute(run_id)
    record = worker.run_record(run_id)
    assert record["plan"]["resolved_question"] == RESOLVED
    assert record["plan"]["resolved_from"] == QUESTION
    receipt = Receipt.model_validate_json(worker.store.get_receipt(run_id).json)  # type: ignore[union-attr]
    assert receipt.question == FOLLOWUP  # asked as typed; planned as understood
    assert receipt.plan.resolved_question == RESOLVED
    assert {sq.entity for sq in receipt.plan.subquestions} == {"franklin d. roosevelt"}
    assert receipt.sources and {s.doc_id for s in receipt.sources} <= ROOSEVELT


def test_without_a_thread_the_follow_up_searches_everyone(
    home: Path, embedding_cache: Path
) -> None:
    receipt = Receipt.model_validate(desk_on(home, embedding_cache).ask(FOLLOWUP).receipt)
    assert receipt.plan.resolved_question is None
    assert {sq.entity for sq in receipt.plan.subquestions} == {None}
    assert not {s.doc_id for s in receipt.sources} <= ROOSEVELT


def test_a_run_interrupted_as_it_plans_resumes_with_its_thread(
    home: Path, embedding_cache: Path
) -> None:
    clock = Clock(T0)
    first = desk_on(home, embedding_cache, clock)

    def crash_as_planning_starts(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_started", "plan"):
            raise Crash

    with pytest.raises(Crash):
        first.ask(FOLLOWUP, thread=[QUESTION], on_event=crash_as_planning_starts)
    (run,) = first.runs()
    assert first.run_record(run.run_id)["plan"] is None  # nothing planned yet
    clock.now = T0 + timedelta(seconds=61)  # the lease ran out: another worker takes it
    other = desk_on(home, embedding_cache, clock)
    assert other.executor.load(run.run_id).thread == (QUESTION,)
    receipt = Receipt.model_validate(other.resume(run.run_id).receipt)
    assert receipt.plan.resolved_question == RESOLVED
    assert other.verify_receipt(receipt.model_dump(mode="json")).ok


def test_a_thread_keeps_its_last_few_questions() -> None:
    thread = [f"Question {i}?" for i in range(MAX_THREAD + 3)]
    state = RunState.opening("run-x", "2031-01-01T00:00:00Z", FOLLOWUP, "quick", thread=thread)
    assert state.thread == tuple(thread[-MAX_THREAD:])
    assert RunState.resumed(state.model_dump(mode="json"), [], "plan").thread == state.thread
