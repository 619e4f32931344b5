"""all-MiniLM-L6-v2 through onnxruntime: the same network as the PyTorch path, faster on a CPU.

`OnnxEmbedder` shares the tokenizer, length-sorted batching and pooling of `TokenEmbedder`
and runs the model file `onnxbuild.py` made on this machine:

* `fp32` reproduces the PyTorch vectors (cosine >= 0.99999 on the build's probe batch; max
  absolute difference ~1e-7 on archive passages) and serves queries, the offline answerer
  and the auditor, whose calibration was made on those vectors;
* `int8` (per-channel dynamic quantisation) is the bulk embedder for archives: measured in
  `bench/embedding.py` against the PyTorch path, with its effect on retrieval measured on
  both evaluation sets in `bench/evaluation.py`.

One session per embedder, with `threads` intra-op threads and no inter-op pool: bulk
ingest runs one single-threaded session per worker process (`parallel.py`), which measured
faster than one session with two threads, as it did for PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .embedder import TokenEmbedder, TokenIds, Vectors, mean_pooled, padded
from .onnxbuild import RECIPE, OnnxPrecision, ensure_model, is_built


class OnnxEmbedder(TokenEmbedder):
    """all-MiniLM-L6-v2 as an ONNX model in onnxruntime, in this process."""

    def __init__(
        self,
        cache_dir: Path,
        precision: OnnxPrecision = "int8",
        batch_size: int = 16,
        threads: int | None = 1,
    ) -> None:
        super().__init__(batch_size)
        self._cache_dir = cache_dir
        self._precision: OnnxPrecision = precision
        self._threads = threads
        self.name = f"onnx-{precision}"

    @property
    def precision(self) -> str:
        return self._precision

    @property
    def tag(self) -> str:
        """Back-end, precision and build recipe: vectors of another recipe are other vectors."""
        return f"{self.name}|{RECIPE}"

    def ensure_built(self) -> Path:
        """The model file, built (once per cache) if missing; slow only the first time."""
        return ensure_model(self._cache_dir, self._precision)

    def is_built(self) -> bool:
        """True when the model file is ready in the cache (`ensure_built` returns at once)."""
        return is_built(self._cache_dir, self._precision)

    @cached_property
    def _session(self) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        if self._threads:
            options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return ort.InferenceSession(
            str(self.ensure_built()), options, providers=["CPUExecutionProvider"]
        )

    def _encode(self, id_lists: Sequence[TokenIds]) -> Vectors:
        ids, mask = padded(id_lists)
        hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return mean_pooled(np.asarray(hidden, dtype=np.float32), mask)
