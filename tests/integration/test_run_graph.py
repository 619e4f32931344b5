"""The LangGraph executor (`executor = "langgraph"`): the same records as the stages
executor, resumed after a kill at any point, and interchangeable with it mid-run.

Like `test_run_records.py`, on the small archive embedded with `HashingEmbedder`. Its crash
matrix adds the point the graph brings: a stage committed to the store but the process
killed before LangGraph wrote its checkpoint, where the re-run node must find the stage
stored and not run it again.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from runs_helpers import CRASH_POINTS, QUESTION, content, desk_at, kill_at

from conftest import SMALL_ARCHIVE
from evidence_desk.desk import Desk
from evidence_desk.errors import DeskError
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.runs.state import STAGES, RunState
from evidence_desk.trust.receipts import chain_problems

# Killed after the stage's commit, before the graph's checkpoint of it (not after publish:
# a published run is finished and never resumed).
STORED_POINTS = [("stage_stored", stage) for stage in STAGES if stage != "publish"]


@pytest.fixture(scope="module")
def hashed_home(
    tmp_path_factory: pytest.TempPathFactory, small_archive_file: Path, embedding_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("graph-home")
    assert desk_at(home, embedding_cache).ingest([small_archive_file]).added == len(SMALL_ARCHIVE)
    return home


@pytest.fixture
def home(hashed_home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(hashed_home, copy)
    return copy


@pytest.fixture(scope="module")
def uninterrupted(
    hashed_home: Path, tmp_path_factory: pytest.TempPathFactory, embedding_cache: Path
) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("graph-uninterrupted") / "home"
    shutil.copytree(hashed_home, home)
    receipt = desk_at(home, embedding_cache, "stages").ask(QUESTION).receipt
    assert receipt["decision"] == "AUTO_CLEARED" and receipt["claims"]  # a run worth comparing
    return receipt


def stored_stages(desk: Desk, run_id: str) -> list[str]:
    return [s["name"] for s in desk.run_record(run_id)["stages"]]


def checkpointed_stage(home: Path, run_id: str) -> str | None:
    """The next stage in the graph's latest checkpoint of the run."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(home / "runs-graph.sqlite3") as db:
        saved = SqliteSaver(db).get_tuple({"configurable": {"thread_id": run_id}})
    assert saved is not None, "no checkpoint of the run"
    next_stage: str | None = saved.checkpoint["channel_values"]["run"]["next_stage"]
    return next_stage


def assert_resumed_whole(desk: Desk, run_id: str, receipt: dict[str, Any]) -> None:
    """One receipt in the chain, every stage stored once in order, the database sound."""
    assert receipt["run_id"] == run_id and desk.verify_receipt(receipt).ok
    path = desk.publisher.receipt_path(run_id)
    assert json.loads(path.read_text()) == receipt
    assert stored_stages(desk, run_id) == list(STAGES)
    receipts = list(desk.store.iter_receipts())
    assert [r.run_id for r in receipts] == [run_id]
    assert chain_problems([json.loads(r.json) for r in receipts]) == []
    with sqlite3.connect(desk.settings.db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def starts(desk: Desk, run_id: str) -> list[str | None]:
    return [e.stage for e in desk.run_events(run_id) if e.kind == "stage_started"]


# --------------------------------------------------------------------------- same records


def test_both_executors_write_the_same_records(home: Path, embedding_cache: Path) -> None:
    runs = {}
    for executor in ("stages", "langgraph"):
        desk = desk_at(home, embedding_cache, executor)
        receipt = desk.ask(QUESTION).receipt
        events = [(e.kind, e.stage) for e in desk.run_events(receipt["run_id"])]
        runs[executor] = (content(receipt), events, desk.run_record(receipt["run_id"]))
    (receipt_a, events_a, record_a), (receipt_b, events_b, record_b) = runs.values()
    assert receipt_a == receipt_b and events_a == events_b
    assert [s["name"] for s in record_a["stages"]] == [s["name"] for s in record_b["stages"]]
    assert record_a["decision"] == record_b["decision"] == "AUTO_CLEARED"
    assert desk.verify_chain().receipts == 2


def test_the_executors_agree_on_every_bundled_question(home: Path, embedding_cache: Path) -> None:
    stages = desk_at(home, embedding_cache, "stages")
    graph = desk_at(home, embedding_cache, "langgraph")
    questions = bundled_questions("sotu")
    for q in questions:
        expected = content(stages.ask(q.question).receipt)
        assert content(graph.ask(q.question).receipt) == expected, q.id
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
    CRASH_POINTS + STORED_POINTS,
    ids=[f"{k}-{s}" for k, s in CRASH_POINTS + STORED_POINTS],
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

    assert content(result.receipt) == content(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result.receipt)
    # No stage stored before the kill ran again; only one in flight ran once more.
    ran = starts(desk, run.run_id)
    again = stage if kind != "stage_stored" else None
    for name in STAGES:
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
    assert content(result.receipt) == content(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result.receipt)
    ran = starts(desk, run.run_id)
    assert [ran.count(name) for name in STAGES] == [1, 1, 1, 1, 2, 1, 1, 1, 1]


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
    assert content(result.receipt) == content(uninterrupted)
    assert_resumed_whole(desk, run_id, result.receipt)
    ran = starts(desk, run_id)
    assert [ran.count(name) for name in STAGES] == [1, 2, 1, 1, 1, 1, 2, 1, 1]


def test_a_run_whose_checkpoints_were_deleted_resumes_from_the_store(
    home: Path, embedding_cache: Path, uninterrupted: dict[str, Any]
) -> None:
    kill_at(home, embedding_cache, "langgraph", "stage_done", "verify")
    (home / "runs-graph.sqlite3").unlink()
    desk = desk_at(home, embedding_cache, "langgraph")
    (run,) = desk.runs()
    result = desk.resume(run.run_id)
    assert content(result.receipt) == content(uninterrupted)
    assert_resumed_whole(desk, run.run_id, result.receipt)
    ran = starts(desk, run.run_id)
    assert [ran.count(name) for name in STAGES] == [1, 1, 1, 1, 1, 2, 1, 1, 1]
