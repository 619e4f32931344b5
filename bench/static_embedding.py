"""Fewer operations per passage: a static first pass, or the model's first layers, measured.

    .venv/bin/python -m bench.static_embedding --sample-home DIR --digitalgov-home DIR2
    .venv/bin/python -m bench.static_embedding ... --layers 3   # also the first 3 layers

A static embedding (the model2vec recipe) runs the network once per vocabulary token
(`[CLS] token [SEP]`, mean-pooled like a passage), keeps `--dims` principal components,
and weighs each token by its rarity in the archive (SIF: a / (a + p)). A passage's vector
is then the weighted mean of its tokens' vectors: no network at all, so thousands of
passages a second instead of dozens. Nothing is downloaded: the vocabulary, weights and
token frequencies are the shipped model's and the archive's own.

What it would cost is measured where it matters, on both evaluation sets: for every gold
evidence sentence of an answerable question, the dense rank (cosine between the question
and every passage of the archive) of the passage that holds it, under the archive's own
vectors (queries through its own embedder) and under the static vectors. Recall@10 and
@40 (`retrieve_k`, the candidates the dense engine hands to fusion) and the mean
reciprocal rank, with the throughput of both on the same passages in one run.

`--layers N` adds the other way to fewer operations with the same weights: the network cut
after its first N of 6 layers (PyTorch, fp32), mean-pooled like the whole model; its rate is
set beside the whole model's in PyTorch fp32, so the ratio is the saving in operations.

Each archive must already be ingested (`evidence-desk --data-dir DIR ingest --sample sotu`;
the digital.gov folder for DIR2). Distilling takes about a minute (30,522 tokens through
the PyTorch model, in batches).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.retrieval.embedder import MiniLMEmbedder, TokenEmbedder
from evidence_desk.settings import Settings
from evidence_desk.store.rows import IndexRows
from evidence_desk.trust.text import find_verbatim

from ._util import load_average, median, print_table

SIF_A = 1e-3
DISTILL_BATCH = 512
KS = (10, 40)


@dataclass(frozen=True)
class StaticModel:
    """One vector per vocabulary token; a text is the SIF-weighted mean of its tokens."""

    table: npt.NDArray[np.float32]  # (vocab, dims), each row already weighted
    tokenizer: TokenEmbedder

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for i, ids in enumerate(self.tokenizer.tokenize(texts)):
            inner = ids[1:-1] if len(ids) > 2 else ids  # [CLS] and [SEP] carry no content
            if len(inner):
                out[i] = self.table[inner].mean(axis=0)
        norms = np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        unit: npt.NDArray[np.float32] = out / norms
        return unit


def distill(texts: Sequence[str], dims: int) -> tuple[StaticModel, float]:
    """The static model of MiniLM, weighted by token frequencies in `texts`; seconds taken."""
    t0 = time.perf_counter()
    model = MiniLMEmbedder(precision="fp32", batch_size=DISTILL_BATCH, threads=None)
    vocab = model._tokenizer.get_vocab_size()
    cls, sep = model._tokenizer.token_to_id("[CLS]"), model._tokenizer.token_to_id("[SEP]")
    rows = [np.array([cls, t, sep], dtype=np.int32) for t in range(vocab)]
    vectors = model.embed_token_ids(rows)
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dims].T
    counts = np.zeros(vocab, dtype=np.float64)
    for ids in model.tokenize(texts):
        np.add.at(counts, ids, 1.0)
    p = counts / max(counts.sum(), 1.0)
    weights = SIF_A / (SIF_A + p)
    table = (reduced * weights[:, None]).astype(np.float32)
    return StaticModel(table, model), time.perf_counter() - t0


class FirstLayers(MiniLMEmbedder):
    """all-MiniLM-L6-v2 cut after its first `layers` transformer layers (PyTorch, fp32)."""

    def __init__(self, layers: int) -> None:
        super().__init__(precision="fp32", batch_size=16, threads=None)
        self.layers = layers
        self.name = f"first {layers} of 6 layers"

    @cached_property
    def _model(self) -> Any:
        model = MiniLMEmbedder._model.func(self)  # type: ignore[attr-defined]
        model.encoder.layer = model.encoder.layer[: self.layers]
        return model


def rate(embedder: TokenEmbedder, texts: Sequence[str]) -> float:
    """Passages per second on `texts`, the model loaded outside the timing."""
    embedder.embed(texts[:2])
    t0 = time.perf_counter()
    embedder.embed(texts)
    return len(texts) / (time.perf_counter() - t0)


def gold_rows(rows: IndexRows, desk: Desk, set_name: str) -> list[tuple[str, list[int]]]:
    """Per gold evidence sentence: its question and the rows (passages) that hold it."""
    by_doc: dict[str, list[int]] = {}
    for i, doc_id in enumerate(rows.doc_ids):
        by_doc.setdefault(doc_id, []).append(i)
    out: list[tuple[str, list[int]]] = []
    for q in bundled_questions(set_name):
        for ev in q.gold_evidence:
            holders: list[int] = []
            for doc_id in q.gold_doc_ids:
                doc = desk.store.get_document(doc_id)
                span = find_verbatim(ev, doc.text) if doc is not None else None
                if span is None:
                    continue
                holders += [
                    i
                    for i in by_doc.get(doc_id, [])
                    if rows.starts[i] <= span[0] and span[1] <= rows.ends[i]
                ]
            if holders:
                out.append((q.question, holders))
    return out


def ranks(
    queries: npt.NDArray[np.float32], passages: npt.NDArray[np.float32], golds: list[list[int]]
) -> list[int]:
    """1-based dense rank of the best gold passage for each query."""
    scores = queries @ passages.T
    out: list[int] = []
    for row, gold in zip(scores, golds, strict=True):
        best = float(row[gold].max())
        out.append(int((row > best).sum()) + 1)
    return out


def figures(name: str, rank_list: list[int], rate: float) -> list[object]:
    n = len(rank_list)
    recalls = [sum(r <= k for r in rank_list) / n for k in KS]
    mrr = sum(1.0 / r for r in rank_list) / n
    return [name, n, *(f"{x:.3f}" for x in recalls), f"{mrr:.3f}", median(rank_list), rate]


def measure(
    home: Path, set_name: str, dims: int, n_rate: int, layers: int | None
) -> list[list[object]]:
    desk = Desk(Settings(home=home))
    rows = desk.store.export_index_rows()
    golds = gold_rows(rows, desk, set_name)
    questions = [q for q, _ in golds]
    static, distill_s = distill(rows.texts, dims)
    t0 = time.perf_counter()
    static_vectors = static.embed(rows.texts)
    static_rate = len(rows.texts) / (time.perf_counter() - t0)
    sample = rows.texts[:: max(1, len(rows.texts) // n_rate)][:n_rate]
    own = desk.embedder
    assert isinstance(own, TokenEmbedder)
    own_rate = rate(own, sample)
    own_queries = np.stack([own.embed_query(q) for q in questions])
    gold_lists = [g for _, g in golds]
    print(
        f"\n{set_name}: {len(rows.texts):,} passages, {len(golds)} gold evidence passages; "
        f"distilled in {distill_s:.0f} s; {load_average()}"
    )
    table = [
        figures(
            f"{set_name}: {own.name} (the archive's)",
            ranks(own_queries, rows.vectors, gold_lists),
            own_rate,
        ),
        figures(
            f"{set_name}: static {dims}d",
            ranks(static.embed(questions), static_vectors, gold_lists),
            static_rate,
        ),
    ]
    if layers is not None:
        cut = FirstLayers(layers)
        whole_rate = rate(MiniLMEmbedder(precision="fp32", batch_size=16, threads=None), sample)
        cut_rate = rate(cut, sample)
        cut_vectors = cut.embed(rows.texts)
        print(f"  whole model, PyTorch fp32: {whole_rate:.1f} passages/s; cut: {cut_rate:.1f}")
        table.append(
            figures(
                f"{set_name}: {cut.name} (fp32, {cut_rate / whole_rate:.2f}x the whole)",
                ranks(cut.embed(questions), cut_vectors, gold_lists),
                cut_rate,
            )
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", type=Path, required=True)
    parser.add_argument("--digitalgov-home", type=Path)
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--rate-passages", type=int, default=300)
    parser.add_argument("--layers", type=int, help="also the model cut after N layers")
    args = parser.parse_args()
    table = measure(args.sample_home, "sotu", args.dims, args.rate_passages, args.layers)
    if args.digitalgov_home is not None:
        table += measure(
            args.digitalgov_home, "digitalgov", args.dims, args.rate_passages, args.layers
        )
    headers = ["embedder", "gold", *(f"recall@{k}" for k in KS), "MRR", "median rank", "pass/s"]
    print_table(headers, table, "Dense rank of the gold evidence passage")


if __name__ == "__main__":
    main()
