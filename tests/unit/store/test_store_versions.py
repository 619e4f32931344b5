"""Links, loader versions, chunking and the kept earlier texts of documents in the store."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.store.rows import StoredState
from evidence_desk.store.sqlite import ArchiveStore
from evidence_desk.types import Document, Link, Passage

DIM = 4


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ArchiveStore]:
    with ArchiveStore(tmp_path / "archive.sqlite3") as s:
        yield s


def doc(doc_id: str, text: str, version: str = "text-1", **fields: object) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Document(
        doc_id=doc_id,
        title=f"Title of {doc_id}",
        content_sha256=digest,
        ingested_at="2024-01-01T00:00:00Z",
        text=text,
        loader_version=version,
        **fields,  # type: ignore[arg-type]
    )


def put(store: ArchiveStore, d: Document, chunking: str = "12/30") -> str:
    passages = [Passage(id=f"{d.doc_id}#0", doc_id=d.doc_id, text=d.text, start=0, end=len(d.text))]
    return store.upsert(d, passages, np.ones((1, DIM), dtype=np.float32), chunking=chunking)


def kept_hashes(store: ArchiveStore, doc_id: str) -> list[str]:
    query = "SELECT content_sha256 FROM document_versions WHERE doc_id = ?"
    return sorted(row[0] for row in store._reader().execute(query, (doc_id,)))


def test_links_and_loader_version_round_trip(store: ArchiveStore) -> None:
    d = doc(
        "a.md",
        "see the guide for details",
        version="markdown-2",
        links=(Link(text="guide", url="https://example.gov/guide/", start=8, end=13),),
    )
    assert put(store, d) == "added"
    assert store.get_document("a.md") == d
    assert store.document_state("a.md") == StoredState(d.content_sha256, "markdown-2", "12/30")
    assert store.document_state("missing") is None


def test_other_chunking_rewrites_the_passages_of_the_same_text(store: ArchiveStore) -> None:
    d = doc("a", "One stable text.")
    put(store, d)
    generation = store.generation()
    assert put(store, d) == "unchanged" and store.generation() == generation
    assert put(store, d, chunking="5/9") == "replaced" and store.generation() == generation + 1
    assert store.document_state("a") == StoredState(d.content_sha256, "text-1", "5/9")
    assert kept_hashes(store, "a") == []  # the text did not change: nothing to keep


def test_each_replaced_text_is_kept_once(store: ArchiveStore) -> None:
    a, b, c = doc("x", "Text A."), doc("x", "Text B.", "text-2"), doc("x", "Text C.")
    put(store, a)
    put(store, b)
    put(store, c)
    assert kept_hashes(store, "x") == sorted([a.content_sha256, b.content_sha256])
    put(store, b)  # back to B: B is current again, C is kept, no row for B
    assert kept_hashes(store, "x") == sorted([a.content_sha256, c.content_sha256])
    found = store.texts_by_hash(
        [("x", a.content_sha256), ("x", b.content_sha256), ("x", "0" * 64), ("y", a.content_sha256)]
    )
    assert set(found) == {("x", a.content_sha256), ("x", b.content_sha256)}
    assert (found["x", a.content_sha256].text, found["x", a.content_sha256].current) == (
        "Text A.",
        False,
    )
    assert found["x", b.content_sha256].current and found["x", b.content_sha256].text == "Text B."
    assert found["x", a.content_sha256].loader_version == "text-1"


def test_a_failed_replacement_keeps_nothing(store: ArchiveStore) -> None:
    put(store, doc("a", "The original text."))
    new = doc("a", "A replacement.")
    clash = [
        Passage(id="a#0", doc_id="a", text="A", start=0, end=1),
        Passage(id="a#0", doc_id="a", text="replacement", start=2, end=13),
    ]
    with pytest.raises(sqlite3.IntegrityError):
        store.upsert(new, clash, np.ones((2, DIM), dtype=np.float32), chunking="12/30")
    assert kept_hashes(store, "a") == []


def test_deleting_a_document_keeps_its_earlier_texts(store: ArchiveStore) -> None:
    old, new = doc("a", "Quoted once."), doc("a", "Replaced later.")
    put(store, old)
    put(store, new)
    assert store.delete("a")
    found = store.texts_by_hash([("a", old.content_sha256), ("a", new.content_sha256)])
    assert list(found) == [("a", old.content_sha256)]


def test_update_metadata_records_links_and_the_loader_version(store: ArchiveStore) -> None:
    d = doc("a", "see the guide", version="")
    put(store, d)
    assert store.document_state("a") == StoredState(d.content_sha256, "", "12/30")
    upgraded = d.model_copy(
        update={
            "loader_version": "markdown-2",
            "links": (Link(text="guide", url="https://g.gov/", start=8, end=13),),
        }
    )
    assert store.update_metadata(upgraded) is True
    assert store.get_document("a") == upgraded
    assert store.update_metadata(upgraded) is False


def test_texts_by_hash_answers_many_pairs(store: ArchiveStore) -> None:
    docs = [doc(f"d{i}", f"Document number {i}.") for i in range(450)]
    for d in docs:
        put(store, d)
    found = store.texts_by_hash([(d.doc_id, d.content_sha256) for d in docs])
    assert len(found) == 450 and all(t.current for t in found.values())
