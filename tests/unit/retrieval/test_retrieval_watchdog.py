"""The embedding workers' watchdog: a hung or dead worker is replaced and its batch redone.

The workers run `FaultyEmbedder` (the real tokenizer, hashed token ids, no model) in real
spawned processes; each file in the fault directory makes one chunk hang or kill its worker.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.retrieval.parallel import EmbeddingWorkerError, ParallelEmbedder
from evidence_desk.testing.embedder import FaultyEmbedder

TEXTS = [
    f"Passage {i}: the banks reopened and " + "rubber was rationed " * (i % 7) for i in range(48)
]


def pool(faults: Path, fault: str, timeout: float = 4.0, **kw: object) -> ParallelEmbedder:
    factory = functools.partial(FaultyEmbedder, faults, fault)
    return ParallelEmbedder(
        workers=2,
        batch_size=4,
        batches_per_chunk=2,
        min_parallel=1,
        factory=factory,
        worker_timeout=timeout,
        **kw,  # type: ignore[arg-type]
    )


def expected() -> np.ndarray:
    return FaultyEmbedder().embed(TEXTS)


def arm(faults: Path, n: int) -> None:
    faults.mkdir(exist_ok=True)
    for i in range(n):
        (faults / f"fault-{i}").touch()


@pytest.mark.parametrize("fault", ["hang", "exit"])
def test_a_failed_worker_is_restarted_and_its_batch_redone(tmp_path: Path, fault: str) -> None:
    faults = tmp_path / "faults"
    arm(faults, 1)
    reasons: list[str] = []
    progress: list[int] = []
    with pool(faults, fault, on_restart=reasons.append) as pe:
        started = time.monotonic()
        got = pe.embed(TEXTS, progress=progress.append)
        took = time.monotonic() - started
        assert pe.restarts == 1
    assert np.allclose(got, expected(), atol=1e-6)  # every row, none twice, none lost
    assert sum(progress) == len(TEXTS)
    assert list(faults.glob("claimed-*")) and not list(faults.glob("fault-*"))
    assert ("hung" if fault == "hang" else "stopped unexpectedly") in reasons[0]
    assert took < 60  # detected within the timeout, not after the hung sleep (an hour)


def test_a_fault_that_repeats_ends_in_one_clear_error(tmp_path: Path) -> None:
    faults = tmp_path / "faults"
    arm(faults, 10)
    pe = pool(faults, "exit", max_restarts=2)
    with pytest.raises(EmbeddingWorkerError, match="failed 3 times in a row"):
        pe.embed(TEXTS)
    assert pe.worker_pids() == []  # torn down, nothing left running
    pe.close()


def test_healthy_workers_never_restart(tmp_path: Path) -> None:
    with pool(tmp_path, "hang") as pe:
        got = pe.embed(TEXTS)
        assert pe.restarts == 0
    assert np.allclose(got, expected(), atol=1e-6)
