"""At most `max_concurrent_runs` runs execute at once per desk; the rest wait in order.

Runs under load (more runs than the cap, from several threads), workers killed while they
hold a slot (a dead worker's run holds no slot), and a bounded soak: many runs killed at
random points and resumed, with no stage repeated and no record lost (`slow`). Workers are
child processes killed with SIGKILL (`runs_helpers.kill_at`).
"""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from runs_helpers import desk_at, kill_at, sound_chain, starts, stored_stages

from evidence_desk.runs.loop import is_dead
from evidence_desk.runs.state import ARCHIVE_STAGES, STAGES, RunState

QUESTIONS = [
    "What did Roosevelt say about the four freedoms in 1941?",
    "What did Kennedy say about the Peace Corps?",
    "What did Obama say about bin Laden?",
    "What did Lincoln say about slavery in 1862?",
    "What did Washington say about a national university?",
    "What did the president say about the bank holiday in 1933?",
]


def test_more_runs_than_the_cap_wait_their_turn_in_order(home: Path, embedding_cache: Path) -> None:
    desk = desk_at(home, embedding_cache, max_concurrent_runs=2)
    seen: list[int] = []
    lock = threading.Lock()

    def watch(kind: str, stage: str, state: RunState) -> None:
        if kind == "stage_started":
            with lock:
                seen.append(len(desk.store.runs.executing(is_dead)))
            time.sleep(0.01)  # widen each stage so runs overlap

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda q: desk.ask(q, on_event=watch).receipt, QUESTIONS * 2))
    assert len(results) == 12 and max(seen) <= 2
    assert max(seen) == 2  # the cap was reached: runs did overlap
    runs = desk.runs(limit=100)

    def seq(run_id: str, kind: str) -> int:
        return next(e.seq for e in desk.run_events(run_id) if e.kind == kind)

    came = sorted((r.run_id for r in runs), key=lambda r: seq(r, "run_opened"))
    assert sorted(came, key=lambda r: seq(r, "run_started")) == came  # started as they came
    assert {r.state for r in runs} <= {"published", "held", "outside"}


def test_a_queued_run_shows_as_queued_and_can_be_cancelled(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache, max_concurrent_runs=1)
    inside = threading.Event()
    release = threading.Event()

    def hold(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_started", "plan"):
            inside.set()
            release.wait(10)

    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(desk.ask, QUESTIONS[0], on_event=hold)
        assert inside.wait(10)
        second = pool.submit(desk.ask, QUESTIONS[1])
        deadline = time.monotonic() + 10
        while not desk.runs("queued") and time.monotonic() < deadline:
            time.sleep(0.01)
        (queued,) = desk.runs("queued")
        assert queued.question == QUESTIONS[1]
        desk.cancel(queued.run_id)
        release.set()
        assert first.result(timeout=30).receipt["run_id"]
        with pytest.raises(Exception, match="stopped before publishing"):
            second.result(timeout=30)
    assert desk.runs("cancelled")[0].run_id == queued.run_id
    assert [e.kind for e in desk.run_events(queued.run_id)][-1] == "run_cancelled"


def test_workers_killed_while_holding_slots_do_not_block_the_desk(
    home: Path, embedding_cache: Path
) -> None:
    for q in QUESTIONS[:2]:  # both slots taken by workers that then die
        kill_at(home, embedding_cache, "stages", "stage_started", "answer", question=q)
    desk = desk_at(home, embedding_cache, max_concurrent_runs=2)
    assert desk.store.runs.executing(is_dead) == []
    assert len(desk.runs("interrupted")) == 2
    assert desk.ask(QUESTIONS[2]).receipt["run_id"]  # not blocked by the dead two
    for run in desk.runs("interrupted"):
        assert desk.resume(run.run_id).receipt["run_id"] == run.run_id
    assert desk.runs("interrupted") == [] and desk.verify_chain().receipts == 3


@pytest.mark.slow  # a soak: ten workers killed and their runs resumed
def test_a_soak_of_runs_killed_at_random_points_loses_and_repeats_nothing(
    home: Path, embedding_cache: Path
) -> None:
    rng = random.Random(20261201)
    points = [(kind, stage) for stage in ARCHIVE_STAGES for kind in ("stage_started", "stage_done")]
    kills = [rng.choice(points) for _ in range(10)]
    for i, (kind, stage) in enumerate(kills):
        question = QUESTIONS[i % len(QUESTIONS)]
        kill_at(home, embedding_cache, "stages", kind, stage, question=question)
    desk = desk_at(home, embedding_cache, max_concurrent_runs=2)
    interrupted = desk.runs("interrupted", limit=100)
    assert len(interrupted) == len(kills)
    with ThreadPoolExecutor(max_workers=4) as pool:  # resumed side by side, under the cap
        list(pool.map(lambda r: desk.resume(r.run_id), interrupted))
    repeated = 0
    for run in desk.runs(limit=100):
        ran = starts(desk, run.run_id)
        stored = stored_stages(desk, run.run_id)
        assert stored == [s for s in STAGES if s in stored] and stored[-1] == "publish"
        repeated += len(ran) - len(set(ran)) - 1  # the killed stage runs twice
    receipts = sound_chain(desk)
    lost = len(kills) - len({r.run_id for r in receipts})
    print(f"soak: {len(kills)} runs, {len(kills)} kills, repeated stages {repeated}, lost {lost}")
    assert (repeated, lost) == (0, 0) and len(receipts) == len(kills)
