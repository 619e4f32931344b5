"""The LangGraph executor (`executor = "langgraph"`): the same records as the stages
executor, resumed after a kill at any point, and interchangeable with it mid-run.

Like `test_run_records.py`, on the small archive embedded with `HashingEmbedder`. Its crash
matrix adds the point the graph brings: a stage committed to the store but the process
killed before LangGraph wrote its checkpoint, where the re-run node must find the stage
stored and not run it again. The matrix and the sweep over every bundled question are
`slow`; `make test-fast` keeps one point of the matrix and the single-kill tests below it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from runs_helpers import (
    CRASH_POINTS,
    QUESTION,
    assert_resumed_whole,
    desk_at,
    kill_at,
    starts,
    stored_stages,
)

from evidence_desk.errors import DeskError
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.runs.state import ARCHIVE_STAGES, RunState
from evidence_desk.testing.receipts import comparable

# Killed after the stage's commit, before the graph's checkpoint of it (not after publish:
# a published run is finished and never resumed).
STORED_POINTS = [("stage_stored", stage) for stage in ARCHIVE_STAGES if stage != "publish"]
# The point of the matrix `make test-fast` keeps: the graph's own (stored, not checkpointed).
FAST_POINT = ("stage_stored", "answer")


def checkpointed_stage(home: Path, run_id: str) -> str | None:
    """The next stage in the graph's latest checkpoint of the run."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(home / "runs-graph.sqlite3") as db:
        saved = SqliteSaver(db).get_tuple({"configurable": {"thread_id": run_id}})
    assert saved is not None, "no checkpoint of the run"
    next_stage: str | None = saved.checkpoint["channel_values"]["run"]["next_stage"]
    return next_stage


# --------------------------------------------------------------------------- same records


def test_both_executors_write_the_same_records(home: Path, embedding_cache: Path) -> None:
    runs = {}
    for executor in ("stages", "langgraph"):
        desk = desk_at(home, embedding_cache, executor)
        receipt = desk.ask(QUESTION).receipt
        events = [(e.kind, e.stage) for e in desk.run_events(receipt["run_id"])]
        runs[executor] = (comparable(receipt), events, desk.run_record(receipt["run_id"]))
    (receipt_a, events_a, record_a), (receipt_b, events_b, record_b) = runs.values()
    assert receipt_a == receipt_b and events_a == events_b
    assert [s["name"] for s in record_a["stages"]] == [s["name"] for s in record_b["stages"]]
    assert record_a["decision"] == record_b["decision"] == "AUTO_CLEARED"
    assert desk.verify_chain().receipts == 2


@pytest.mark.slow  # a sweep: every bundled question, asked under each executor
def test_the_executors_agree_on_every_bundled_question(home: Path, embedding_cache: Path) -> None:
    stages = desk_at(home, embedding_cache, "stages")
    graph = desk_at(home, embedding_cache, "langgraph")
    questions = bundled_questions("sotu")
    for q in questions:
        expected = comparable(stages.ask(q.question).receipt)
        assert comparable(graph.ask(q.question).receipt) == expected, q.id
    assert graph.verify_chain().receipts == 2 * len(questions)


def test_a_cancelled_graph_run_stops_before_its_next_stage(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache, "langgraph")

    def cancel_after_retrieve(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_stored", "retrieve"):
            desk.cancel(state.run_id)

    with pytest.raises(DeskError, match="stopped before publishing"):
        desk.ask(QUESTION, on_event=cancel_after_retrieve)
    (run,) = desk.runs()
    assert (run.state, run.next_stage) == ("cancelled", "select")
    assert stored_stages(desk, run.run_id) == ["plan", "retrieve"]
    assert starts(desk, run.run_id) == ["plan", "retrieve"]
    assert desk.store.get_receipt(run.run_id) is None


def test_a_graph_run_is_never_traced_whatever_the_environment_says(
    home: Path, embedding_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LangSmith reads these variables; a desk run must still send nothing (the endpoint is
    a closed local port, should anything try)."""
    import langsmith.utils
    from langchain_core.tracers.base import BaseTracer

    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "unused")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")
    traced: list[object] = []
    monkeypatch.setattr(BaseTracer, "_start_trace", lambda self, run: traced.append(run))
    langsmith.utils.get_env_var.cache_clear()  # it caches what it read
    try:
        assert langsmith.utils.tracing_is_enabled()  # the environment asks for tracing
        assert desk_at(home, embedding_cache, "langgraph").ask(QUESTION).receipt["claims"]
    finally:
        monkeypatch.undo()
        langsmith.utils.get_env_var.cache_clear()
    assert traced == []


# --------------------------------------------------------------------------- crash matrix


@pytest.mark.parametrize(
    ("kind", "stage"),
    [
        pytest.param(k, s, id=f"{k}-{s}", marks=() if (k, s) == FAST_POINT else pytest.mark.slow)
        for k, s in CRASH_POINTS + STORED_POINTS
    ],
)
def test_a_graph_run_killed_anywhere_resumes_to_the_same_receipt(
    home: Path, embedding_cache: Path, uninterrupted: dict[str, Any], kind: str, stage: str
) -> None:
    kill_at(home, embedding_cache, "langgraph", kind, stage)
    desk = desk_at(home, embedding_cache, "langgraph")
    (run,) = desk.runs()
    assert run.state == "interrupted"
    before = stored_stages(desk, run.run_id)
    # Each checkpoint was written before the next node started (durability="sync"), and
    # none after the node the process died in.
    assert checkpointed_stage(home, run.run_id) == stage
    assert (stage in before) == (kind == "stage_stored")
    result = desk.resume(run.run_id)

    assert comparable(result.receipt) == comparable(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result)
    # No stage stored before the kill ran again; only one in flight ran once more.
    ran = starts(desk, run.run_id)
    again = stage if kind != "stage_stored" else None
    for name in ARCHIVE_STAGES:
        assert ran.count(name) == (2 if name == again else 1), name
    assert checkpointed_stage(home, run.run_id) is None  # the graph ran to its end


# --------------------------------------------------------------------------- interchangeable


@pytest.mark.parametrize(
    ("killed_by", "resumed_by"), [("stages", "langgraph"), ("langgraph", "stages")]
)
def test_a_run_killed_under_one_executor_resumes_under_the_other(
    home: Path,
    embedding_cache: Path,
    uninterrupted: dict[str, Any],
    killed_by: str,
    resumed_by: str,
) -> None:
    kill_at(home, embedding_cache, killed_by, "stage_done", "answer")
    desk = desk_at(home, embedding_cache, resumed_by)
    (run,) = desk.runs()
    assert stored_stages(desk, run.run_id) == ["plan", "retrieve", "select", "coverage"]
    result = desk.resume(run.run_id)
    assert comparable(result.receipt) == comparable(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result)
    ran = starts(desk, run.run_id)
    assert [ran.count(name) for name in ARCHIVE_STAGES] == [1, 1, 1, 1, 2, 1, 1, 1, 1]


def test_a_stale_checkpoint_goes_on_from_the_store(
    home: Path, embedding_cache: Path, uninterrupted: dict[str, Any]
) -> None:
    """Killed in the graph at retrieve, resumed by the stages executor and killed at audit,
    resumed in the graph: its checkpoint says retrieve, the store says audit."""
    kill_at(home, embedding_cache, "langgraph", "stage_done", "retrieve")
    run_id = desk_at(home, embedding_cache).runs()[0].run_id
    kill_at(home, embedding_cache, "stages", "stage_started", "audit", run_id=run_id)
    assert checkpointed_stage(home, run_id) == "retrieve"
    desk = desk_at(home, embedding_cache, "langgraph")
    result = desk.resume(run_id)
    assert comparable(result.receipt) == comparable(uninterrupted)
    assert_resumed_whole(desk, run_id, result)
    ran = starts(desk, run_id)
    assert [ran.count(name) for name in ARCHIVE_STAGES] == [1, 2, 1, 1, 1, 1, 2, 1, 1]


def test_a_run_whose_checkpoints_were_deleted_resumes_from_the_store(
    home: Path, embedding_cache: Path, uninterrupted: dict[str, Any]
) -> None:
    kill_at(home, embedding_cache, "langgraph", "stage_done", "verify")
    (home / "runs-graph.sqlite3").unlink()
    desk = desk_at(home, embedding_cache, "langgraph")
    (run,) = desk.runs()
    result = desk.resume(run.run_id)
    assert comparable(result.receipt) == comparable(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result)
    ran = starts(desk, run.run_id)
    assert [ran.count(name) for name in ARCHIVE_STAGES] == [1, 1, 1, 1, 1, 2, 1, 1, 1]
