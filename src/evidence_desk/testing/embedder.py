"""A small embedder that needs no model: words hashed into a fixed number of dimensions.

`HashingEmbedder` is a real `Embedder` (L2-normalised float32 vectors whose dot product is
their cosine): texts sharing words point the same way, so retrieval and the offline engine
work, only less well than with the real model. It loads no torch and no weights, so tests
that are about runs, storage or the command line — not about retrieval quality — run in
milliseconds, and its vectors are the same on every machine.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from ..retrieval.embedder import DIM, TokenEmbedder, TokenIds, Vectors

_WORD = re.compile(r"[^\W_]+")


class HashingEmbedder:
    """Each lower-cased word adds ±1 to one of `dim` dimensions (chosen by its hash); as many
    dimensions as the real model by default, which the index expects."""

    precision = "fp32"
    name = "hashing"
    tag = "fp32"

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.model_id = f"evidence-desk/hashing-{dim}"

    def _vector(self, text: str) -> Vectors:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            n = int.from_bytes(digest, "little")
            v[n % self.dim] += 1.0 if (n >> 32) & 1 else -1.0
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        out = np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim))
        if progress is not None and texts:
            progress(len(texts))
        return out.astype(np.float32)

    def embed_query(self, text: str) -> Vectors:
        return self._vector(text)


class FaultyEmbedder(TokenEmbedder):
    """The real tokenizer, token ids hashed into vectors, and faults on demand.

    For the embedding workers' tests (`retrieval/parallel.py`): it runs in spawned worker
    processes like the real model, in milliseconds. `faults` is a directory; each file in
    it is one fault to inject. The first chunk that finds a file claims it (an atomic
    rename, so each file fires once across processes) and then hangs (`fault="hang"`) or
    kills its process (`fault="exit"`). Without files it embeds like a healthy worker.
    """

    name = "faulty"
    precision = "fp32"
    tag = "fp32"

    def __init__(
        self,
        faults: Path | None = None,
        fault: Literal["hang", "exit"] = "hang",
        batch_size: int = 8,
        threads: int | None = None,
    ) -> None:
        super().__init__(batch_size)
        del threads  # nothing to thread
        self._faults = faults
        self._fault = fault

    def embed_token_ids(
        self, id_lists: Sequence[TokenIds], progress: Callable[[int], None] | None = None
    ) -> Vectors:
        if self._faults is not None and _claim_one(self._faults):
            if self._fault == "exit":
                os._exit(3)
            time.sleep(3600)
        return super().embed_token_ids(id_lists, progress)

    def _encode(self, id_lists: Sequence[TokenIds]) -> Vectors:
        out = np.zeros((len(id_lists), DIM), dtype=np.float32)
        for row, ids in enumerate(id_lists):
            for token in ids:
                out[row, int(token) * 2654435761 % DIM] += 1.0
        norms = np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        result: Vectors = out / norms
        return result


def _claim_one(faults: Path) -> bool:
    for path in sorted(faults.glob("fault-*")):
        try:
            path.rename(path.with_name("claimed-" + path.name))
        except FileNotFoundError:  # another worker took it first
            continue
        return True
    return False
