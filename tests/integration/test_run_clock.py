"""The desk's clock (`Desk(clock=...)`): a run's id, created time, stage starts, sources'
retrieval, events and leases all read it, so time can be fixed or moved without sleeping."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from evidence_desk.clock import iso_ms, iso_us
from evidence_desk.desk import Desk
from evidence_desk.errors import DeskError
from evidence_desk.runs.state import RunState
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder

QUESTION = "What did Roosevelt say about the four freedoms in 1941?"
T0 = datetime(2031, 5, 17, 9, 30, 0, 250_000, tzinfo=UTC)


class Clock:
    """A clock that stands still until it is moved."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def desk_on(home: Path, cache: Path, clock: Clock, lease_seconds: float = 600) -> Desk:
    settings = Settings(
        home=home, cache_dir=cache, embed_workers=1, run_lease_seconds=lease_seconds
    )
    return Desk(settings, embedder=HashingEmbedder(), clock=clock)


@pytest.fixture(scope="module")
def clock_home(
    tmp_path_factory: pytest.TempPathFactory, small_archive_file: Path, embedding_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("clock-home")
    assert desk_on(home, embedding_cache, Clock(T0)).ingest([small_archive_file]).added > 0
    return home


@pytest.fixture
def home(clock_home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(clock_home, copy)
    return copy


def test_a_run_on_a_fixed_clock_is_dated_by_it(home: Path, embedding_cache: Path) -> None:
    desk = desk_on(home, embedding_cache, Clock(T0))
    receipt = desk.ask(QUESTION).receipt
    assert receipt["run_id"].startswith("run-20310517T093000Z-")
    assert receipt["created_at"] == iso_us(T0)
    assert {s["started_at"] for s in receipt["stages"]} == {iso_us(T0)}
    assert receipt["sources"] and {s["retrieved_at"] for s in receipt["sources"]} == {iso_us(T0)}
    assert {e.at for e in desk.run_events(receipt["run_id"])} == {iso_ms(T0)}
    (run,) = desk.runs()
    assert run.created_at == iso_us(T0) and run.updated_at == "2031-05-17T09:30:00Z"


class Crash(Exception):
    """Stands in for the worker stopping between two stages."""


def test_a_lease_runs_out_on_the_clock_not_on_the_wall(home: Path, embedding_cache: Path) -> None:
    clock = Clock(T0)
    first = desk_on(home, embedding_cache, clock, lease_seconds=60)

    def crash_after_plan(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_stored", "plan"):
            raise Crash

    with pytest.raises(Crash):
        first.ask(QUESTION, on_event=crash_after_plan)
    (run,) = first.runs()
    assert run.state == "running"  # this process lives and its lease holds
    other = desk_on(home, embedding_cache, clock, lease_seconds=60)
    clock.now = T0 + timedelta(seconds=59)
    with pytest.raises(DeskError, match="is being worked on by"):
        other.resume(run.run_id)
    clock.now = T0 + timedelta(seconds=62)
    assert other.runs("interrupted")[0].run_id == run.run_id
    receipt = other.resume(run.run_id).receipt
    assert receipt["run_id"] == run.run_id and receipt["created_at"] == iso_us(T0)
    later = {s["name"]: s["started_at"] for s in receipt["stages"]}
    assert later["plan"] == iso_us(T0) and later["gate"] == iso_us(clock.now)
