"""`evidence-desk doctor`: is each agent role ready to run, and if not, what is missing?

For each role it reports the engine, where requests go, whether the key is present (never
the key itself), whether the endpoint answers, and the model's price with its source (or
that it is unpriced). The endpoint check asks the provider's model list through the
official SDK (the same client, base URL and key the role would use), once per distinct
endpoint, with a short timeout and no retries; it sends no prompt and spends no tokens.
Everything that would stop a run is a problem, in one sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..settings import Settings
from .prices import PriceFileError, PriceTable, Quote
from .providers import (
    INSTALL_HINT,
    OFFLINE,
    EngineSpec,
    UnknownEngineError,
    api_key,
    parse_engine,
)

ROLES = ("planner", "answerer", "auditor", "teacher")


@dataclass(frozen=True)
class Probe:
    """What the endpoint said: `ok` when it answered as a model server."""

    ok: bool
    detail: str
    models: tuple[str, ...] | None = None  # None: the server gave no model list


@dataclass
class RoleCheck:
    role: str
    setting: str
    engine: str = ""
    endpoint: str = ""
    key: str = ""
    reachable: str = ""
    price: str = ""
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # worth knowing; the role may still work

    @property
    def ready(self) -> bool:
        return not self.problems


@dataclass
class DoctorReport:
    roles: list[RoleCheck]
    problems: list[str] = field(default_factory=list)  # not tied to one role

    @property
    def ready(self) -> bool:
        return not self.problems and all(r.ready for r in self.roles)

    def all_problems(self) -> list[str]:
        return self.problems + [p for r in self.roles for p in r.problems]

    def all_warnings(self) -> list[str]:
        return [w for r in self.roles for w in r.warnings]

    def to_json(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "roles": [asdict(r) | {"ready": r.ready} for r in self.roles],
            "problems": self.all_problems(),
            "warnings": self.all_warnings(),
        }


def _list_models(sdk: Any, client: Any, timeout: float) -> Probe:
    """Ask `client` (an OpenAI or Anthropic SDK client) for its models; `sdk` is its module.

    Both SDKs share their error classes' names and meaning.
    """
    try:
        ids = tuple(m.id for m in client.models.list())
    except sdk.AuthenticationError as exc:
        return Probe(False, f"it rejected the key (HTTP {exc.status_code})")
    except sdk.NotFoundError:
        return Probe(True, "it answers (it publishes no model list)")
    except sdk.APITimeoutError:
        return Probe(False, f"it did not answer within {timeout:g} s")
    except sdk.APIConnectionError:
        return Probe(False, "it cannot be reached")
    except sdk.APIStatusError as exc:
        return Probe(False, f"it answered with HTTP {exc.status_code}")
    return Probe(True, f"it answers and lists {len(ids)} model(s)", ids)


def probe(spec: EngineSpec, key: str | None, timeout: float = 5.0) -> Probe:
    """Ask the endpoint for its model list; never raises for network or HTTP trouble."""
    try:
        if spec.provider == "anthropic":
            import anthropic

            client: Any = anthropic.Anthropic(
                api_key=key, base_url=spec.base_url, max_retries=0, timeout=timeout
            )
            return _list_models(anthropic, client, timeout)
        import openai

        client = openai.OpenAI(
            base_url=spec.base_url, api_key=key or "not-needed", max_retries=0, timeout=timeout
        )
        return _list_models(openai, client, timeout)
    except ImportError:
        return Probe(False, f"the provider SDKs are not installed ({INSTALL_HINT})")


def price_line(quote: Quote | None) -> str:
    """A role's price and its source, or that the model is unpriced."""
    if quote is None:
        return "unpriced (no price source knows the model): spend will show as unknown"
    p = quote.price
    tiers = ", more past a number of input tokens" if quote.tiered else ""
    return (
        f"${p.input_per_mtok:g} in / ${p.output_per_mtok:g} out per M tokens{tiers} "
        f"(from {quote.source})"
    )


def _check_role(
    role: str,
    spec: EngineSpec,
    settings: Settings,
    prices: PriceTable | None,
    probes: dict[tuple[str, str, str | None], Probe],
    timeout: float,
) -> RoleCheck:
    check = RoleCheck(role, settings.engine_name(role), spec.id, spec.endpoint())
    if prices is not None:
        check.price = price_line(prices.quote(spec.id))
    if spec.provider == OFFLINE:
        check.key, check.reachable = "not needed", "built in"
        return check
    configured = settings.api_key.get_secret_value() if settings.api_key else None
    key = api_key(spec, configured)
    env = spec.key_env
    if spec.needs_key and not key:
        check.key = f"{env} is missing"
        check.reachable = "not checked without a key"
        check.problems.append(f"The {role} uses {spec.id}, which needs {env}; it is not set.")
        return check
    check.key = f"{env} is set" if key else "none (the server may not need one)"
    cache_key = (spec.provider, spec.endpoint(), key)
    if cache_key not in probes:
        probes[cache_key] = probe(spec, key, timeout)
    result = probes[cache_key]
    check.reachable = result.detail
    if not result.ok:
        check.problems.append(f"The {role}'s endpoint ({check.endpoint}): {result.detail}.")
    elif result.models is not None and spec.model not in result.models:
        if spec.server.self_hosted and spec.provider != "ollama":
            check.warnings.append(_unlisted(role, spec.model, result.models))
        else:
            check.problems.append(
                f"The {role}'s endpoint does not list the model '{spec.model}'; "
                "check the name (for Ollama: `ollama pull` it first)."
            )
    return check


def _unlisted(role: str, model: str, listed: Sequence[str]) -> str:
    """A self-hosted server (not Ollama) that does not list the name: many serve one model
    under any name, and llama.cpp's server lists its model by file path, so this is no
    failure."""
    names = ", ".join(f"'{m}'" for m in listed[:3]) + (" ..." if len(listed) > 3 else "")
    return (
        f"The {role}'s endpoint does not list the model '{model}' (it lists {names or 'none'}). "
        "A server that serves one model may answer under any name; llama.cpp's server lists "
        f"its model by file path unless started with `--model_alias {model}`. If runs fail "
        "with an unknown model, use a listed name."
    )


def diagnose(settings: Settings, timeout: float = 5.0) -> DoctorReport:
    """Check every role's engine, key, endpoint and price."""
    problems: list[str] = []
    prices: PriceTable | None = None
    try:
        prices = PriceTable.load(settings.prices_file)
    except PriceFileError as exc:
        problems.append(str(exc))
    probes: dict[tuple[str, str, str | None], Probe] = {}
    roles: list[RoleCheck] = []
    for role in ROLES:
        try:
            spec = parse_engine(
                settings.engine_name(role), role, settings.base_url, settings.model_output_mode
            )
        except UnknownEngineError as exc:
            roles.append(RoleCheck(role, settings.engine_name(role), problems=[str(exc)]))
            continue
        roles.append(_check_role(role, spec, settings, prices, probes, timeout))
    return DoctorReport(roles, problems)
