"""Re-ingest upgrades: a new loader version re-extracts, new passage sizes re-chunk, counted.

The old archive of the last test is a real one: a database with only the migrations that
existed before loader versions, holding the raw markdown bodies the old loader stored.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from archive_helpers import FIXTURES, HashingEmbedder

from evidence_desk.archive.chunking import chunk
from evidence_desk.archive.ingest import IngestSummary, ingest
from evidence_desk.archive.loaders import iter_documents
from evidence_desk.archive.loaders import versions as loader_versions
from evidence_desk.archive.loaders.markdown import split_front_matter
from evidence_desk.archive.results import Loaded
from evidence_desk.hashing import sha256_text
from evidence_desk.store.migrations import MIGRATIONS
from evidence_desk.store.rows import StoredState
from evidence_desk.store.sqlite import ArchiveStore

SIZES = {"target_words": 12, "max_words": 30}
FOLDER = FIXTURES / "folder"
MARKDOWN = ("2017/08/2017-08-28-open-data-week.md", "notes/no-front-matter.md")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ArchiveStore]:
    with ArchiveStore(tmp_path / "archive.sqlite3") as s:
        yield s


def outcomes(summary: IngestSummary) -> dict[str, int]:
    fields = ("added", "replaced", "reextracted", "rechunked", "updated", "unchanged")
    return {name: getattr(summary, name) for name in fields if getattr(summary, name)}


def test_a_new_loader_version_re_extracts_its_documents(
    store: ArchiveStore, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(iter_documents([FOLDER]), store, embedder, **SIZES)
    generation, calls = store.generation(), len(embedder.calls)
    monkeypatch.setitem(loader_versions.LOADER_VERSIONS, "markdown", "markdown-test")
    summary = ingest(iter_documents([FOLDER]), store, embedder, **SIZES)
    # Same text from the new version: only the version (and links) are written, nothing embedded.
    assert outcomes(summary) == {"reextracted": 2, "unchanged": 3}
    assert summary.documents == 5 and summary.passages_embedded == 0
    assert len(embedder.calls) == calls and store.generation() > generation
    for doc_id in MARKDOWN:
        state = store.document_state(doc_id)
        assert state is not None and state.loader_version == "markdown-test"
    again = ingest(iter_documents([FOLDER]), store, embedder, **SIZES)
    assert outcomes(again) == {"unchanged": 5}


def test_a_changed_text_from_a_new_version_replaces_the_old_and_keeps_it(
    tmp_path: Path, store: ArchiveStore, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("The first version of the notes says one thing.", "utf-8")
    ingest(iter_documents([folder]), store, embedder, **SIZES)
    old = store.get_document("a.txt")
    assert old is not None
    monkeypatch.setitem(loader_versions.LOADER_VERSIONS, "text", "text-test")
    (folder / "a.txt").write_text("A reader of the new version sees another text.", "utf-8")
    summary = ingest(iter_documents([folder]), store, embedder, **SIZES)
    assert outcomes(summary) == {"reextracted": 1} and summary.passages_embedded == 1
    new = store.get_document("a.txt")
    assert new is not None and new.loader_version == "text-test"
    found = store.texts_by_hash([("a.txt", old.content_sha256), ("a.txt", new.content_sha256)])
    assert found["a.txt", old.content_sha256].text == old.text
    assert not found["a.txt", old.content_sha256].current
    assert found["a.txt", new.content_sha256].current


def test_other_passage_sizes_re_chunk_unchanged_texts(
    store: ArchiveStore, embedder: HashingEmbedder
) -> None:
    ingest(iter_documents([FOLDER]), store, embedder, **SIZES)
    assert {store.document_state(d).chunking for d in MARKDOWN} == {"12/30"}  # type: ignore[union-attr]
    summary = ingest(iter_documents([FOLDER]), store, embedder, target_words=5, max_words=9)
    assert outcomes(summary) == {"rechunked": 5} and summary.documents == 5
    doc = store.get_document(MARKDOWN[0])
    assert doc is not None
    expected = [p.id for p in chunk(doc, 5, 9)]
    rows = store.export_index_rows()
    assert [pid for pid in rows.passage_ids if pid.startswith(MARKDOWN[0])] == expected
    assert store.document_state(MARKDOWN[0]) == StoredState(
        doc.content_sha256, doc.loader_version, "5/9"
    )
    again = ingest(iter_documents([FOLDER]), store, embedder, target_words=5, max_words=9)
    assert outcomes(again) == {"unchanged": 5}


def _old_archive(path: Path, embedder: HashingEmbedder) -> None:
    """A database as the code before loader versions left it: two migrations, raw bodies."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, fn in MIGRATIONS[:2]:
        fn(db)
        db.execute("INSERT INTO _migrations VALUES (?, '2024-01-01T00:00:00Z')", (name,))
    db.execute("INSERT INTO meta VALUES ('embedding_model', ?)", (embedder.model_id,))
    for doc_id in MARKDOWN:
        _, body = split_front_matter((FOLDER / doc_id).read_text("utf-8"))
        db.execute(
            "INSERT INTO documents (doc_id, title, origin, content_sha256, ingested_at, text) "
            "VALUES (?, 'Old', 'archive', ?, '2024-01-01T00:00:00Z', ?)",
            (doc_id, sha256_text(body), body),
        )
        vector = np.ones(embedder.dim, dtype="<f4").tobytes()
        db.execute(
            'INSERT INTO passages (passage_id, doc_id, ordinal, start, "end", text_sha256, vector)'
            " VALUES (?, ?, 0, 0, ?, ?, ?)",
            (f"{doc_id}#0", doc_id, len(body), sha256_text(body), vector),
        )
    db.close()


def test_an_archive_of_raw_markdown_is_upgraded_in_one_run(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    path = tmp_path / "old.sqlite3"
    _old_archive(path, embedder)
    raw = {d: split_front_matter((FOLDER / d).read_text("utf-8"))[1] for d in MARKDOWN}
    folder = tmp_path / "posts"
    shutil.copytree(FOLDER, folder)
    with ArchiveStore(path) as store:  # opening it applies the new migration
        assert store.document_state(MARKDOWN[0]) == StoredState(
            sha256_text(raw[MARKDOWN[0]]), "", ""
        )
        summary = ingest(iter_documents([folder]), store, embedder, **SIZES)
        assert outcomes(summary) == {"added": 3, "reextracted": 2} and summary.documents == 5
        loaded = {
            r.document.doc_id: r.document for r in iter_documents([folder]) if isinstance(r, Loaded)
        }
        for doc_id in MARKDOWN:
            doc = store.get_document(doc_id)
            assert doc is not None and doc.text == loaded[doc_id].text != raw[doc_id]
            assert doc.loader_version == "markdown-3"
            kept = store.texts_by_hash([(doc_id, sha256_text(raw[doc_id]))])
            assert kept[doc_id, sha256_text(raw[doc_id])].text == raw[doc_id]
        assert summary.passages_embedded + summary.passages_reused == store.count_passages()
        again = ingest(iter_documents([folder]), store, embedder, **SIZES)
        assert outcomes(again) == {"unchanged": 5}
