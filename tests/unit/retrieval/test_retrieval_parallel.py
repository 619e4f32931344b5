"""ParallelEmbedder: same vectors as in-process, progress, chunking, clean shutdown, crashes."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.retrieval.parallel import (
    MAX_AUTO_WORKERS,
    ParallelEmbedder,
    plan_chunks,
    resolve_workers,
)
from evidence_desk.settings import Settings

pytestmark = pytest.mark.torch  # loads the embedding model

TEXTS = [
    f"Passage {i}: "
    + " ".join(
        ["the banks reopened", "astronauts flew to the moon", "rationing of rubber"][i % 3]
        for _ in range(1 + i % 5)
    )
    for i in range(40)
]


def test_two_workers_match_in_process_embeddings(embedder: MiniLMEmbedder) -> None:
    seen: list[int] = []
    with ParallelEmbedder(workers=2, batch_size=4, batches_per_chunk=2, min_parallel=1) as pe:
        got = pe.embed(TEXTS, progress=seen.append)
        assert len(pe.worker_pids()) == 2
    assert pe.worker_pids() == []  # closed
    expected = embedder.embed(TEXTS)
    assert got.shape == expected.shape
    assert float(np.min(np.sum(got * expected, axis=1))) > 0.999
    assert sum(seen) == len(TEXTS) and len(seen) == 5  # one call per 8-text chunk


def test_few_texts_stay_in_process() -> None:
    with ParallelEmbedder(workers=2, min_parallel=256) as pe:
        vecs = pe.embed(["a short text", "another one"])
        assert vecs.shape == (2, 384)
        assert pe.worker_pids() == []  # no pool was started


def test_a_killed_worker_is_replaced_and_its_batch_redone(embedder: MiniLMEmbedder) -> None:
    seen: list[str] = []
    pe = ParallelEmbedder(workers=2, min_parallel=1, on_restart=seen.append)
    pids = pe.start()
    assert len(pids) == 2
    os.kill(pids[0], signal.SIGKILL)
    got = pe.embed(TEXTS)
    assert pe.restarts == 1 and "stopped unexpectedly" in seen[0]
    assert float(np.min(np.sum(got * embedder.embed(TEXTS), axis=1))) > 0.999
    assert pids[0] not in pe.worker_pids()
    pe.close()
    assert pe.worker_pids() == []
    pe.close()  # closing twice is harmless


def test_chunks_cover_every_row_once_longest_first() -> None:
    lengths = [5, 50, 7, 300, 12, 12, 90, 1, 64]
    chunks = plan_chunks(lengths, 4)
    rows = np.concatenate(chunks)
    assert sorted(rows.tolist()) == list(range(len(lengths)))
    assert [len(c) for c in chunks] == [4, 4, 1]
    firsts = [max(lengths[r] for r in c) for c in chunks]
    assert firsts == sorted(firsts, reverse=True)


def test_worker_count_follows_settings() -> None:
    assert resolve_workers(3) == 3
    assert 1 <= resolve_workers(0) <= min(os.cpu_count() or 1, MAX_AUTO_WORKERS)
    pe = ParallelEmbedder.from_settings(Settings(embed_workers=1, embed_batch_size=16))
    assert pe.workers == 1
    assert pe.embed_query("banks").shape == (384,)
