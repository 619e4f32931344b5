"""A small embedder that needs no model: words hashed into a fixed number of dimensions.

`HashingEmbedder` is a real `Embedder` (L2-normalised float32 vectors whose dot product is
their cosine): texts sharing words point the same way, so retrieval and the offline engine
work, only less well than with the real model. It loads no torch and no weights, so tests
that are about runs, storage or the command line — not about retrieval quality — run in
milliseconds, and its vectors are the same on every machine.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

import numpy as np

from ..retrieval.embedder import DIM, Vectors

_WORD = re.compile(r"[^\W_]+")


class HashingEmbedder:
    """Each lower-cased word adds ±1 to one of `dim` dimensions (chosen by its hash); as many
    dimensions as the real model by default, which the index expects."""

    precision = "fp32"

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
