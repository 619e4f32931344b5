"""A sample prepared in the background: questions wait for it, and nothing half-stored is
ever seen or left behind, whether it finishes, is stopped, or its process was killed.

The archive is the small one (six addresses) standing in for the sample (`load=`),
embedded with `HashingEmbedder`, which can be held at its first call (`HeldEmbedder`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from evidence_desk.archive.loaders import iter_documents
from evidence_desk.archive.results import LoadResult
from evidence_desk.desk import Desk, preparing
from evidence_desk.desk.preparing import ArchivePreparing, SamplePreparation
from evidence_desk.errors import DeskError
from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import QUESTION, SMALL_ARCHIVE
from evidence_desk.testing.embedder import HashingEmbedder


class HeldEmbedder(HashingEmbedder):
    """Embeds once `go` is set; counts the texts it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()
        self.texts = 0

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        assert self.go.wait(30), "the test never let the embedder go"
        self.texts += len(texts)
        return super().embed(texts, progress)


def settings(home: Path, cache: Path | None = None) -> Settings:
    return Settings(home=home, cache_dir=cache, embed_workers=1)


def loader(path: Path) -> Callable[[], list[LoadResult]]:
    return lambda: list(iter_documents([path]))


def wait_for(preparation: SamplePreparation, stage: str) -> None:
    for _ in range(3000):
        if preparation.progress().stage == stage:
            return
        assert not preparation.wait(0.01), preparation.progress()
    raise AssertionError(f"never reached {stage}: {preparation.progress()}")


def test_questions_wait_for_the_preparation(tmp_path: Path, small_archive_file: Path) -> None:
    embedder = HeldEmbedder()
    desk = Desk(settings(tmp_path / "home"), embedder=embedder)
    assert desk.needs_preparation()
    preparation = desk.prepare_sample("small", load=loader(small_archive_file))
    wait_for(preparation, "embedding")
    with pytest.raises(ArchivePreparing) as refused:
        desk.submit(f"  {QUESTION} ", mode="deep")
    assert str(refused.value).startswith("The archive is still being prepared")
    assert str(refused.value).endswith("Ask again once it is ready.")
    assert (refused.value.question, refused.value.mode, refused.value.status) == (
        QUESTION,
        "deep",
        503,
    )
    assert desk.runs() == []  # no run was opened
    assert desk.store.count_documents() == 0  # nothing is stored while passages are embedded
    embedder.go.set()
    assert preparation.wait(30)
    assert preparation.progress().ready, preparation.progress()
    assert desk.store.count_documents() == len(SMALL_ARCHIVE)
    assert not desk.needs_preparation()
    run_id = desk.submit(QUESTION)
    desk.execute(run_id)
    assert desk.runs_state(run_id) in ("published", "held", "outside")


def test_stopped_while_storing_it_leaves_the_archive_as_it_was(
    tmp_path: Path, small_archive_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    desk = Desk(settings(home, cache), embedder=HashingEmbedder())
    preparation = SamplePreparation(desk, "small", load=loader(small_archive_file))
    seen: list[object] = []
    count = preparation.tracker.count

    def stop_at_the_second_document(done: int) -> None:
        count(done)
        if done != 2:
            return
        other = Desk(settings(home, cache), embedder=HashingEmbedder())  # another process
        seen.append(other.store.count_documents())
        try:
            other.submit(QUESTION)
        except ArchivePreparing as exc:
            seen.append(str(exc))
        preparation.stop(timeout=0)

    monkeypatch.setattr(preparation.tracker, "count", stop_at_the_second_document)
    preparation.start()
    assert preparation.wait(30)
    assert preparation.progress().stage == "stopped"
    assert seen[0] == 2  # half of it was stored, under the mark ...
    assert "is still being prepared (the small sample)" in str(seen[1])  # ... and refused
    assert desk.store.count_documents() == 0  # ... and deleted again
    assert not desk.store.get_meta("preparing")
    assert desk.needs_preparation()
    again = HeldEmbedder()
    again.go.set()
    redo = Desk(settings(home, cache), embedder=again)
    assert redo.prepare_sample("small", load=loader(small_archive_file)).wait(30)
    assert redo.store.count_documents() == len(SMALL_ARCHIVE)
    assert again.texts == 1  # every passage came from the cache: only `warm` embedded


def test_stopped_while_embedding_the_next_run_embeds_only_what_is_left(
    tmp_path: Path, small_archive_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preparing, "SLICE", 50)
    home, cache = tmp_path / "home", tmp_path / "cache"
    first = HeldEmbedder()
    desk = Desk(settings(home, cache), embedder=first)
    preparation = desk.prepare_sample("small", load=loader(small_archive_file))
    wait_for(preparation, "embedding")
    total = preparation.progress().total
    assert total > 150
    stop = threading.Timer(0.05, preparation.stop)
    original = first.embed

    def embed(texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        if first.texts == 100:  # two slices are in the cache: the third call never returns
            stop.start()
            while not preparation.stopping:
                threading.Event().wait(0.01)
        return original(texts, progress)

    monkeypatch.setattr(first, "embed", embed)
    first.go.set()
    assert preparation.wait(30)
    assert preparation.progress().stage == "stopped"
    assert desk.store.count_documents() == 0
    again = HeldEmbedder()
    again.go.set()
    redo = Desk(settings(home, cache), embedder=again)
    assert redo.prepare_sample("small", load=loader(small_archive_file)).wait(30)
    assert redo.preparation is not None and redo.preparation.progress().ready
    assert again.texts == total - 100 + 1  # what was left, and `warm`'s one text


def test_a_killed_preparation_is_refused_and_finished_by_the_next(
    tmp_path: Path, small_archive_file: Path
) -> None:
    """A preparation killed outright (kill -9) leaves its mark with some documents: no
    question is answered from them, and the next preparation stores the rest."""
    home = tmp_path / "home"
    partial = tmp_path / "partial.jsonl"
    partial.write_text(small_archive_file.read_text("utf-8").splitlines()[0] + "\n", "utf-8")
    desk = Desk(settings(home), embedder=HashingEmbedder())
    assert desk.ingest([partial]).added == 1
    desk.store.set_meta("preparing", "sotu")
    assert desk.needs_preparation()
    with pytest.raises(ArchivePreparing, match=r"run `evidence-desk serve --sample sotu`"):
        desk.submit(QUESTION)
    preparation = desk.prepare_sample("sotu", load=loader(small_archive_file))
    assert preparation.wait(30) and preparation.progress().ready
    assert desk.store.count_documents() == len(SMALL_ARCHIVE)
    assert not desk.store.get_meta("preparing")
    assert preparation.summary is not None and preparation.summary.unchanged == 1


def test_an_unknown_sample_is_refused_at_once(tmp_path: Path) -> None:
    desk = Desk(settings(tmp_path / "home"), embedder=HashingEmbedder())
    with pytest.raises(DeskError, match=r"Unknown sample 'nope'; available samples: sotu\."):
        desk.prepare_sample("nope")
    assert desk.preparation is None
