"""At most `max_concurrent_runs` runs execute at once per desk; the rest wait in order.

Runs under load (more runs than the cap, from several threads), workers killed while they
hold a slot (a dead worker's run holds no slot), and a bounded soak: many runs killed at
random points and resumed, with no stage repeated and no record lost.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import SMALL_ARCHIVE, settings_for
from evidence_desk.desk import Desk
from evidence_desk.runs.loop import is_dead
from evidence_desk.runs.state import STAGES, RunState
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.trust.receipts import chain_problems

QUESTIONS = [
    "What did Roosevelt say about the four freedoms in 1941?",
    "What did Kennedy say about the Peace Corps?",
    "What did Obama say about bin Laden?",
    "What did Lincoln say about slavery in 1862?",
    "What did Washington say about a national university?",
    "What did the president say about the bank holiday in 1933?",
]

CHILD = """
import os, signal, sys
from pathlib import Path
from evidence_desk.desk import Desk
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder

home, cache, question, kind, stage = sys.argv[1:6]
desk = Desk(Settings(home=Path(home), cache_dir=Path(cache), embed_workers=1),
            embedder=HashingEmbedder())

def on_event(k, s, state):
    if (k, s) == (kind, stage):
        os.kill(os.getpid(), signal.SIGKILL)

desk.ask(question, on_event=on_event)
"""


@pytest.fixture(scope="module")
def hashed_home(
    tmp_path_factory: pytest.TempPathFactory, small_archive_file: Path, embedding_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("caps-home")
    desk = Desk(settings_for(home, embedding_cache), embedder=HashingEmbedder())
    assert desk.ingest([small_archive_file]).added == len(SMALL_ARCHIVE)
    return home


@pytest.fixture
def home(hashed_home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(hashed_home, copy)
    return copy


def desk_at(home: Path, cache: Path, **kw: object) -> Desk:
    settings = settings_for(home, cache).model_copy(update=kw)
    return Desk(settings, embedder=HashingEmbedder())


def kill_child(home: Path, cache: Path, question: str, kind: str, stage: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), str(cache), question, kind, stage],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr


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
        kill_child(home, embedding_cache, q, "stage_started", "answer")
    desk = desk_at(home, embedding_cache, max_concurrent_runs=2)
    assert desk.store.runs.executing(is_dead) == []
    assert len(desk.runs("interrupted")) == 2
    assert desk.ask(QUESTIONS[2]).receipt["run_id"]  # not blocked by the dead two
    for run in desk.runs("interrupted"):
        assert desk.resume(run.run_id).receipt["run_id"] == run.run_id
    assert desk.runs("interrupted") == [] and desk.verify_chain().receipts == 3


def test_a_soak_of_runs_killed_at_random_points_loses_and_repeats_nothing(
    home: Path, embedding_cache: Path
) -> None:
    rng = random.Random(20261201)
    points = [(kind, stage) for stage in STAGES for kind in ("stage_started", "stage_done")]
    kills = [rng.choice(points) for _ in range(10)]
    for i, (kind, stage) in enumerate(kills):
        kill_child(home, embedding_cache, QUESTIONS[i % len(QUESTIONS)], kind, stage)
    desk = desk_at(home, embedding_cache, max_concurrent_runs=2)
    interrupted = desk.runs("interrupted", limit=100)
    assert len(interrupted) == len(kills)
    with ThreadPoolExecutor(max_workers=4) as pool:  # resumed side by side, under the cap
        list(pool.map(lambda r: desk.resume(r.run_id), interrupted))
    repeated = 0
    for run in desk.runs(limit=100):
        starts = [e.stage for e in desk.run_events(run.run_id) if e.kind == "stage_started"]
        stored = [s["name"] for s in desk.run_record(run.run_id)["stages"]]
        assert stored == [s for s in STAGES if s in stored] and stored[-1] == "publish"
        repeated += len(starts) - len(set(starts)) - 1  # the killed stage runs twice
    receipts = list(desk.store.iter_receipts())
    lost = len(kills) - len({r.run_id for r in receipts})
    print(f"soak: {len(kills)} runs, {len(kills)} kills, repeated stages {repeated}, lost {lost}")
    assert (repeated, lost) == (0, 0) and len(receipts) == len(kills)
    assert chain_problems([json.loads(r.json) for r in receipts]) == []
    with sqlite3.connect(desk.settings.db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
