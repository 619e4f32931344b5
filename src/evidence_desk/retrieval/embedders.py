"""Which embedder an archive uses: chosen by name, recorded by the archive, one per archive.

Vectors from different embedders cannot share an index: a query embedded by one and
passages embedded by another land in slightly different spaces, and nothing would say so.
So an archive records what made its vectors (`embedder`, `embedder_tag` in its meta) the
first time it stores any, and from then on:

* its queries use that embedder, whatever the settings name (`archive_embedder`);
* ingest refuses to add vectors from another one (`check_embedder`), naming the command
  that switches: `evidence-desk reembed` re-embeds every passage and records the new
  embedder in the same transaction that stores the vectors (`Desk.reembed`).

Names: `torch` (the PyTorch reference path), `onnx-fp32` and `onnx-int8` (`onnxembed.py`).
`auto` in settings means the archive's own, or `DEFAULT` for an archive with no vectors.
An archive from before embedders were recorded was embedded by `torch`. For `torch` the
precision (bf16 where the CPU has it, else fp32) is not part of the identity: the two agree
to cosine >= 0.9999, and the machine decides. For ONNX the build recipe is: a new recipe
makes other vectors.

The offline answerer and auditor compare texts they embed themselves, never with stored
vectors; they use `judge_embedder`, the fp32 path their calibration was made with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from ..errors import DeskError
from ..settings import Settings
from ..store.protocol import Store
from .embedder import Embedder, MiniLMEmbedder, TokenEmbedder

EmbedderName = Literal["torch", "onnx-fp32", "onnx-int8"]
NAMES: tuple[EmbedderName, ...] = ("torch", "onnx-fp32", "onnx-int8")
DEFAULT: EmbedderName = "onnx-int8"
MODEL_KEY = "embedding_model"
NAME_KEY = "embedder"
TAG_KEY = "embedder_tag"


class EmbedderMismatch(DeskError, RuntimeError):
    """Vectors of one embedder would be mixed with, or searched by, another."""


@dataclass(frozen=True)
class Recorded:
    """What an archive's meta says made its vectors (None: no vectors yet)."""

    model_id: str
    name: str | None  # None: recorded before embedders were named (the PyTorch path)
    tag: str | None


def make_embedder(
    name: str, settings: Settings, *, threads: int | None = 1, batch_size: int | None = None
) -> TokenEmbedder:
    """A fresh, in-process embedder by name (models load on first use)."""
    batch = batch_size or settings.embed_batch_size
    if name == "torch":
        return MiniLMEmbedder(precision=settings.embed_precision, batch_size=batch, threads=threads)
    if name in ("onnx-fp32", "onnx-int8"):
        from .onnxbuild import OnnxPrecision
        from .onnxembed import OnnxEmbedder

        precision = cast(OnnxPrecision, name.removeprefix("onnx-"))
        return OnnxEmbedder(models_home(settings), precision, batch, threads)
    raise DeskError(f"Unknown embedder {name!r}: use one of {', '.join(NAMES)}.")


def models_home(settings: Settings) -> Path:
    """Where built model files are kept: the shared cache, else the data directory."""
    return settings.cache_dir or settings.home


def recorded(store: Store) -> Recorded | None:
    model_id = store.get_meta(MODEL_KEY)
    if model_id is None:
        return None
    return Recorded(model_id, store.get_meta(NAME_KEY), store.get_meta(TAG_KEY))


def chosen_name(settings: Settings, store: Store) -> str:
    """The embedder for this archive: its own when it has vectors, else the settings'."""
    rec = recorded(store)
    if rec is not None:
        # Archives from before embedders were named were all made by the PyTorch path.
        return rec.name or "torch"
    return target_name(settings)


def target_name(settings: Settings) -> str:
    """What `reembed` switches to: the settings' embedder, `auto` meaning `DEFAULT`."""
    return DEFAULT if settings.embedder == "auto" else settings.embedder


def same_vectors(rec: Recorded, embedder: Embedder) -> bool:
    """True when `embedder` makes the vectors the archive holds."""
    if rec.model_id != embedder.model_id:
        return False
    if rec.name is None:  # before names: the model alone was recorded, and checked
        return True
    if rec.name != getattr(embedder, "name", None):
        return False
    return rec.name == "torch" or rec.tag == getattr(embedder, "tag", None)


def check_embedder(store: Store, embedder: Embedder) -> None:
    """Before storing vectors: record the embedder of a new archive, refuse a different one."""
    rec = recorded(store)
    if rec is None:
        record(store, embedder)
        return
    if not same_vectors(rec, embedder):
        raise EmbedderMismatch(
            f"This archive's vectors were made by {describe(rec)}, not "
            f"{describe_embedder(embedder)}; vectors of two embedders are never mixed. "
            "Run `evidence-desk reembed` to switch the whole archive, or ingest with "
            f"EVIDENCE_DESK_EMBEDDER={rec.name or 'torch'}."
        )


def check_queries(store: Store, embedder: Embedder) -> None:
    """Before searching: the query embedder must be the one that made the stored vectors."""
    rec = recorded(store)
    if rec is not None and not same_vectors(rec, embedder):
        raise EmbedderMismatch(
            f"This archive's vectors were made by {describe(rec)}, which this version of "
            f"Evidence Desk cannot reproduce for queries ({describe_embedder(embedder)}). "
            "Run `evidence-desk reembed` once to re-embed it."
        )


def vector_tag(embedder: Embedder) -> str:
    """The embedding cache's key beside the model id (precision, back-end and recipe)."""
    return str(getattr(embedder, "tag", None) or getattr(embedder, "precision", "fp32"))


def record(store: Store, embedder: Embedder) -> None:
    for key, value in meta_items(embedder).items():
        store.set_meta(key, value)


def meta_items(embedder: Embedder) -> dict[str, str]:
    """The meta rows that name `embedder` as the maker of an archive's vectors."""
    return {
        MODEL_KEY: embedder.model_id,
        NAME_KEY: str(getattr(embedder, "name", embedder.model_id)),
        TAG_KEY: str(getattr(embedder, "tag", "")),
    }


def describe(rec: Recorded) -> str:
    """`all-MiniLM-L6-v2 on onnx-int8 (recipe ...)`, for messages and `status`."""
    model = rec.model_id.rsplit("/", 1)[-1]
    name = rec.name or "torch"
    recipe = rec.tag.partition("|")[2] if rec.tag else ""
    return f"{model} on {name}" + (f" (recipe {recipe})" if recipe else "")


def describe_embedder(embedder: Embedder) -> str:
    name = getattr(embedder, "name", None)
    return describe(Recorded(embedder.model_id, name, str(getattr(embedder, "tag", ""))))
