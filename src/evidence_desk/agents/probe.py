"""`evidence-desk doctor --probe`: one tiny request per engine, in the mode a run would use.

`doctor` alone only asks an endpoint for its model list. A server can list a model and
still fail every run: it ignores a forced tool choice, crashes on `tool_choice:
"required"`, refuses a `json_schema` response format, or (Ollama) cuts the front off a
prompt longer than its context. The probe finds out by asking for real, the way a run asks:
the same model object, settings, output mode and retry classification (`ModelCaller`),
with a one-field output (`{"ready": true}`) and a cap of a few tokens.

* One request per distinct engine (engine, endpoint and output mode); the roles sharing
  it share the result.
* If the engine's mode fails for a reason another mode could fix (the server refused the
  request or erred, or the reply was not the structured output), the other modes are tried
  in turn, each once, and the report names the one that works and the setting that picks
  it (`EVIDENCE_DESK_MODEL_OUTPUT_MODE`). A key, a model name or a quota is never
  "fixed" by another mode: those stop the probe of that engine.
* The cost is stated before anything is sent (`plan`): the requests' upper bound, at the
  models' prices (`PriceTable`), trials of other modes included.
* An Anthropic answerer that cites (`EngineSpec.cites`, `citations.py`) is asked once more
  the way a run asks it: one passage as a `search_result` block with citations on, and a
  question it answers. The reply must cite that result with words of the passage; a reply
  without citations is a problem, since every sentence would then rest on nothing, and the
  report names the setting that makes the answerer name its spans through the output tool.
* For Ollama, the context length the server runs the model with (`/api/ps` after the
  request loaded it, else `num_ctx` in `/api/show`, else Ollama's default), against the
  tokens the desk's largest request can reach; a shorter context is a problem, because
  Ollama drops the start of a longer prompt (the instructions) without saying so.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai.models import Model

from ..settings import Settings
from . import prompts
from .base import AgentFailure, RunBudget
from .calls import CallPolicy, estimate_tokens
from .prices import PriceTable
from .providers import OUTPUT_MODES, EngineSpec, OutputMode, api_key, build_model
from .roles import _Role

PROBE_TOKENS = 64  # output cap of a probe: `{"ready": true}` is about 6 tokens
PROBE_REASONING_TOKENS = 1024  # a model that reasons first needs room to
PROBE_PROMPT = "Evidence Desk is checking that it can reach you. Return ready as true."
CITING_TOKENS = 256  # output cap of the citing probe: one cited sentence
CITING_QUESTION = "When was the Erie Canal opened?"
CITING_PASSAGE = "The Erie Canal was opened in 1825. It linked the Hudson River to Lake Erie."
OLLAMA_DEFAULT_CONTEXT = 4096  # Ollama's default context length since 0.6.8 (2048 before)
# Modes that can fix a failure of the others (Anthropic has no `json_schema` format the
# desk asks for: its native mode is judged by the model's profile).
_FIXABLE = ("the model's output did not match", "refused the request", "server error")


class ProbeOut(BaseModel):
    """What a probe asks for: one field, so the reply costs a few tokens."""

    model_config = ConfigDict(extra="forbid")
    ready: bool = Field(description="Always true.")


class _ProbeRole(_Role[ProbeOut]):
    role: ClassVar[str] = "probe"
    tool: ClassVar[str] = "submit_probe"
    task: ClassVar[str] = (
        "You are being checked by Evidence Desk, which answers questions only with what its "
        "archive says. Return ready as true."
    )
    output = ProbeOut

    def ask(self, budget: RunBudget) -> tuple[bool, int, int]:
        out, usage = self._call.call(PROBE_PROMPT, budget)
        return out.ready, usage.input_tokens, usage.output_tokens


@dataclass(frozen=True)
class Trial:
    """One request in one output mode."""

    mode: OutputMode
    ok: bool
    detail: str
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class EngineProbe:
    engine: str
    endpoint: str
    roles: list[str]
    mode: OutputMode  # the mode a run would use
    trials: list[Trial] = field(default_factory=list)
    context: str = ""  # Ollama: the context length and where it comes from
    citations: str = ""  # a citing answerer: what its citing request gave back
    problems: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "endpoint": self.endpoint,
            "roles": self.roles,
            "mode": self.mode,
            "ok": self.ok,
            "trials": [t.__dict__ for t in self.trials],
            "context": self.context,
            "citations": self.citations,
            "problems": self.problems,
            "advice": self.advice,
        }


@dataclass(frozen=True)
class ProbePlan:
    """What `run` will send, stated before it sends anything."""

    engines: list[tuple[EngineSpec, list[str]]]
    max_requests: int
    input_tokens: int  # per request, estimated generously
    output_tokens: int  # per request, the cap
    spend_usd: float | None  # at most; None when an engine has no price
    unpriced: list[str]

    def statement(self) -> str:
        if not self.engines:
            return "Nothing to probe: every role runs offline."
        cost = (
            "nothing (self-hosted or built in)"
            if self.spend_usd == 0
            else f"at most ${self.spend_usd:.5f}"
            if self.spend_usd is not None
            else "an unknown amount"
        )
        unpriced = f" ({', '.join(self.unpriced)} unpriced)" if self.unpriced else ""
        return (
            f"The probe sends at most {self.max_requests} request(s) to "
            f"{len(self.engines)} engine(s), each about {self.input_tokens} input and at most "
            f"{self.output_tokens} output tokens: {cost}{unpriced}."
        )


def _policy(settings: Settings) -> CallPolicy:
    from .registry import call_policy

    return replace(
        call_policy(settings),
        attempts=1,
        output_retries=0,
        max_output_tokens=PROBE_TOKENS,
        reasoning_max_output_tokens=min(
            PROBE_REASONING_TOKENS, settings.model_reasoning_max_output_tokens
        ),
    )


def plan(settings: Settings) -> ProbePlan:
    """Which engines the probe asks, and what that costs at most."""
    from .registry import role_specs

    prices = PriceTable.load(settings.prices_file)
    grouped: dict[tuple[str, str | None, str], tuple[EngineSpec, list[str]]] = {}
    for role, spec in role_specs(settings).items():
        if spec.provider == "offline":
            continue
        key = (spec.id, spec.base_url, spec.output_mode)
        grouped.setdefault(key, (spec, []))[1].append(role)
    engines = list(grouped.values())
    policy = _policy(settings)
    schema = json.dumps(ProbeOut.model_json_schema())
    # The worst case of the modes: the instructions, the schema, and prompted JSON's copy.
    tokens_in = estimate_tokens(
        PROBE_PROMPT,
        prompts.instructions(_ProbeRole.task),
        schema,
        prompts.PROMPTED_TEMPLATE.format(schema=schema),
    )
    tokens_out = max(policy.max_output_tokens, policy.reasoning_max_output_tokens)
    citing_in = estimate_tokens(
        prompts.CITING_ANSWERER_INSTRUCTIONS, CITING_QUESTION, CITING_PASSAGE, schema
    )
    requests, spend, unpriced = 0, 0.0, []
    for spec, roles in engines:
        n = len(OUTPUT_MODES)
        requests += n
        cost = prices.spend(spec.id, tokens_in, tokens_out)
        citing = prices.spend(spec.id, citing_in, CITING_TOKENS) if _cites(spec, roles) else 0.0
        if _cites(spec, roles):
            requests += 1
        if cost is None or citing is None:
            unpriced.append(spec.id)
        else:
            spend += n * cost + citing
    if any(_cites(spec, roles) for spec, roles in engines):
        tokens_in, tokens_out = max(tokens_in, citing_in), max(tokens_out, CITING_TOKENS)
    return ProbePlan(
        engines, requests, tokens_in, tokens_out, None if unpriced else spend, unpriced
    )


def _cites(spec: EngineSpec, roles: Sequence[str]) -> bool:
    """Whether the engine answers through Anthropic's citations (`citations.py`)."""
    return spec.cites and "answerer" in roles


def _trial(
    spec: EngineSpec, model: Model, mode: OutputMode, policy: CallPolicy, prices: PriceTable
) -> Trial:
    role = _ProbeRole(
        spec.id, model, policy, prices, mode=mode, named_tool_choice=spec.server.named_tool_choice
    )
    budget = RunBudget(max_calls=1, max_tokens=100_000)
    started = time.monotonic()
    try:
        ready, tokens_in, tokens_out = role.ask(budget)
    except AgentFailure as exc:
        detail = str(exc).removeprefix("The probe failed: ").removeprefix("The probe stopped: ")
        return Trial(mode, False, detail.rstrip("."), time.monotonic() - started)
    seconds = time.monotonic() - started
    if not ready:
        return Trial(mode, False, "the model returned ready as false", seconds)
    detail = f"structured output in {mode} mode"
    return Trial(mode, True, detail, seconds, tokens_in, tokens_out)


def _fixable(trial: Trial) -> bool:
    return any(marker in trial.detail for marker in _FIXABLE)


def probe_engine(
    spec: EngineSpec,
    roles: list[str],
    settings: Settings,
    *,
    fetch: Callable[[str, dict[str, Any] | None], Any] | None = None,
) -> EngineProbe:
    """Ask `spec` once in its mode, then in the others while the failure is one another
    mode could fix; for Ollama, read the context length."""
    result = EngineProbe(spec.id, spec.endpoint(), roles, spec.output_mode)
    configured = settings.api_key.get_secret_value() if settings.api_key else None
    prices = PriceTable.load(settings.prices_file)
    policy = _policy(settings)
    modes = [spec.output_mode] + [m for m in OUTPUT_MODES if m != spec.output_mode]
    for mode in modes:
        tried = replace(spec, output_mode=mode)
        model = build_model(tried, api_key(tried, configured))
        if mode == "native" and not model.profile.get("supports_json_schema_output", False):
            continue  # the library knows this model has no JSON-schema format
        trial = _trial(tried, model, mode, policy, prices)
        result.trials.append(trial)
        if trial.ok or not _fixable(trial):
            break
    first = result.trials[0] if result.trials else None
    working = next((t for t in result.trials if t.ok), None)
    who = " and ".join(roles)
    if first is None:
        result.problems.append(f"The {who} engine {spec.id} could not be asked in any mode.")
    elif not first.ok:
        if working is None:
            result.problems.append(
                f"The {who} engine {spec.id} failed in {first.mode} mode: {first.detail}."
            )
        else:
            result.problems.append(
                f"The {who} engine {spec.id} failed in {first.mode} mode ({first.detail}), "
                f"and answered in {working.mode} mode."
            )
            result.advice.append(
                f"Set EVIDENCE_DESK_MODEL_OUTPUT_MODE={working.mode} to run in {working.mode} mode."
            )
    if _cites(spec, roles) and working is not None:
        _citing(spec, configured, policy, prices, result)
    if spec.provider == "ollama" and working is not None:
        _ollama_context(spec, settings, result, fetch or _fetch)
    return result


def _citing(
    spec: EngineSpec,
    configured: str | None,
    policy: CallPolicy,
    prices: PriceTable,
    result: EngineProbe,
) -> None:
    """Ask the citing answerer one question on one passage, as a run asks it, and check
    that its reply cites the passage's words."""
    from ..types import Plan, ScoredPassage, Source, SubQuestion
    from .citations import CitingAnswerer
    from .providers import anthropic_client

    key = api_key(spec, configured)
    capped = replace(policy, max_output_tokens=CITING_TOKENS)
    answerer = CitingAnswerer(
        spec.id, anthropic_client(spec, key), build_model(spec, key), capped, prices
    )
    passage = ScoredPassage(
        id="probe#0", text=CITING_PASSAGE, start=0, end=len(CITING_PASSAGE), score=1.0
    )
    source = Source(
        id="S1",
        doc_id="probe",
        title="The Erie Canal",
        retrieved_at="1970-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=(passage,),
    )
    asked = Plan(subquestions=(SubQuestion(text=CITING_QUESTION),), queries=(CITING_QUESTION,))
    try:
        budget = RunBudget(max_calls=1, max_tokens=100_000)
        draft = answerer.answer(CITING_QUESTION, asked, [source], budget).value
    except AgentFailure as exc:
        detail = str(exc).rstrip(".")
        result.citations = f"failed: {detail}"
        result.problems.append(
            f"The answerer engine {spec.id} failed on its citing path: {detail}."
        )
        return
    cited = [span for rest in draft.rests for span in rest.spans if span.source_id == "S1"]
    if cited:
        result.citations = f'the reply cited its search result: "{cited[0].text}"'
        return
    result.citations = "the reply cited nothing"
    result.problems.append(
        f"The answerer engine {spec.id} answered without citing its search result: a run's "
        "sentences would rest on no words of their sources, so a paraphrase would be held."
    )
    result.advice.append(
        "Set EVIDENCE_DESK_MODEL_OUTPUT_MODE=tool to have the answerer name the words it "
        "rests on through the output tool."
    )


def _fetch(url: str, body: dict[str, Any] | None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        headers={"Content-Type": "application/json"},
        method="POST" if data else "GET",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def largest_request(settings: Settings) -> int:
    """About how many tokens the desk's largest request (the answerer's or auditor's, all
    sources shown) and its reply reach."""
    words = settings.max_sources * 3 * settings.passage_words  # up to 3 passages a source
    prompt = int(words * 1.4) + 1500  # tokens per word, with instructions and schema
    return prompt + settings.model_max_output_tokens


def _ollama_context(
    spec: EngineSpec,
    settings: Settings,
    result: EngineProbe,
    fetch: Callable[[str, dict[str, Any] | None], Any],
) -> None:
    root = (spec.base_url or "").rstrip("/").removesuffix("/v1")
    context, where = None, ""
    try:
        running = fetch(f"{root}/api/ps", None).get("models", [])
        loaded = next(
            (m for m in running if m.get("name") in (spec.model, f"{spec.model}:latest")), None
        )
        if loaded and loaded.get("context_length"):
            context, where = int(loaded["context_length"]), "the loaded model (/api/ps)"
        if context is None:
            shown = fetch(f"{root}/api/show", {"model": spec.model})
            for line in str(shown.get("parameters", "")).splitlines():
                name, _, value = line.partition(" ")
                if name == "num_ctx" and value.strip().isdigit():
                    context, where = int(value.strip()), "num_ctx in its Modelfile"
    except (OSError, urllib.error.URLError, ValueError, AttributeError, TypeError):
        result.context = "unknown (the server did not say)"
        return
    if context is None:
        context, where = OLLAMA_DEFAULT_CONTEXT, "Ollama's default"
    need = largest_request(settings)
    result.context = f"{context} tokens ({where}); the desk's largest request needs about {need}"
    if context < need:
        result.problems.append(
            f"Ollama runs {spec.model} with a context of {context} tokens, and the desk's "
            f"largest request needs about {need}: Ollama drops the start of a longer prompt "
            "(the instructions) without an error."
        )
        result.advice.append(
            f"Start Ollama with OLLAMA_CONTEXT_LENGTH={_round_up(need)} (or set num_ctx in "
            "the model's Modelfile), or lower EVIDENCE_DESK_MAX_SOURCES."
        )


def _round_up(tokens: int) -> int:
    size = 2048
    while size < tokens:
        size *= 2
    return size


def run(settings: Settings, probe_plan: ProbePlan) -> list[EngineProbe]:
    """Probe every engine of `probe_plan`."""
    return [probe_engine(spec, roles, settings) for spec, roles in probe_plan.engines]


__all__: Sequence[str] = ("EngineProbe", "ProbePlan", "Trial", "largest_request", "plan", "run")
