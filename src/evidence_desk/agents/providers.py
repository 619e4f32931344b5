"""Engine names → Pydantic AI models: the one place a provider is chosen.

An engine name is `offline` or `<provider>:<model>[@<base URL>]`:

* `openai`: OpenAI Chat Completions, key `OPENAI_API_KEY`;
* `openai-responses`: OpenAI Responses, key `OPENAI_API_KEY`;
* `anthropic`: Anthropic Messages, key `ANTHROPIC_API_KEY`;
* `ollama`: an Ollama server's OpenAI-compatible API (default `http://127.0.0.1:11434/v1`),
  no key;
* `openai-compatible`: any OpenAI-compatible server (vLLM, llama.cpp, ...), which needs a
  base URL; key `EVIDENCE_DESK_API_KEY` if the server wants one.

The base URL comes from the name (`openai-compatible:llama3.1@http://10.0.0.5:8000/v1`), else
from `EVIDENCE_DESK_BASE_URL` (for `ollama` and `openai-compatible`), else from the SDK's own
setting (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`), else the provider's public endpoint.

Provider SDKs are imported only when a provider is used; without them, the error names the
install command. Keys are read here and handed to the SDK client; they never appear in a
receipt, a log line or an error message.

`openai-responses` models carry `openai_store=False` as their own default setting (merged
under each agent's settings), so the Responses API keeps no copy of a request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from ..errors import DeskError

if TYPE_CHECKING:
    from pydantic_ai.models import Model

OFFLINE: Final = "offline"
INSTALL_HINT = "pip install 'evidence-desk[providers]'"
OLLAMA_URL = "http://127.0.0.1:11434/v1"

Provider = Literal[
    "offline", "openai", "openai-responses", "anthropic", "ollama", "openai-compatible"
]
PROVIDERS: tuple[Provider, ...] = (
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "openai-compatible",
)
_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openai-compatible": "EVIDENCE_DESK_API_KEY",
}
_URL_ENV: dict[str, str] = {
    "openai": "OPENAI_BASE_URL",
    "openai-responses": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
}


class UnknownEngineError(DeskError, ValueError):
    """An engine name in settings that this build cannot serve."""


class ProviderSetupError(DeskError, ValueError):
    """A provider is named but cannot be used as configured (key, extra, base URL)."""


@dataclass(frozen=True)
class EngineSpec:
    """A parsed engine name. `id` is what receipts record (no URL, no key)."""

    provider: Provider
    model: str = ""
    base_url: str | None = None

    @property
    def id(self) -> str:
        return OFFLINE if self.provider == OFFLINE else f"{self.provider}:{self.model}"

    @property
    def key_env(self) -> str | None:
        """The environment variable holding this provider's key (None: no key used)."""
        return _KEY_ENV.get(self.provider)

    @property
    def needs_key(self) -> bool:
        return self.provider in ("openai", "openai-responses", "anthropic")

    def endpoint(self) -> str:
        """Where requests go, for `doctor`."""
        if self.provider == OFFLINE:
            return "built in"
        if self.base_url:
            return self.base_url
        env = _URL_ENV.get(self.provider)
        if env and os.environ.get(env):
            return os.environ[env]
        return "the provider's public API"


def parse_engine(name: str, role: str, default_base_url: str = "") -> EngineSpec:
    """The engine called `name` for `role`; one clear sentence when it is not valid."""
    text = name.strip()
    if text.lower() == OFFLINE:
        return EngineSpec(OFFLINE)
    head, sep, rest = text.partition(":")
    provider = next((p for p in PROVIDERS if p == head.strip().lower()), None)
    if not sep or provider is None:
        choices = ", ".join(f"'{p}:<model>'" for p in PROVIDERS)
        raise UnknownEngineError(
            f"Unknown {role} engine '{name}'; use 'offline' or one of {choices}."
        )
    model, at, url = rest.partition("@")
    model = model.strip()
    url = url.strip() if at else ""
    if not model:
        raise UnknownEngineError(f"The {role} engine '{name}' names no model after '{provider}:'.")
    if url and not url.startswith(("http://", "https://")):
        raise UnknownEngineError(
            f"The base URL '{url}' of the {role} engine must start with http:// or https://."
        )
    if not url and provider in ("ollama", "openai-compatible"):
        url = default_base_url.strip() or (OLLAMA_URL if provider == "ollama" else "")
    if provider == "openai-compatible" and not url:
        raise UnknownEngineError(
            f"The {role} engine '{name}' needs the server's base URL: set "
            "EVIDENCE_DESK_BASE_URL or write it after the model, "
            "e.g. 'openai-compatible:llama3.1@http://127.0.0.1:8000/v1'."
        )
    return EngineSpec(provider, model, url or None)


def api_key(spec: EngineSpec, configured: str | None = None) -> str | None:
    """The key for `spec`: `configured` (EVIDENCE_DESK_API_KEY) for self-hosted servers,
    else the provider's own environment variable."""
    if spec.provider in ("ollama", "openai-compatible"):
        return configured or None
    env = spec.key_env
    return os.environ.get(env) or None if env else None


def require_key(spec: EngineSpec, role: str, configured: str | None = None) -> None:
    """Raise a clear error when a hosted provider's key is missing."""
    if spec.needs_key and not api_key(spec, configured):
        raise ProviderSetupError(
            f"The {role} uses {spec.id}, which needs {spec.key_env}; it is not set."
        )


def build_model(spec: EngineSpec, key: str | None) -> Model:
    """The Pydantic AI model for a provider engine (not for `offline`)."""
    try:
        if spec.provider == "anthropic":
            from pydantic_ai.models.anthropic import AnthropicModel
            from pydantic_ai.providers.anthropic import AnthropicProvider

            return AnthropicModel(
                spec.model, provider=AnthropicProvider(api_key=key, base_url=spec.base_url)
            )
        from pydantic_ai.models.openai import (
            OpenAIChatModel,
            OpenAIResponsesModel,
            OpenAIResponsesModelSettings,
        )
        from pydantic_ai.providers.openai import OpenAIProvider
    except ImportError as exc:
        raise ProviderSetupError(
            f"The provider '{spec.provider}' needs the provider SDKs: {INSTALL_HINT}"
        ) from exc
    if spec.provider in ("ollama", "openai-compatible"):
        key = key or "not-needed"  # such servers accept any key; the SDK insists on one
    provider = OpenAIProvider(base_url=spec.base_url, api_key=key)
    if spec.provider == "openai-responses":
        # The Responses API stores every request (archive passages included) unless told not
        # to; the desk never continues a stored response, so nothing is lost by `store: false`.
        return OpenAIResponsesModel(
            spec.model, provider=provider, settings=OpenAIResponsesModelSettings(openai_store=False)
        )
    return OpenAIChatModel(spec.model, provider=provider)
