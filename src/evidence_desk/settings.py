"""Every knob of the desk in one place, with its default and why.

`Settings` is read from the environment (prefix `EVIDENCE_DESK_`, e.g. `EVIDENCE_DESK_HOME`)
and from keyword arguments; the CLI's `--data-dir` sets `home`. Everything the desk needs
arrives through this object, so a test or an operator can see and change it in one place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
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

    # --- engines and model providers (docs/providers.md)
    model: str = Field(
        "offline",
        description="Engine for every agent role: `offline` (built in, no key), "
        "`openai:<model>`, `openai-responses:<model>`, `anthropic:<model>`, `ollama:<model>`, "
        "`vllm:<model>`, `llamacpp:<model>` or `openai-compatible:<model>`; a base URL may "
        "follow the model after `@`.",
    )
    planner: str = Field("", description="Planner engine; empty uses `model`.")
    answerer: str = Field("", description="Answerer engine; empty uses `model`.")
    auditor: str = Field("", description="Auditor engine; empty uses `model`.")
    teacher: str = Field(
        "", description="Teacher engine (lessons of published answers); empty uses `model`."
    )
    illustrator: str = Field(
        "",
        description="Image engine that draws a lesson's optional picture when an explanation "
        "is asked to illustrate (`explain --illustrate`), e.g. `openai:gpt-image-1`; "
        "`openai:` or `openai-compatible:` (the OpenAI Images API). Empty: illustrations are "
        "off. There is no offline image model.",
    )
    illustration_reviewer: str = Field(
        "",
        description="Vision model that looks at each picture before a reader may see it, "
        "e.g. `openai:gpt-4.1-mini`; empty uses the teacher's engine.",
    )
    illustration_price_usd: float = Field(
        0.04,
        ge=0,
        description="Estimated price (USD) of one picture, reserved against the run's spend "
        "cap before the image call and counted in its spend.",
    )
    base_url: str = Field(
        "",
        description="Base URL of the server for self-hosted engines: `ollama:` (default "
        "http://127.0.0.1:11434/v1), `vllm:` (default http://127.0.0.1:8000/v1), `llamacpp:` "
        "(default http://127.0.0.1:8080/v1) and `openai-compatible:` (no default). OpenAI and "
        "Anthropic read OPENAI_BASE_URL and ANTHROPIC_BASE_URL.",
    )
    api_key: SecretStr | None = Field(
        None,
        description="Key for self-hosted servers (`ollama:`, `vllm:`, `llamacpp:`, "
        "`openai-compatible:`) that want one. "
        "OpenAI and Anthropic use OPENAI_API_KEY and ANTHROPIC_API_KEY.",
    )
    model_output_mode: Literal["auto", "tool", "native", "prompted"] = Field(
        "auto",
        description="How models are asked for structured output: `tool` (a forced call of "
        "the role's output tool), `native` (a JSON-schema response format), `prompted` (JSON "
        "text to a schema in the instructions), or `auto`: what each kind of server honours "
        "(tool for OpenAI, Anthropic, vLLM and llama.cpp; native for Ollama; prompted for "
        "`openai-compatible`).",
    )
    model_timeout: float = Field(60.0, description="Seconds one model request may take.")
    model_attempts: int = Field(
        3, description="Tries per role call on 429, 5xx, timeouts and connection errors."
    )
    model_backoff: float = Field(
        1.0, description="Seconds before the second try; doubles for each further try."
    )
    model_max_wait: float = Field(
        30.0,
        description="Longest wait between tries; a 429 asking for longer fails the stage.",
    )
    model_output_retries: int = Field(
        1,
        description="Times a model whose output is malformed or breaks the schema is asked "
        "again, with the error, before the stage fails.",
    )
    model_max_output_tokens: int = Field(2048, description="Output tokens per model request.")
    model_reasoning_effort: Literal[
        "default", "off", "minimal", "low", "medium", "high", "xhigh", "max"
    ] = Field(
        "low",
        description="How hard a model that reasons by default (Pydantic AI's profile: "
        "OpenAI o-series and GPT-5, Claude Sonnet 5, ...) is asked to think: sent as the "
        "provider's reasoning effort or thinking setting. `off` turns thinking off where the "
        "model can; `default` sends nothing. Models that reason only when asked are left not "
        "thinking.",
    )
    model_reasoning_max_output_tokens: int = Field(
        8192,
        description="Output tokens per request for a model that reasons (its thinking "
        "counts against them), instead of `model_max_output_tokens`.",
    )
    max_model_calls: int = Field(12, description="Model requests one run may make, in all.")
    max_model_tokens: int = Field(
        90_000, description="Input plus output tokens one run may use, in all."
    )
    max_run_spend_usd: float | None = Field(
        1.0,
        ge=0,
        description="Estimated spend (USD, from the price table) one run may reach; a call "
        "that could pass it is not sent. Empty: no cap. Models without a price are not capped.",
    )
    max_active_seconds: float | None = Field(
        300.0,
        gt=0,
        description="Seconds a run may spend in its stages, counted across restarts; a model "
        "call is not sent once they are used. Empty: no limit.",
    )
    max_concurrent_runs: int = Field(
        2,
        ge=1,
        description="Runs that may execute at once on this data directory (all processes); "
        "more wait in the order they were asked.",
    )
    max_question_chars: int = Field(
        2000,
        ge=20,
        description="The longest question the web app accepts; a longer one is a 413 with "
        "one sentence, before any run opens.",
    )
    session_hours: float = Field(
        12.0,
        gt=0,
        description="How long a web session lasts before its reader or editor signs in again.",
    )
    sign_in_attempts: int = Field(
        5,
        ge=1,
        description="Failed sign-ins allowed per name and per client in `sign_in_window_minutes`"
        " before more are refused with a 429.",
    )
    sign_in_window_minutes: float = Field(
        15.0, gt=0, description="The window the failed sign-ins are counted in."
    )
    public_origin: str | None = Field(
        None,
        description="The origin readers reach the web app at (e.g. https://desk.example.org), "
        "when a proxy sits in front of it: unsafe requests must come from it. Empty: the "
        "request's own Host.",
    )
    run_lease_seconds: float = Field(
        600.0,
        gt=0,
        description="How long a worker holds a run without finishing a stage before another "
        "may take it over (`runs resume`); a run whose process on this host has died can be "
        "resumed at once.",
    )
    executor: Literal["stages", "langgraph"] = Field(
        "stages",
        description="What drives a stored run through its stages: `stages` (the desk's own "
        "loop) or `langgraph` (a LangGraph graph, checkpointed beside the archive). Both "
        "store the same records, and either resumes a run the other started.",
    )
    prices_file: Path | None = Field(
        None,
        description="JSON price table (USD per million tokens) whose entries replace or add "
        "to the packaged one, for the estimated spend in receipts.",
    )

    @field_validator("prices_file", "public_origin", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def engine_name(self, role: str) -> str:
        """The engine name for `role` (planner, answerer, auditor): its own, else `model`."""
        own: str = getattr(self, role)
        return own.strip() or self.model

    # --- embedding
    embedder: Literal["auto", "torch", "onnx-fp32", "onnx-int8"] = Field(
        "auto",
        description=(
            "What embeds the archive's passages and its queries: `onnx-int8` (all-MiniLM-L6-v2 "
            "exported to ONNX on this machine, int8 weights), `onnx-fp32` (the same export "
            "in fp32), or `torch` (the PyTorch reference). `auto` keeps the archive's own "
            "embedder, and gives a new archive `onnx-int8`. An archive records its embedder; "
            "naming another one here takes effect through `evidence-desk reembed`."
        ),
    )
    embed_worker_timeout: float = Field(
        120.0,
        gt=0,
        description=(
            "Seconds an ingest waits for an embedding worker's batch before it counts the "
            "worker as hung, restarts the workers and redoes the batch."
        ),
    )
    embed_precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto",
        description=(
            "For the `torch` embedder: `auto` uses bfloat16 when the CPU has native bf16 "
            "(AVX512-BF16/AMX), else fp32. bf16 embeddings agree with fp32 to cosine >= 0.9999."
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
        description="A distinctive word of the question (capitalised, code-like or uncommon "
        "in English) that at most this fraction of passages contain must appear in some "
        "selected passage, or the run is outside coverage (docs/calibration.md).",
    )
    common_zipf: float = Field(
        2.5,
        description="A lower-case key term whose English word frequency (wordfreq Zipf "
        "scale) is at least this is a common word a reader may use for the text's own, and "
        "is never required by the coverage check; rarer words are (0 turns the lower-case "
        "rule off). Calibrated in docs/calibration.md.",
    )

    # --- selection and answer
    max_sources: int = Field(6, description="Sources (documents) per run.")
    passages_per_source: int = Field(3, description="Selected passages per source.")
    relative_date_reach_days: int = Field(
        183,
        description="A source dated up to this many days after a question's period may answer "
        "it through a sentence that dates itself relative to the source (`in early April`, "
        "`last month`); a period of at most 31 days is searched this much further.",
    )

    # --- web sources
    search_provider: str = Field(
        "archive",
        description="Where runs discover pages beyond the archive: `archive` (none: the "
        "archive alone, offline), `searxng:<base URL>` (a SearXNG instance's JSON API) or "
        "`openai[:<model>]` (OpenAI's web search tool; needs `api_key`).",
    )
    web_pages_quick: int = Field(3, description="Pages a Quick run reads from its one search.")
    web_pages_deep: int = Field(6, description="Pages a Deep run reads from its searches.")
    web_results_per_search: int = Field(5, description="Pages asked of each web search.")
    evidence_pool_tokens: int = Field(
        10_000,
        description="Tokens (estimated) the passages and metadata of a run's web sources and "
        "attachments may take in all; a passage that does not fit is dropped whole.",
    )
    fetch_max_bytes: int = Field(
        3_000_000,
        description="Bytes one fetched page may be, on the wire and again after decoding.",
    )
    fetch_max_redirects: int = Field(3, description="Redirects one fetch follows, each re-checked.")
    fetch_seconds: float = Field(
        20.0, description="Seconds one fetch may take in all, redirects included."
    )
    fetch_ports: tuple[int, ...] = Field(
        (80, 443, 8080, 8443), description="The only ports pages are fetched from."
    )
    fetch_allow_loopback: bool = Field(
        False,
        description="Let fetches reach 127.0.0.0/8 and ::1 (local test fixtures only; every "
        "other private, link-local or reserved address stays refused). Off by default.",
    )

    # --- gate policy
    max_pruned_fraction: float = Field(
        0.5,
        description="Pruning may drop at most this fraction of an answer's claims; more is held.",
    )
    grounding: Literal["strict", "paraphrase"] = Field(
        "paraphrase",
        description="`paraphrase`: a sentence not carried word for word may still be grounded "
        "by the paraphrase tier, when its auditor found it supported and named the spans it "
        "rests on, and code checked its every anchor against them (docs/grounding.md); "
        "`strict`: only the extractive contract grounds (a newsroom's no-paraphrase policy). "
        "Every auditor names spans with a `supported` verdict: the offline one its cover "
        "sentence, model auditors and the verdicts a draft carries to `check` theirs.",
    )

    @property
    def db_path(self) -> Path:
        return self.home / "archive.sqlite3"

    @property
    def graph_db_path(self) -> Path:
        """The LangGraph executor's checkpoints (the archive database stays the record)."""
        return self.home / "runs-graph.sqlite3"

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def receipts_dir(self) -> Path:
        return self.home / "receipts"

    @property
    def illustrations_dir(self) -> Path:
        """Lessons' shown pictures, each named by its SHA-256 (`runs/illustrate.py`)."""
        return self.home / "illustrations"

    @property
    def key_path(self) -> Path:
        return self.home / "keys" / "desk-ed25519.pem"

    @property
    def trusted_keys_path(self) -> Path:
        """Public keys of other desks whose receipts this desk accepts, one base64 per line."""
        return self.home / "keys" / "trusted.txt"
