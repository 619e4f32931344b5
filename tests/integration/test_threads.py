"""One desk used from several threads, as the web app will: asks run side by side, and a
stale index is rebuilt once, not once per thread."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import SMALL_ARCHIVE, settings_for
from evidence_desk.desk import Desk
from evidence_desk.retrieval.index import HybridIndex
from evidence_desk.testing.embedder import HashingEmbedder

QUESTIONS = [
    "What did Roosevelt say about the four freedoms in 1941?",
    "What did Kennedy say about the Peace Corps?",
    "What did Obama say about bin Laden?",
    "What did Lincoln say about slavery in 1862?",
]


def test_asks_from_several_threads_share_one_rebuilt_index(
    tmp_path: Path,
    small_archive_file: Path,
    embedding_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    desk = Desk(settings_for(home, embedding_cache), embedder=HashingEmbedder())
    assert desk.ingest([small_archive_file]).added == len(SMALL_ARCHIVE)
    shutil.rmtree(desk.settings.index_dir)  # stale: every thread would want to rebuild it
    fresh = Desk(settings_for(home, embedding_cache), embedder=HashingEmbedder())
    builds: list[int] = []
    build = HybridIndex.build

    def counted(*args: object, **kw: object) -> HybridIndex:
        builds.append(1)
        return build(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(HybridIndex, "build", staticmethod(counted))
    with ThreadPoolExecutor(max_workers=4) as pool:
        receipts = list(pool.map(lambda q: fresh.ask(q).receipt, QUESTIONS * 2))
    assert builds == [1]
    assert len({r["run_id"] for r in receipts}) == len(receipts)
    assert all(fresh.verify_receipt(r).ok for r in receipts)
    assert fresh.verify_chain().receipts == len(receipts) and fresh.verify_chain().ok
    assert {r.state for r in fresh.runs()} <= {"published", "held", "outside"}
