"""The preparation's progress: time left from the rate reached, and its terminal line.

Time is a hand-moved clock, so every figure below is exact arithmetic, not a timing.
"""

from __future__ import annotations

import io

import pytest

from evidence_desk.desk.preparing import refusal
from evidence_desk.progress import ArchiveProgress, ProgressTracker, StatusLine


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def embed_at(tracker: ProgressTracker, clock: Clock, rate: float, seconds: float, done: int) -> int:
    """Chunks of 64 passages come back at `rate` passages/s for `seconds`; the count done."""
    step = 64 / rate
    for _ in range(round(seconds / step)):
        clock.advance(step)
        done += 64
        tracker.advance(done)
    return done


def test_time_left_starts_from_the_estimate_and_counts_down() -> None:
    clock = Clock()
    tracker = ProgressTracker(clock)
    tracker.begin("embedding", 10_000, "passages", rate=100.0, later=10.0)
    assert tracker.snapshot().eta == pytest.approx(110.0)
    clock.advance(8.0)  # the workers start and load the model: nothing back yet
    assert tracker.snapshot().eta == pytest.approx(102.0)
    assert tracker.snapshot().elapsed == pytest.approx(8.0)


def test_time_left_moves_to_the_rate_actually_reached() -> None:
    """The estimate said 100 passages/s; the machine does 50. After a warm-up of a few
    times the rate's memory, time left is the truth's to within a few percent."""
    clock = Clock()
    tracker = ProgressTracker(clock)
    tracker.begin("embedding", 20_000, "passages", rate=100.0, later=10.0)
    clock.advance(15.0)  # start-up: the first chunk only starts the clock
    tracker.advance(64)
    assert tracker.snapshot().eta == pytest.approx((20_000 - 64) / 100 + 10)
    done = embed_at(tracker, clock, 50.0, 10.0, 64)
    early = tracker.snapshot().eta
    assert early is not None
    assert (20_000 - done) / 100 + 10 < early < (20_000 - done) / 50 + 10  # on its way
    done = embed_at(tracker, clock, 50.0, 110.0, done)
    truth = (20_000 - done) / 50 + 10
    assert tracker.snapshot().eta == pytest.approx(truth, rel=0.03)


def test_start_up_does_not_drag_the_rate_down() -> None:
    clock = Clock()
    tracker = ProgressTracker(clock)
    tracker.begin("embedding", 5_000, "passages")  # no estimate at all
    clock.advance(60.0)  # a slow start-up
    tracker.advance(64)
    assert tracker.snapshot().eta is None  # one observation measures nothing yet
    done = embed_at(tracker, clock, 80.0, 20.0, 64)
    assert tracker.snapshot().eta == pytest.approx((5_000 - done) / 80.0, rel=0.01)


def test_a_slowdown_shows_within_a_minute() -> None:
    clock = Clock()
    tracker = ProgressTracker(clock)
    tracker.begin("embedding", 50_000, "passages", rate=100.0)
    tracker.advance(0)
    done = embed_at(tracker, clock, 100.0, 120.0, 0)
    assert tracker.snapshot().eta == pytest.approx((50_000 - done) / 100.0, rel=0.01)
    done = embed_at(tracker, clock, 40.0, 60.0, done)  # another job takes a core
    eta = tracker.snapshot().eta
    assert eta is not None and eta > 0.8 * (50_000 - done) / 40.0


def test_stages_without_a_rate_count_down_from_their_estimate() -> None:
    clock = Clock()
    tracker = ProgressTracker(clock)
    tracker.begin("building the embedder", seconds=40.0, later=None)
    clock.advance(10.0)
    assert tracker.snapshot().eta is None  # the embedding's share is not known yet
    tracker.begin("indexing", 249, "documents", seconds=6.0)
    clock.advance(2.0)
    tracker.count(100)
    snap = tracker.snapshot()
    assert snap.eta == pytest.approx(4.0)
    assert (snap.done, snap.total, snap.unit) == (100, 249, "documents")
    clock.advance(30.0)  # longer than it should take: never below nothing
    assert tracker.snapshot().eta == 0.0
    tracker.finish("ready")
    snap = tracker.snapshot()
    assert snap.ready and not snap.working and snap.eta == 0.0


def test_the_words_for_time_left() -> None:
    def left(eta: float | None) -> str:
        return ArchiveProgress("embedding", eta=eta).left()

    assert left(None) == "time left not known yet"
    assert left(20) == "less than a minute left"
    assert left(70) == "about a minute left"
    assert left(250) == "about 4 minutes left"
    p = ArchiveProgress("embedding", 4096, 14668, "passages", elapsed=65, eta=200)
    assert p.status() == "4,096 of 14,668 passages, about 3 minutes left"
    assert p.line() == (
        "Preparing: embedding, 4,096 of 14,668 passages, 1 min 05 s elapsed, about 3 minutes left"
    )
    assert p.to_json() == {
        "ready": False,
        "stage": "embedding",
        "done": 4096,
        "total": 14668,
        "unit": "passages",
        "elapsed_seconds": 65.0,
        "eta_seconds": 200.0,
        "error": None,
    }


def test_the_refusal_says_how_long_is_left() -> None:
    assert refusal(ArchiveProgress("embedding", eta=250)) == (
        "The archive is still being prepared: about 4 minutes left. Ask again once it is ready."
    )
    assert refusal(ArchiveProgress("building the embedder")) == (
        "The archive is still being prepared. Ask again once it is ready."
    )


def test_a_pipe_gets_a_line_per_stage_and_every_few_seconds() -> None:
    clock = Clock()
    out = io.StringIO()
    line = StatusLine(out, tty=False, every=5.0, clock=clock)
    embedding = ArchiveProgress("embedding", 10, 100, "passages", eta=100)
    line.show(ArchiveProgress("reading"))
    line.show(embedding)
    clock.advance(2.0)
    line.show(embedding)  # too soon: nothing
    clock.advance(3.0)
    line.show(embedding)
    line.write('{"log": 1}\n')
    line.show(ArchiveProgress("ready", elapsed=75))
    assert out.getvalue().splitlines() == [
        "Preparing: reading, 0 s elapsed, time left not known yet",
        "Preparing: embedding, 10 of 100 passages, 0 s elapsed, about 2 minutes left",
        "Preparing: embedding, 10 of 100 passages, 0 s elapsed, about 2 minutes left",
        '{"log": 1}',
        "Ready: the archive was prepared in 1 min 15 s.",
    ]


def test_a_terminal_keeps_one_line_and_logs_go_above_it() -> None:
    out = io.StringIO()
    line = StatusLine(out, tty=True)
    line.show(ArchiveProgress("embedding", 10, 100, "passages"))
    line.write("log line\n")
    line.show(ArchiveProgress("embedding", 20, 100, "passages"))
    line.close()
    first = "Preparing: embedding, 10 of 100 passages, 0 s elapsed, time left not known yet"
    second = first.replace("10 of", "20 of")
    clear = "\r\x1b[2K"
    assert out.getvalue() == f"{first}{clear}log line\n{first}{clear}{second}\n"


def test_a_stopped_preparation_leaves_the_last_word_to_whoever_stopped_it() -> None:
    out = io.StringIO()
    line = StatusLine(out, tty=True)
    line.show(ArchiveProgress("embedding", 10, 100, "passages"))
    line.show(ArchiveProgress("stopped"))
    line.say("Stopped.")
    assert out.getvalue().endswith("\r\x1b[2KStopped.\n")
