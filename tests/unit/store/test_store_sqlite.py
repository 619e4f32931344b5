"""The SQLite archive store: upsert outcomes, atomicity, reads, export, receipts, threads."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.store.migrations import MIGRATIONS, SchemaError
from evidence_desk.store.sqlite import ArchiveStore, ReceiptChainError, StoreError
from evidence_desk.types import Document, PageSpan, Passage

DIM = 8
CHUNKING = "12/12"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ArchiveStore]:
    with ArchiveStore(tmp_path / "archive.sqlite3") as s:
        yield s


def doc(doc_id: str, text: str, **fields: object) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    base: dict[str, object] = {
        "title": f"Title of {doc_id}",
        "date": "2020-01-02",
        "url": f"https://example.org/{doc_id}",
        "ingested_at": "2024-01-01T00:00:00Z",
        "meta": {"author": "Jane Doe"},
    }
    return Document(doc_id=doc_id, text=text, content_sha256=digest, **{**base, **fields})  # type: ignore[arg-type]


def passages_of(d: Document, size: int = 12) -> list[Passage]:
    out = []
    for i, start in enumerate(range(0, len(d.text), size)):
        end = min(start + size, len(d.text))
        out.append(
            Passage(
                id=f"{d.doc_id}#{i}", doc_id=d.doc_id, text=d.text[start:end], start=start, end=end
            )
        )
    return out


def vectors_for(passages: list[Passage], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((len(passages), DIM)).astype(np.float32)


def put(store: ArchiveStore, d: Document, seed: int = 0) -> str:
    ps = passages_of(d)
    return store.upsert(d, ps, vectors_for(ps, seed), chunking=CHUNKING)


def test_added_unchanged_replaced(store: ArchiveStore) -> None:
    first = doc("a", "Hello world, this is a test document.")
    assert store.generation() == 0
    assert put(store, first) == "added"
    assert store.generation() == 1
    assert store.document_sha("a") == first.content_sha256
    assert put(store, first, seed=9) == "unchanged"
    assert store.generation() == 1
    second = doc("a", "A different text entirely, now longer than before.")
    assert put(store, second) == "replaced"
    assert store.generation() == 2
    assert store.count_documents() == 1
    assert store.count_passages() == len(passages_of(second))
    assert store.get_document("a") == second


def test_document_round_trip_keeps_everything(store: ArchiveStore) -> None:
    text = "Page one text.\n\nPage two — naïve café 日本."
    d = doc(
        "book.pdf",
        text,
        pages=(PageSpan(label="i", start=0, end=14), PageSpan(label="1", start=16, end=len(text))),
        meta={"author": "Ann; Bob", "unreadable_pages": "3"},
        url=None,
        date=None,
    )
    put(store, d)
    assert store.get_document("book.pdf") == d
    assert store.get_document("missing") is None
    assert set(store.get_documents(["book.pdf", "missing"])) == {"book.pdf"}
    [meta] = list(store.iter_documents_meta())
    assert (meta.doc_id, meta.title, meta.meta) == ("book.pdf", d.title, d.meta)


def test_failure_mid_upsert_leaves_the_old_document_intact(store: ArchiveStore) -> None:
    old = doc("a", "The original text that must survive.")
    put(store, old)
    generation = store.generation()
    new = doc("a", "A replacement whose passages collide.")
    ps = passages_of(new)
    clash = [
        ps[0],
        Passage(id=ps[0].id, doc_id="a", text=ps[1].text, start=ps[1].start, end=ps[1].end),
    ]
    # the duplicate passage id fails inside the transaction, after the old passages were deleted
    with pytest.raises(sqlite3.IntegrityError):
        store.upsert(new, clash, vectors_for(clash), chunking=CHUNKING)
    assert store.get_document("a") == old
    assert [p.text for p in store.passages_by_ids([p.id for p in passages_of(old)])] == [
        p.text for p in passages_of(old)
    ]
    assert store.generation() == generation


@pytest.mark.parametrize("shape", [(3, DIM), (2, DIM, 1), (2,)])
def test_vectors_of_the_wrong_shape_are_refused_before_writing(
    store: ArchiveStore, shape: tuple[int, ...]
) -> None:
    old = doc("a", "Original text for shape checks.")
    put(store, old)
    new = doc("a", "New text!")
    ps = passages_of(new)
    assert len(ps) == 1
    with pytest.raises(ValueError, match="one vector per passage"):
        store.upsert(new, ps, np.zeros(shape, dtype=np.float32), chunking=CHUNKING)
    assert store.get_document("a") == old


def test_dimension_must_match_the_archive(store: ArchiveStore) -> None:
    put(store, doc("a", "Some text here."))
    d = doc("b", "Other text.")
    with pytest.raises(ValueError, match="Vectors have 4 dimensions; the archive uses 8"):
        store.upsert(d, passages_of(d), np.zeros((1, 4), dtype=np.float32), chunking=CHUNKING)


def test_passages_must_be_windows_of_the_document(store: ArchiveStore) -> None:
    d = doc("a", "Exact windows only.")
    bad = [Passage(id="a#0", doc_id="a", text="not in the text", start=0, end=5)]
    with pytest.raises(ValueError, match="is not a window of 'a'"):
        store.upsert(d, bad, np.zeros((1, DIM), dtype=np.float32), chunking=CHUNKING)
    assert store.count_documents() == 0


def test_passages_by_ids_keeps_order_and_skips_unknown(store: ArchiveStore) -> None:
    d = doc("x", "Ünïcödé text — with “quotes” and 日本語 characters in it.")
    ps = passages_of(d, size=7)
    store.upsert(d, ps, vectors_for(ps), chunking=CHUNKING)
    wanted = [ps[3].id, "nope#1", ps[0].id, ps[2].id]
    assert store.passages_by_ids(wanted) == [ps[3], ps[0], ps[2]]


def test_vectors_are_reused_by_text_hash(store: ArchiveStore) -> None:
    d = doc("a", "Twelve chars" * 2)
    ps = passages_of(d)
    vectors = vectors_for(ps)
    store.upsert(d, ps, vectors, chunking=CHUNKING)
    digest = hashlib.sha256(ps[0].text.encode()).hexdigest()
    found = store.vectors_for_text_hashes([digest, "0" * 64])
    assert list(found) == [digest]
    assert found[digest].dtype == np.float32
    assert np.array_equal(found[digest], vectors[0])


def test_export_index_rows(store: ArchiveStore) -> None:
    a, b = (
        doc("b-doc", "Second document text."),
        doc("a-doc", "First document, dated none.", date=None),
    )
    put(store, a, seed=1)
    put(store, b, seed=2)
    rows = store.export_index_rows()
    assert rows.generation == store.generation() == 2
    assert len(rows) == store.count_passages()
    assert (
        rows.doc_ids[0] == "a-doc" and rows.dates[0] is None and rows.titles[0] == "Title of a-doc"
    )
    assert rows.vectors.shape == (len(rows), DIM) and rows.vectors.dtype == np.float32
    assert np.array_equal(rows.vectors[: len(passages_of(b))], vectors_for(passages_of(b), 2))
    for i, pid in enumerate(rows.passage_ids):
        [p] = store.passages_by_ids([pid])
        assert (p.text, p.start, p.end) == (rows.texts[i], rows.starts[i], rows.ends[i])


def test_empty_export(store: ArchiveStore) -> None:
    rows = store.export_index_rows()
    assert len(rows) == 0 and rows.vectors.shape[0] == 0


def test_update_metadata_and_delete(store: ArchiveStore) -> None:
    d = doc("a", "Stable text.")
    put(store, d)
    assert store.update_metadata(d) is False
    renamed = d.model_copy(update={"title": "New title", "ingested_at": "2030-01-01T00:00:00Z"})
    assert store.update_metadata(renamed) is True
    stored = store.get_document("a")
    assert stored is not None and stored.title == "New title"
    assert stored.ingested_at == d.ingested_at  # when the text arrived, not the metadata
    generation = store.generation()
    assert store.delete("a") is True and store.delete("a") is False
    assert store.count_passages() == 0  # cascaded
    assert store.generation() == generation + 1


def test_receipt_chain(store: ArchiveStore) -> None:
    assert store.last_receipt_sha() is None
    store.append_receipt("r1", "2024-01-01T00:00:00Z", "AUTO_CLEARED", "h1", None, '{"a": 1}')
    store.append_receipt("r2", "2024-01-01T00:01:00Z", "HELD_FOR_REVIEW", "h2", "h1", '{"b": 2}')
    assert store.last_receipt_sha() == "h2"
    with pytest.raises(ReceiptChainError, match="links to h1, but the last receipt is h2"):
        store.append_receipt("r3", "2024-01-01T00:02:00Z", "AUTO_CLEARED", "h3", "h1", "{}")
    receipt = store.get_receipt("r2")
    assert receipt is not None and (receipt.decision, receipt.json) == (
        "HELD_FOR_REVIEW",
        '{"b": 2}',
    )
    assert [r.run_id for r in store.iter_receipts()] == ["r1", "r2"]
    assert store.get_receipt("r3") is None
    assert store.generation() == 0  # receipts do not change the archive


def test_reopen_keeps_data_and_migrations_run_once(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with ArchiveStore(path) as s:
        put(s, doc("a", "Persisted text."))
    with ArchiveStore(path) as s:
        assert s.count_documents() == 1
        names = [r[0] for r in s._reader().execute("SELECT name FROM _migrations ORDER BY name")]
        assert names == [name for name, _ in MIGRATIONS]
        assert s._reader().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s._reader().execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    ArchiveStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO _migrations VALUES ('m999_future', '2099-01-01T00:00:00Z')")
    with pytest.raises(SchemaError, match="newer Evidence Desk"):
        ArchiveStore(path)


def test_readers_on_other_threads_while_writing(store: ArchiveStore) -> None:
    put(store, doc("seed", "Seed document."))
    errors: list[BaseException] = []
    seen: dict[str, list[int]] = {}

    def read() -> None:
        try:
            for _ in range(50):
                seen.setdefault(threading.current_thread().name, []).append(store.count_documents())
                store.export_index_rows()
        except BaseException as exc:  # collected and re-raised on the main thread
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(20):
        put(store, doc(f"d{i}", f"Document number {i}."))
    for t in threads:
        t.join()
    assert not errors
    for counts in seen.values():  # each reader sees committed states, never going back
        assert counts == sorted(counts) and counts[0] >= 1 and counts[-1] <= 21
    assert store.count_documents() == 21


def test_a_file_that_is_not_a_database_gives_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "archive.sqlite3"
    path.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(StoreError, match=r"Cannot open the archive database .*archive\.sqlite3: "):
        ArchiveStore(path)
