"""Engine names → Pydantic AI models: the one place a provider is chosen.

An engine name is `offline` or `<provider>:<model>[@<base URL>]`:

* `openai`: OpenAI Chat Completions, key `OPENAI_API_KEY`;
* `openai-responses`: OpenAI Responses, key `OPENAI_API_KEY`;
* `anthropic`: Anthropic Messages, key `ANTHROPIC_API_KEY`;
* `ollama`: an Ollama server's OpenAI-compatible API (default `http://127.0.0.1:11434/v1`),
  through Pydantic AI's own Ollama model and provider (their profiles per model family);
* `vllm`: a vLLM server (default `http://127.0.0.1:8000/v1`), through the library's vLLM
  provider and its profiles;
* `llamacpp`: llama.cpp's server, or llama-cpp-python's (default `http://127.0.0.1:8080/v1`,
  llama.cpp's own port; llama-cpp-python listens on 8000);
* `openai-compatible`: any other OpenAI-compatible server, which needs a base URL.

Self-hosted servers take `EVIDENCE_DESK_API_KEY` if they want a key. The base URL comes from
the name (`vllm:qwen3-8b@http://10.0.0.5:8000/v1`), else from `EVIDENCE_DESK_BASE_URL` (for
the self-hosted kinds), else from the SDK's own setting (`OPENAI_BASE_URL`,
`ANTHROPIC_BASE_URL`), else the kind's default.

**Output modes.** Each kind asks for structured output the way its server honours it
(`SERVERS`), unless `EVIDENCE_DESK_MODEL_OUTPUT_MODE` says otherwise:

* `tool`: a forced call of the role's one output tool (OpenAI, Anthropic, vLLM, llama.cpp).
  llama.cpp's `chatml-function-calling` format crashes on `tool_choice: "required"` and
  accepts a named function, so there the choice names the tool;
* `native`: the JSON-schema response format (Ollama, which ignores a forced tool choice but
  constrains its output to a `json_schema` response format);
* `prompted`: the schema in the instructions and the reply as JSON text, which any chat
  server accepts (`openai-compatible`, whose server is not known).

**Citations.** An `anthropic:` answerer in `auto` mode cites instead
(`EngineSpec.cites`, `citations.py`): its passages go as the Messages API's search results,
its reply is plain text whose citations name the words each sentence rests on. Pydantic AI
sends no search results, so that request goes through the SDK's own client
(`anthropic_client`, the same key and base URL). Any explicit output mode keeps the output
tool.

Self-hosted kinds send the output cap as `max_tokens`: Ollama and llama.cpp ignore
`max_completion_tokens`, and every OpenAI-compatible server reads `max_tokens`.

Provider SDKs are imported only when a provider is used; without them, the error names the
install command. Keys are read here and handed to the SDK client; they never appear in a
receipt, a log line or an error message.

`openai-responses` models carry `openai_store=False` as their own default setting (merged
under each agent's settings), so the Responses API keeps no copy of a request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from ..errors import DeskError

if TYPE_CHECKING:
    from anthropic import Anthropic
    from openai import OpenAI
    from pydantic_ai.models import Model
    from pydantic_ai.models.openai import OpenAIChatModel

OFFLINE: Final = "offline"
INSTALL_HINT = "pip install 'evidence-desk[providers]'"
OLLAMA_URL = "http://127.0.0.1:11434/v1"

Provider = Literal[
    "offline",
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "vllm",
    "llamacpp",
    "openai-compatible",
]
PROVIDERS: tuple[Provider, ...] = tuple(p for p in get_args(Provider) if p != OFFLINE)
OutputMode = Literal["tool", "native", "prompted"]
OUTPUT_MODES: tuple[OutputMode, ...] = ("tool", "native", "prompted")


@dataclass(frozen=True)
class ServerKind:
    """What a kind of server honours: its output mode, where it listens by default,
    whether a forced tool choice must name the tool, and whether its answerer cites
    (`EngineSpec.cites`)."""

    mode: OutputMode
    self_hosted: bool = False
    default_url: str = ""
    named_tool_choice: bool = False
    citations: bool = False


SERVERS: dict[Provider, ServerKind] = {
    "offline": ServerKind("tool"),
    "openai": ServerKind("tool"),
    "openai-responses": ServerKind("tool"),
    "anthropic": ServerKind("tool", citations=True),
    "ollama": ServerKind("native", True, OLLAMA_URL),
    "vllm": ServerKind("tool", True, "http://127.0.0.1:8000/v1"),
    "llamacpp": ServerKind("tool", True, "http://127.0.0.1:8080/v1", named_tool_choice=True),
    "openai-compatible": ServerKind("prompted", True),
}
_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "ollama": "EVIDENCE_DESK_API_KEY",
    "vllm": "EVIDENCE_DESK_API_KEY",
    "llamacpp": "EVIDENCE_DESK_API_KEY",
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
    output_mode: OutputMode = "tool"
    # The answerer cites (`citations.py`): a kind whose server can, its mode left to `auto`.
    cites: bool = False

    @property
    def server(self) -> ServerKind:
        return SERVERS[self.provider]

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


def parse_engine(
    name: str, role: str, default_base_url: str = "", output_mode: str = "auto"
) -> EngineSpec:
    """The engine called `name` for `role`, asking for output in `output_mode` (`auto`: the
    mode its kind of server honours); one clear sentence when it is not valid."""
    text = name.strip()
    if text.lower() == OFFLINE:
        return EngineSpec(OFFLINE)  # the offline engine answers by its output tool
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
    server = SERVERS[provider]
    if not url and server.self_hosted:
        url = default_base_url.strip() or server.default_url
    if server.self_hosted and not url:
        raise UnknownEngineError(
            f"The {role} engine '{name}' needs the server's base URL: set "
            "EVIDENCE_DESK_BASE_URL or write it after the model, "
            "e.g. 'openai-compatible:llama3.1@http://127.0.0.1:8000/v1'."
        )
    mode = server.mode if output_mode == "auto" else _mode(output_mode)
    cites = server.citations and output_mode == "auto"
    return EngineSpec(provider, model, url or None, mode, cites)


def _mode(name: str) -> OutputMode:
    for mode in OUTPUT_MODES:
        if name == mode:
            return mode
    raise UnknownEngineError(f"Unknown output mode '{name}'; use auto, tool, native or prompted.")


def api_key(spec: EngineSpec, configured: str | None = None) -> str | None:
    """The key for `spec`: `configured` (EVIDENCE_DESK_API_KEY) for self-hosted servers,
    else the provider's own environment variable."""
    if spec.server.self_hosted:
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
    """The Pydantic AI model for a provider engine (not for `offline`): the library's own
    model and provider for the kind of server, with its profile for the model family."""
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
    if spec.server.self_hosted:
        return _self_hosted(spec, key or "not-needed")  # the SDK insists on some key
    provider = OpenAIProvider(base_url=spec.base_url, api_key=key)
    if spec.provider == "openai-responses":
        # The Responses API stores every request (archive passages included) unless told not
        # to; the desk never continues a stored response, so nothing is lost by `store: false`.
        return OpenAIResponsesModel(
            spec.model, provider=provider, settings=OpenAIResponsesModelSettings(openai_store=False)
        )
    return OpenAIChatModel(spec.model, provider=provider)


def anthropic_client(spec: EngineSpec, key: str | None) -> Anthropic:
    """The Anthropic SDK's own client, for the request Pydantic AI cannot send (the citing
    answerer's search results, `citations.py`): the key and base URL `build_model` gives the
    engine's provider (without one in the name, the SDK reads `ANTHROPIC_BASE_URL`, as the
    provider's client does), the SDK's own retries off (`calls.py` retries); each request
    carries its timeout."""
    try:
        from anthropic import Anthropic
    except ImportError as exc:
        raise ProviderSetupError(
            f"The provider '{spec.provider}' needs the provider SDKs: {INSTALL_HINT}"
        ) from exc
    return Anthropic(api_key=key, base_url=spec.base_url, max_retries=0)


def openai_client(spec: EngineSpec, key: str | None) -> OpenAI:
    """The OpenAI SDK's own client, for the request Pydantic AI does not send (an image,
    `illustrator.py`): the key and base URL `build_model` gives the engine (without one in
    the name, the SDK reads `OPENAI_BASE_URL`), the SDK's own retries off."""
    try:
        from openai import OpenAI
    except ImportError as exc:
        raise ProviderSetupError(
            f"The provider '{spec.provider}' needs the provider SDKs: {INSTALL_HINT}"
        ) from exc
    if spec.server.self_hosted:
        key = key or "not-needed"  # the SDK insists on some key
    return OpenAI(api_key=key, base_url=spec.base_url, max_retries=0)


def _self_hosted(spec: EngineSpec, key: str) -> Model:
    """A self-hosted server's model. Over the library's profile: the cap goes as
    `max_tokens`; `native` is allowed where it was asked for (the operator says the server
    honours a `json_schema` response format); an unknown server gets no `json_object`
    response format with prompted JSON (not every server knows it)."""
    from pydantic_ai.models.ollama import OllamaModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.profiles import merge_profile
    from pydantic_ai.profiles.openai import OpenAIModelProfile
    from pydantic_ai.providers.ollama import OllamaProvider
    from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
    from pydantic_ai.providers.vllm import VLLMProvider

    over = OpenAIModelProfile(openai_chat_supports_max_completion_tokens=False)
    if spec.output_mode == "native":
        over = OpenAIModelProfile(**over, supports_json_schema_output=True)
    if spec.provider == "openai-compatible":
        over = OpenAIModelProfile(**over, supports_json_object_output=False)
    url = spec.base_url
    if spec.provider == "ollama":
        ollama = OllamaProvider(base_url=url, api_key=key)
        profile = merge_profile(ollama.model_profile(spec.model), over)
        return OllamaModel(spec.model, provider=ollama, profile=profile)
    if spec.provider == "vllm":
        vllm = VLLMProvider(base_url=url, api_key=key)
        profile = merge_profile(vllm.model_profile(spec.model), over)
        return OpenAIChatModel(spec.model, provider=vllm, profile=profile)
    assert url is not None  # parse_engine gives every self-hosted kind a base URL
    compatible = OpenAICompatibleProvider(spec.provider, base_url=url, api_key=key, profile=over)
    if spec.provider == "llamacpp":
        return _llamacpp_model()(spec.model, provider=compatible)
    return OpenAIChatModel(spec.model, provider=compatible)


@cache
def _llamacpp_model() -> type[OpenAIChatModel]:
    """The Chat model for llama-cpp-python's server, whose request schema wants every
    assistant message's `content` to be a string: a tool call sent back with a retry has
    `content: null`, which that server answers with an HTTP 500. Here it goes as ""."""
    from pydantic_ai.models.openai import OpenAIChatModel

    class LlamaCppChatModel(OpenAIChatModel):
        class _MapModelResponseContext(OpenAIChatModel._MapModelResponseContext):
            def _into_message_param(self) -> Any:
                message = super()._into_message_param()
                if message is not None and message.get("content") is None:
                    message["content"] = ""
                return message

    return LlamaCppChatModel
