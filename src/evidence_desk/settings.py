"""Every knob of the desk in one place, with its default and why.

`Settings` is read from the environment (prefix `EVIDENCE_DESK_`, e.g. `EVIDENCE_DESK_HOME`)
and from keyword arguments; the CLI's `--data-dir` sets `home`. Everything the desk needs
arrives through this object, so a test or an operator can see and change it in one place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path(os.path.expanduser("~")) / ".evidence-desk"


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "evidence-desk"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EVIDENCE_DESK_", extra="ignore")

    home: Path = Field(
        default_factory=_default_home,
        description="Data directory: archive database, indexes, desk signing key, receipts.",
    )
    cache_dir: Path | None = Field(
        default_factory=_default_cache,
        description=(
            "Shared cache of passage embeddings keyed by model and text SHA-256, so "
            "re-ingesting the same text into any data directory skips the model. "
            "Set to an empty string to disable."
        ),
    )

    @field_validator("cache_dir", mode="before")
    @classmethod
    def _empty_disables_cache(cls, value: object) -> object:
        return None if value is None or (isinstance(value, str) and not value.strip()) else value

    # --- engines (back-ends by name)
    planner: str = Field("offline", description="Planner engine: `offline` (rule-based).")
    answerer: str = Field("offline", description="Answerer engine: `offline` (extractive).")
    auditor: str = Field(
        "offline", description="Auditor engine: `offline` (lexical + embedding + numbers)."
    )

    # --- embedding
    embed_precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto",
        description=(
            "`auto` uses bfloat16 when the CPU has native bf16 (AVX512-BF16/AMX), else fp32. "
            "bf16 embeddings agree with fp32 to cosine >= 0.9999."
        ),
    )
    embed_workers: int = Field(
        0, description="Processes that embed passages at ingest (0 = one per CPU core, max 4)."
    )
    embed_batch_size: int = Field(
        16, description="Passages per model batch (sorted by length; 16 measured fastest)."
    )

    # --- chunking
    passage_words: int = Field(
        120,
        description="Target passage length in words; passages end on sentence boundaries. "
        "Applies to documents ingested or changed afterwards.",
    )
    passage_max_words: int = Field(
        220, description="Hard cap on passage length; a longer sentence is split at white space."
    )

    # --- retrieval
    fusion: Literal["rrf", "score"] = Field(
        "score",
        description="How BM25 and dense rankings are fused: `score` (max-normalised BM25 and "
        "cosine, weighted) or `rrf` (reciprocal rank). Measured on the evaluation set with "
        "`python -m bench.evaluation` (docs/calibration.md).",
    )
    rrf_k: int = Field(60, description="Reciprocal-rank-fusion constant.")
    retrieve_k: int = Field(40, description="Candidates per engine before fusion.")
    coverage_floor: float = Field(
        0.40,
        description="Minimum best-passage evidence score "
        "(docs/calibration.md says how it was set).",
    )
    rare_term_max_df: float = Field(
        0.001,
        description="A word the question capitalises (a name, a place, an event) that at most "
        "this fraction of passages contain must appear in some selected passage, or the run "
        "is outside coverage (docs/calibration.md).",
    )

    # --- selection and answer
    max_sources: int = Field(6, description="Sources (documents) per run.")
    passages_per_source: int = Field(3, description="Selected passages per source.")

    # --- gate policy
    max_pruned_fraction: float = Field(
        0.5,
        description="Pruning may drop at most this fraction of an answer's claims; more is held.",
    )

    @property
    def db_path(self) -> Path:
        return self.home / "archive.sqlite3"

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def receipts_dir(self) -> Path:
        return self.home / "receipts"

    @property
    def key_path(self) -> Path:
        return self.home / "keys" / "desk-ed25519.pem"
