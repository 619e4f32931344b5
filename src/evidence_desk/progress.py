"""Ingest progress, measured: one small value the terminal, every web page and
`/api/preparing` show alike, the tracker that keeps it, and the terminal's ways to show it.

`ProgressTracker` is told what the work is doing (its stage, passages done out of how many)
and answers `Progress` snapshots. Time left is measured, not guessed: it starts from the
desk's estimate (the rate of the last ingest on this machine, or a probe of this job's own
texts: `desk.embedding.Estimate`), and as passages come back it moves to the rate the embedding
actually reaches: a time-weighted moving average whose memory is `RATE_SECONDS`, so the
estimate's weight falls to 1/e after that long and to 5% after three times as long. The
first observation only starts the clock: worker start-up and model load are behind it and
say nothing about the rest. Between observations time left counts down.

In a terminal, `StatusLine` keeps one line that updates in place, and log lines written
through it (the server's JSON logs) go above it; written to a file or a pipe, it prints a
line when the stage changes and every `PRINT_EVERY` seconds.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from .archive.ingest import IngestProgress

Stage = Literal[
    "building the embedder", "reading", "embedding", "indexing", "ready", "failed", "stopped"
]
WORKING: tuple[Stage, ...] = ("building the embedder", "reading", "embedding", "indexing")
RATE_SECONDS = 20.0  # the observed rate's memory (see the module docstring)
PRINT_EVERY = 5.0  # seconds between progress lines when the terminal is not a TTY


@dataclass(frozen=True)
class ArchiveProgress:
    """How far a preparation has come. `eta` is the seconds left for all of it (None while
    nothing says yet); `done`/`total` count `unit` (passages while embedding)."""

    stage: Stage
    done: int = 0
    total: int = 0
    unit: str = ""
    elapsed: float = 0.0
    eta: float | None = None
    error: str | None = None

    @property
    def ready(self) -> bool:
        return self.stage == "ready"

    @property
    def working(self) -> bool:
        return self.stage in WORKING

    def left(self) -> str:
        """`about 4 minutes left`, `about a minute left`, `less than a minute left`."""
        if self.eta is None:
            return "time left not known yet"
        if self.eta < 45:
            return "less than a minute left"
        if self.eta < 90:
            return "about a minute left"
        return f"about {round(self.eta / 60)} minutes left"

    def counted(self) -> str:
        """`4,096 of 14,668 passages`, or nothing while the stage counts nothing."""
        return f"{self.done:,} of {self.total:,} {self.unit}" if self.total else ""

    def status(self) -> str:
        """`4,096 of 14,668 passages, about 3 minutes left`: what a page shows under the bar."""
        return ", ".join(p for p in (self.counted(), self.left()) if p)

    def line(self) -> str:
        """One line for a terminal: stage, count, elapsed and time left."""
        if self.stage == "failed":
            return f"The archive could not be prepared: {self.error}"
        if self.stage == "ready":
            return f"Ready: the archive was prepared in {_clock(self.elapsed)}."
        if self.stage == "stopped":
            return "The preparation stopped: the archive is as it was (its vectors are cached)."
        parts = [self.stage, self.counted(), f"{_clock(self.elapsed)} elapsed"]
        if self.working:
            parts.append(self.left())
        return "Preparing: " + ", ".join(p for p in parts if p)

    def to_json(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "stage": self.stage,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "elapsed_seconds": round(self.elapsed, 1),
            "eta_seconds": None if self.eta is None else round(self.eta, 1),
            "error": self.error,
        }


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


class ProgressTracker:
    """The progress of one preparation as it goes; every method is safe from any thread.

    `clock` (monotonic seconds) is a seam: tests move time by hand.
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, memory: float = RATE_SECONDS
    ) -> None:
        self._clock = clock
        self._memory = memory
        self._lock = threading.Lock()
        self._started = clock()
        self._stage: Stage = "reading"
        self._done = self._total = 0
        self._unit = ""
        self._error: str | None = None
        self._stage_left: float | None = None  # this stage's seconds left, as of `_at`
        self._at = self._started
        self._later: float | None = 0.0  # seconds the stages after this one should take
        self._rate: float | None = None  # units per second, smoothed
        self._last: tuple[float, int] | None = None  # the last observation: (time, done)

    def begin(
        self,
        stage: Stage,
        total: int = 0,
        unit: str = "",
        *,
        seconds: float | None = None,
        rate: float | None = None,
        later: float | None = 0.0,
    ) -> None:
        """A new stage of `total` units: it should take `seconds` (or `total / rate`, `rate`
        being the estimate the observed rate refines) and the stages after it `later`
        (None: not known yet, so neither is the time left)."""
        with self._lock:
            self._stage, self._total, self._unit, self._done = stage, total, unit, 0
            self._rate = rate if rate and rate > 0 else None
            self._last = None
            self._later = None if later is None else max(later, 0.0)
            self._at = self._clock()
            if seconds is None and self._rate is not None:
                seconds = total / self._rate
            self._stage_left = seconds

    def advance(self, done: int) -> None:
        """`done` units of this stage are finished (a running count, not an increment)."""
        with self._lock:
            now = self._clock()
            self._done = done
            last = self._last
            self._last = (now, done)
            if last is None:  # the clock starts here: what came before was start-up
                self._estimate(now)
                return
            dt = now - last[0]
            if dt <= 0:  # no time to measure over: these units count with the next one
                self._last = last
                return
            observed = (done - last[1]) / dt
            if self._rate is None:
                self._rate = observed
            else:
                self._rate += (1 - math.exp(-dt / self._memory)) * (observed - self._rate)
            self._estimate(now)

    def count(self, done: int) -> None:
        """`done` units finished, in a stage whose time left is not measured by its rate
        (it counts down from the stage's `seconds`)."""
        with self._lock:
            self._done = done

    def _estimate(self, now: float) -> None:
        if self._rate is not None and self._rate > 0:
            self._at = now
            self._stage_left = max(self._total - self._done, 0) / self._rate

    def finish(self, stage: Stage, error: str | None = None) -> None:
        """The end: `ready`, `failed` (with its sentence) or `stopped`."""
        with self._lock:
            self._stage, self._error = stage, error
            self._stage_left, self._later = 0.0, 0.0
            self._at = self._clock()

    def snapshot(self) -> ArchiveProgress:
        with self._lock:
            now = self._clock()
            eta = None
            if self._stage_left is not None and self._later is not None:
                eta = max(self._stage_left - (now - self._at), 0.0) + self._later
            if self._stage not in WORKING:
                eta = 0.0
            return ArchiveProgress(
                stage=self._stage,
                done=self._done,
                total=self._total,
                unit=self._unit,
                elapsed=now - self._started,
                eta=eta,
                error=self._error,
            )


class StatusLine:
    """The terminal's view of a preparation (see the module docstring).

    Also a text stream (`write`, `flush`) for the log handler, so a log line never lands in
    the middle of the progress line. Safe from any thread.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        tty: bool | None = None,
        every: float = PRINT_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._tty = stream.isatty() if tty is None else tty
        self._every = every
        self._clock = clock
        self._lock = threading.RLock()
        self._line = ""  # what the terminal shows on its last line now (TTY only)
        self._printed: tuple[float, str] | None = None  # when, and in which stage

    def say(self, text: str) -> None:
        """A line of its own, above the progress line."""
        self.write(text + "\n")

    def show(self, progress: ArchiveProgress) -> None:
        with self._lock:
            text = progress.line()
            if not progress.working:  # the last word, on a line of its own
                self._clear()
                self._line = ""
                if progress.stage != "stopped":  # whoever stopped it says so
                    self._stream.write(text + "\n")
            elif self._tty:
                self._clear()
                self._line = text
                self._stream.write(text)
            else:
                now = self._clock()
                last = self._printed
                if last is None or last[1] != progress.stage or now - last[0] >= self._every:
                    self._printed = (now, progress.stage)
                    self._stream.write(text + "\n")
            self._stream.flush()

    def write(self, text: str) -> int:
        with self._lock:
            self._clear()
            self._stream.write(text)
            if self._line:
                self._stream.write(self._line)
            self._stream.flush()
            return len(text)

    def flush(self) -> None:
        with self._lock:
            self._stream.flush()

    def close(self) -> None:
        """Leaves the terminal on a fresh line."""
        with self._lock:
            if self._line:
                self._stream.write("\n")
                self._line = ""
            self._stream.flush()

    def _clear(self) -> None:
        if self._tty and self._line:
            self._stream.write("\r\x1b[2K")


def follow(
    progress: Callable[[], ArchiveProgress],
    line: StatusLine,
    stop: threading.Event,
    every: float = 1.0,
) -> None:
    """Shows `progress()` on `line` every `every` seconds until it ends or `stop` is set
    (then it shows nothing more: whoever stopped it has the last word)."""
    while not stop.is_set():
        snapshot = progress()
        line.show(snapshot)
        if not snapshot.working:
            return
        stop.wait(every)


class IngestProgressBar:
    """`ingest`'s two lines: documents read, and passages embedded out of those queued so far."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description:>10}"),
            BarColumn(),
            TextColumn("{task.completed:>7,}/{task.total:<7,}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            disable=not console.is_terminal,
        )
        self._docs: TaskID | None = None
        self._passages: TaskID | None = None

    def __enter__(self) -> IngestProgressBar:
        self._progress.start()
        self._docs = self._progress.add_task("documents", total=None)
        self._passages = self._progress.add_task("embedded", total=None)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def update(self, event: IngestProgress) -> None:
        assert self._docs is not None and self._passages is not None
        seen = event.documents_loaded + event.documents_skipped
        self._progress.update(self._docs, completed=seen, total=seen)
        self._progress.update(
            self._passages,
            completed=event.passages_embedded,
            total=max(event.passages_queued, event.passages_embedded),
        )
