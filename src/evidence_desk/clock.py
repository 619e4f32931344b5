"""Time as the desk reads it, through one seam: `Desk(clock=...)`.

A run's id and created time, each stage's start, a source's retrieval time, the run
records' leases and events all read the desk's clock, so a test or bench can fix time (two
runs whose receipts differ in nothing time-dependent) or move it (a lease that ran out,
without sleeping). Durations are measured with `time.perf_counter`, never with the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]  # an aware UTC datetime


def system_clock() -> datetime:
    return datetime.now(UTC)


def iso_seconds(t: datetime) -> str:
    """`2026-12-01T14:03:59Z`: leases and run rows (they compare as text)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(t: datetime) -> str:
    """To the millisecond: events a few milliseconds apart read apart."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def iso_us(t: datetime) -> str:
    """To the microsecond: a run's created time and its stages' starts."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
