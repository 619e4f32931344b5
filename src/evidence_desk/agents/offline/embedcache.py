"""An in-memory embedding cache shared by the offline answerer and auditor of one desk.

The answerer embeds its candidate sentences and the auditor may embed the same sentences a
moment later; the model is the slow part of a run, so both hold one `CachedEmbedder` and
each text is embedded once. The cache is bounded (least recently used texts go first) and
safe to share between threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ...retrieval.embedder import Embedder, Vectors


class CachedEmbedder:
    """An `Embedder` that remembers up to `capacity` vectors by exact text."""

    def __init__(self, inner: Embedder, capacity: int = 4096) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.name: str = getattr(inner, "name", inner.model_id)
        self.tag: str = str(getattr(inner, "tag", ""))
        self._capacity = capacity
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        # One lock around lookup, model call and store: the model uses every core anyway,
        # and a text can then never be evicted between its lookup and its read.
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._vectors))
            if todo:
                for text, vector in zip(todo, self.inner.embed(todo, progress), strict=True):
                    self._vectors[text] = vector
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for i, text in enumerate(texts):
                out[i] = self._vectors[text]
                self._vectors.move_to_end(text)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)
        return out

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector

    def __len__(self) -> int:
        return len(self._vectors)
