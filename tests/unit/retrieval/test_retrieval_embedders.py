"""One embedder per archive: recorded with the first vectors, required of every later one.

No model loads here: the embedders are named stand-ins with the attributes an archive
records (`model_id`, `name`, `tag`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evidence_desk.archive.ingest import ingest
from evidence_desk.archive.loaders.common import build_document
from evidence_desk.archive.results import Loaded
from evidence_desk.retrieval.embedders import (
    DEFAULT,
    EmbedderMismatch,
    check_embedder,
    check_queries,
    chosen_name,
    make_embedder,
    meta_items,
    recorded,
    target_name,
    vector_tag,
)
from evidence_desk.settings import Settings
from evidence_desk.store.sqlite import ArchiveStore, StoreError
from evidence_desk.testing.embedder import HashingEmbedder

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class Named:
    def __init__(self, name: str, tag: str, model_id: str = MODEL) -> None:
        self.model_id, self.name, self.tag, self.dim = model_id, name, tag, 384


@pytest.fixture
def store(tmp_path: Path) -> ArchiveStore:
    return ArchiveStore(tmp_path / "archive.sqlite3")


def test_the_first_vectors_record_their_embedder(store: ArchiveStore) -> None:
    assert recorded(store) is None
    check_embedder(store, Named("onnx-int8", "onnx-int8|r1"))  # type: ignore[arg-type]
    rec = recorded(store)
    assert rec is not None and (rec.name, rec.tag) == ("onnx-int8", "onnx-int8|r1")
    check_embedder(store, Named("onnx-int8", "onnx-int8|r1"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "other",
    [
        Named("torch", "fp32"),  # another back-end
        Named("onnx-int8", "onnx-int8|r2"),  # another build recipe
        Named("onnx-int8", "onnx-int8|r1", model_id="other/model"),  # another model
    ],
)
def test_vectors_of_another_embedder_are_refused(store: ArchiveStore, other: Named) -> None:
    check_embedder(store, Named("onnx-int8", "onnx-int8|r1"))  # type: ignore[arg-type]
    with pytest.raises(EmbedderMismatch, match=r"never mixed.*evidence-desk reembed"):
        check_embedder(store, other)  # type: ignore[arg-type]
    with pytest.raises(EmbedderMismatch, match="reembed"):
        check_queries(store, other)  # type: ignore[arg-type]


def test_torch_precision_is_the_machines_choice_not_a_new_embedder(store: ArchiveStore) -> None:
    check_embedder(store, Named("torch", "bf16"))  # type: ignore[arg-type]
    check_embedder(store, Named("torch", "fp32"))  # type: ignore[arg-type]  # cos >= 0.9999
    check_queries(store, Named("torch", "fp32"))  # type: ignore[arg-type]


def test_an_archive_from_before_names_is_the_torch_path(store: ArchiveStore) -> None:
    store.set_meta("embedding_model", MODEL)  # all an older version recorded
    assert chosen_name(Settings(embedder="onnx-int8"), store) == "torch"
    check_embedder(store, Named("torch", "fp32"))  # type: ignore[arg-type]
    check_queries(store, Named("torch", "bf16"))  # type: ignore[arg-type]


def test_the_archive_decides_which_embedder_its_queries_use(store: ArchiveStore) -> None:
    assert chosen_name(Settings(), store) == DEFAULT  # a new archive: the default
    assert chosen_name(Settings(embedder="torch"), store) == "torch"
    check_embedder(store, Named("onnx-fp32", "onnx-fp32|r1"))  # type: ignore[arg-type]
    # Settings that name another embedder do not change what searches this archive.
    assert chosen_name(Settings(embedder="torch"), store) == "onnx-fp32"
    assert target_name(Settings(embedder="torch")) == "torch"
    assert target_name(Settings()) == DEFAULT


def test_names_build_their_embedders_and_unknown_ones_are_refused(tmp_path: Path) -> None:
    s = Settings(home=tmp_path, cache_dir=tmp_path / "cache")
    assert make_embedder("torch", s).name == "torch"
    int8 = make_embedder("onnx-int8", s)
    assert int8.name == "onnx-int8" and int8.tag.startswith("onnx-int8|")
    assert make_embedder("onnx-fp32", s).tag != int8.tag  # separate cache keys
    assert vector_tag(HashingEmbedder()) == "fp32"
    from evidence_desk.errors import DeskError

    with pytest.raises(DeskError, match="Unknown embedder 'gpu'"):
        make_embedder("gpu", s)


def _stored(store: ArchiveStore) -> None:
    text = "The banks reopened. Rubber was rationed."
    doc = build_document("d", text, "T")
    ingest(
        [Loaded(doc, source_path="mem/d")],
        store,
        HashingEmbedder(),
        target_words=120,
        max_words=220,
    )


def test_replacing_vectors_is_whole_or_nothing(store: ArchiveStore) -> None:
    _stored(store)
    generation, texts = store.passage_texts()
    new = {h: np.ones(384, dtype=np.float32) / np.sqrt(384) for h in texts}
    with pytest.raises(StoreError, match="changed while"):
        store.replace_vectors(new, generation - 1, {"embedder": "x"})
    with pytest.raises(StoreError, match="no new vector"):
        store.replace_vectors({}, generation, {"embedder": "x"})
    assert store.get_meta("embedder") == "hashing"  # nothing was replaced
    other = Named("onnx-int8", "onnx-int8|r1")
    assert store.replace_vectors(new, generation, meta_items(other)) == 1  # type: ignore[arg-type]
    assert store.generation() == generation + 1  # the index rebuilds
    rec = recorded(store)
    assert rec is not None and rec.name == "onnx-int8"
    assert np.allclose(store.export_index_rows().vectors[0], new[next(iter(texts))])
