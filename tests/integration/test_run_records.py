"""Runs stored as they go: listed from their first moment, followed by events, cancelled,
leased, and resumed after the process was killed at any point.

The archive is the small six-address one, embedded with `HashingEmbedder` (no torch): these
tests are about runs, not retrieval quality. The crash matrix kills a child process (a fresh
interpreter) with SIGKILL at every point a run can be interrupted — each stage just started,
each stage done but not yet stored, the receipt appended to the chain but its file not
written — resumes the run, and compares its receipt with an uninterrupted run's. It is
`slow` (seconds a point) but for one point, which `make test-fast` keeps.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runs_helpers import (
    CHILD,
    CRASH_POINTS,
    QUESTION,
    assert_resumed_whole,
    desk_at,
    starts,
    stored_stages,
)

from evidence_desk.errors import DeskError
from evidence_desk.runs.loop import StoredExecutor
from evidence_desk.runs.state import ARCHIVE_STAGES, RunState
from evidence_desk.testing.receipts import comparable

OUTSIDE = "What did the president say about the bank holiday in 1933?"
# The crash point `make test-fast` keeps: a model stage's output in hand, not yet stored.
FAST_POINT = ("stage_done", "answer")


def test_a_run_is_listed_from_its_first_moment_and_its_events_replay(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache)
    seen: list[tuple[str, str]] = []

    def watch(kind: str, stage: str, state: RunState) -> None:
        if kind == "run_opened":
            (listed,) = desk.runs()
            seen.append((listed.run_id, listed.state))
            assert listed.run_id == state.run_id and listed.next_stage == "plan"

    result = desk.ask(QUESTION, on_event=watch)
    run_id = result.receipt["run_id"]
    assert seen == [(run_id, "queued")]  # stored before it even has a slot to execute in
    (summary,) = desk.runs()
    assert (summary.state, summary.decision) == ("published", result.receipt["decision"])
    assert desk.runs("held") == [] and desk.runs("published") == [summary]
    events = desk.run_events(run_id)
    kinds = [(e.kind, e.stage) for e in events]
    assert kinds[0] == ("run_opened", None) and kinds[-1] == ("run_finished", None)
    for stage in ARCHIVE_STAGES:
        assert kinds.count(("stage_started", stage)) == kinds.count(("stage_ended", stage)) == 1
    ended = [e for e in events if e.kind == "stage_ended"]
    assert all(
        {"latency_ms", "calls", "input_tokens", "estimated_spend_usd"} <= set(e.data) for e in ended
    )
    assert events[-1].data["decision"] == result.receipt["decision"]
    record = desk.run_record(run_id)
    assert stored_stages(desk, run_id) == list(ARCHIVE_STAGES)
    assert record["receipt_sha256"] == result.receipt["integrity"]["canonical_sha256"]
    assert all(set(s) == {"id", "doc_id", "title", "content_sha256"} for s in record["sources"])
    assert list(desk.follow_events(run_id, follow=True)) == events  # a finished run: no wait


def test_outside_coverage_goes_from_coverage_to_the_gate(home: Path, embedding_cache: Path) -> None:
    desk = desk_at(home, embedding_cache)
    receipt = desk.ask(OUTSIDE).receipt
    assert receipt["decision"] == "OUTSIDE_COVERAGE"
    names = stored_stages(desk, receipt["run_id"])
    assert names == ["plan", "retrieve", "select", "coverage", "gate", "publish"]
    assert desk.runs("outside")[0].run_id == receipt["run_id"]


def test_a_cancelled_run_stops_before_its_next_stage_and_publishes_nothing(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache)

    def cancel_after_retrieve(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_stored", "retrieve"):
            assert desk.cancel(state.run_id).status == "running"

    with pytest.raises(DeskError, match="stopped before publishing"):
        desk.ask(QUESTION, on_event=cancel_after_retrieve)
    (run,) = desk.runs()
    assert (run.state, run.next_stage) == ("cancelled", "select")
    assert stored_stages(desk, run.run_id) == ["plan", "retrieve"]
    assert desk.store.get_receipt(run.run_id) is None
    with pytest.raises(DeskError, match="cancelled; only a running or queued run can resume"):
        desk.resume(run.run_id)
    assert desk.cancel(run.run_id).status == "cancelled"  # again: nothing changes


def test_a_run_cancelled_while_a_stage_runs_stops_after_that_stage(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache)

    def cancel_during_select(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_done", "select"):  # its output is not yet stored
            desk.cancel(state.run_id)

    with pytest.raises(DeskError, match="stopped before publishing"):
        desk.ask(QUESTION, on_event=cancel_during_select)
    (run,) = desk.runs()
    assert (run.state, run.next_stage) == ("cancelled", "coverage")
    assert stored_stages(desk, run.run_id) == ["plan", "retrieve", "select"]
    assert desk.store.get_receipt(run.run_id) is None


def test_a_run_held_by_a_live_worker_is_not_taken_over(home: Path, embedding_cache: Path) -> None:
    desk = desk_at(home, embedding_cache)
    other = StoredExecutor(desk.store.runs, lease_seconds=600)  # a live worker (this process)
    state = desk.pipeline.opening(QUESTION)
    other.runs.open(
        state.model_dump(mode="json", include={"run_id", "created_at", "question", "mode"}),
        other.owner,
        600,
    )
    assert desk.runs("queued")[0].run_id == state.run_id
    with pytest.raises(DeskError, match="is being worked on by"):
        desk.resume(state.run_id)
    expired = StoredExecutor(desk.store.runs, lease_seconds=600)
    expired.runs.take_lease(state.run_id, other.owner, -1, lambda owner: False)  # lease ran out
    assert desk.runs("interrupted")[0].run_id == state.run_id
    assert desk.resume(state.run_id).receipt["run_id"] == state.run_id


def test_the_receipt_chain_is_verified_and_its_first_break_named(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache)
    ids = [desk.ask(q).receipt["run_id"] for q in (QUESTION, OUTSIDE, QUESTION)]
    report = desk.verify_chain()
    assert report.ok and report.receipts == 3
    with sqlite3.connect(desk.settings.db_path) as db:  # edit the second receipt's answer
        (text,) = db.execute("SELECT json FROM receipts WHERE run_id = ?", (ids[1],)).fetchone()
        edited = json.loads(text)
        edited["reason"] = "Edited after signing."
        db.execute("UPDATE receipts SET json = ? WHERE run_id = ?", (json.dumps(edited), ids[1]))
    broken = desk_at(home, embedding_cache).verify_chain()
    assert (broken.ok, broken.receipts, broken.broken_run) == (False, 2, ids[1])
    assert any("hash" in p for p in broken.problems), broken.problems


def test_unknown_runs_and_states_are_one_clear_sentence(home: Path, embedding_cache: Path) -> None:
    desk = desk_at(home, embedding_cache)
    for call in (desk.resume, desk.cancel, desk.run_record, desk.run_events):
        with pytest.raises(DeskError, match="There is no run run-nope"):
            call("run-nope")  # type: ignore[operator]
    with pytest.raises(DeskError, match="Unknown run state 'lost'"):
        desk.runs("lost")


# --------------------------------------------------------------------------- crash matrix


@pytest.mark.parametrize(
    ("kind", "stage"),
    [
        pytest.param(k, s, id=f"{k}-{s}", marks=() if (k, s) == FAST_POINT else pytest.mark.slow)
        for k, s in CRASH_POINTS
    ],
)
def test_a_run_killed_anywhere_resumes_to_the_same_receipt(
    home: Path, embedding_cache: Path, uninterrupted: dict[str, Any], kind: str, stage: str
) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), str(embedding_cache), QUESTION, kind, stage],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    desk = desk_at(home, embedding_cache)
    (run,) = desk.runs()
    assert run.state == "interrupted"  # its worker is dead: no waiting for the lease
    before = stored_stages(desk, run.run_id)
    result = desk.resume(run.run_id)

    assert comparable(result.receipt) == comparable(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result)
    # No stage stored before the kill ran again; the one in flight ran once more.
    ran = starts(desk, run.run_id)
    for name in ARCHIVE_STAGES:
        assert ran.count(name) == (2 if name == stage else 1), name
    assert stage not in before
