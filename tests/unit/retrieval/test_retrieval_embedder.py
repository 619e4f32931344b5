"""The in-process embedding model: meaning, shapes and the pre-tokenized path."""

from __future__ import annotations

import numpy as np
import pytest

from evidence_desk.retrieval.embedder import DIM, MiniLMEmbedder

pytestmark = pytest.mark.torch  # loads the embedding model


def test_a_paraphrase_scores_higher_than_an_unrelated_sentence(embedder: MiniLMEmbedder) -> None:
    anchor, paraphrase, unrelated = embedder.embed(
        [
            "How do I delete a file in Python?",
            "What is the way to remove a file using Python?",
            "The orchestra played a symphony by Brahms last night.",
        ]
    )
    assert float(anchor @ paraphrase) > 0.7
    assert float(anchor @ unrelated) < 0.3


def test_vectors_are_unit_length_float32(embedder: MiniLMEmbedder) -> None:
    vecs = embedder.embed(["one", "two words", "a somewhat longer third text to embed"])
    assert vecs.shape == (3, DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
    assert embedder.embed([]).shape == (0, DIM)


def test_query_and_batch_paths_agree(embedder: MiniLMEmbedder) -> None:
    texts = ["banks reopened", "the moon landing was planned for the decade", "x"]
    batch = embedder.embed(texts)
    single = embedder.embed_query(texts[1])
    assert float(batch[1] @ single) > 0.999
    from_ids = embedder.embed_token_ids(embedder.tokenize(texts))
    assert np.min(np.sum(batch * from_ids, axis=1)) > 0.999


def test_progress_counts_every_text(embedder: MiniLMEmbedder) -> None:
    seen: list[int] = []
    embedder.embed([f"text number {i}" for i in range(70)], progress=seen.append)
    assert sum(seen) == 70 and len(seen) >= 2
