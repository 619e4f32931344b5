"""Settings → the agent roles, each on the engine its setting names, and the illustrator.

Every role is the same Pydantic AI agent code (`roles.py`), but for the answerer of an
`anthropic:` engine in `auto` output mode, which cites (`citations.py`); this module only
picks the model behind it: the offline engine's `FunctionModel` (one per embedder, shared
by the roles) or a provider's model (`providers.py`). A name this build cannot serve, a
missing key or a missing SDK fails here, before any work, with one sentence that says what
to do.

The offline answerer and auditor share one in-memory embedding cache, so a sentence the
answerer embedded is free for the auditor. The offline answerer takes its one setting,
`relative_date_reach_days`, from here.

The illustrator (`illustrator.py`) exists only when `EVIDENCE_DESK_ILLUSTRATOR` names an
image engine: an `openai:` or `openai-compatible:` one, since pictures are made through the
OpenAI Images API; `offline` is refused, there being no offline image model. Its reviewer is
`EVIDENCE_DESK_ILLUSTRATION_REVIEWER`, else the teacher's engine, and must be a model
provider's: the offline engine cannot see.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from pydantic_ai.models import Model

from ..retrieval.embedder import Embedder
from ..settings import Settings
from .calls import CallPolicy
from .citations import CitingAnswerer
from .illustrator import Illustrator, ImageReviewer, ImagesIllustrator
from .offline.answerer import RELATIVE_DATE_REACH_DAYS
from .offline.embedcache import CachedEmbedder
from .offline.model import OfflineEngine
from .prices import PriceFileError, PriceTable
from .providers import (
    OFFLINE,
    EngineSpec,
    ProviderSetupError,
    UnknownEngineError,
    anthropic_client,
    api_key,
    build_model,
    openai_client,
    parse_engine,
    require_key,
)
from .roles import AgentAnswerer, AgentAuditor, AgentPlanner, AgentTeacher

ROLES = ("planner", "answerer", "auditor", "teacher")
IMAGE_PROVIDERS = ("openai", "openai-compatible")  # the kinds that serve the Images API
# Per embedder, one engine per answerer reach (`relative_date_reach_days`).
_engines: weakref.WeakKeyDictionary[object, dict[int, OfflineEngine]] = weakref.WeakKeyDictionary()
_caches: weakref.WeakKeyDictionary[object, CachedEmbedder] = weakref.WeakKeyDictionary()
_lock = threading.Lock()

__all__ = [
    "IMAGE_PROVIDERS",
    "ROLES",
    "Agents",
    "UnknownEngineError",
    "call_policy",
    "offline_engine",
    "resolve",
    "resolve_illustrator",
    "role_specs",
    "shared_cache",
]


@dataclass(frozen=True)
class Agents:
    planner: AgentPlanner
    answerer: AgentAnswerer | CitingAnswerer
    auditor: AgentAuditor
    teacher: AgentTeacher
    illustrator: Illustrator | None = None  # None: illustrations are off


def role_specs(settings: Settings) -> dict[str, EngineSpec]:
    """The parsed engine of each role; `UnknownEngineError` names the bad setting."""
    return {
        r: parse_engine(settings.engine_name(r), r, settings.base_url, settings.model_output_mode)
        for r in ROLES
    }


def call_policy(settings: Settings) -> CallPolicy:
    return CallPolicy(
        timeout=settings.model_timeout,
        attempts=max(settings.model_attempts, 1),
        backoff=max(settings.model_backoff, 0.0),
        max_wait=max(settings.model_max_wait, 0.0),
        output_retries=max(settings.model_output_retries, 0),
        max_output_tokens=settings.model_max_output_tokens,
        reasoning_effort=settings.model_reasoning_effort,
        reasoning_max_output_tokens=settings.model_reasoning_max_output_tokens,
    )


def shared_cache(embedder: Embedder) -> CachedEmbedder:
    """One `CachedEmbedder` per embedder object (a cache itself is returned unchanged)."""
    if isinstance(embedder, CachedEmbedder):
        return embedder
    with _lock:
        cached = _caches.get(embedder)
        if cached is None:
            cached = CachedEmbedder(embedder)
            _caches[embedder] = cached
    return cached


def offline_engine(
    embedder: Embedder, relative_date_reach_days: int = RELATIVE_DATE_REACH_DAYS
) -> OfflineEngine:
    """One offline engine per embedder object and answerer reach; the answerer and auditor
    share a cache."""
    with _lock:
        engine = _engines.get(embedder, {}).get(relative_date_reach_days)
    if engine is None:
        engine = OfflineEngine(shared_cache(embedder), relative_date_reach_days)
        with _lock:
            engine = _engines.setdefault(embedder, {}).setdefault(relative_date_reach_days, engine)
    return engine


def resolve(settings: Settings, embedder: Embedder) -> Agents:
    """The four roles for `settings`. Raises `ValueError` subclasses with one sentence."""
    specs = role_specs(settings)
    key = settings.api_key.get_secret_value() if settings.api_key else None
    for role, spec in specs.items():
        require_key(spec, role, key)
    try:
        prices = PriceTable.load(settings.prices_file)
    except PriceFileError as exc:
        raise ProviderSetupError(str(exc)) from None
    policy = call_policy(settings)
    models: dict[str, Model] = {}
    for role, spec in specs.items():
        if spec.provider == OFFLINE:
            models[role] = offline_engine(embedder, settings.relative_date_reach_days).model()
        else:
            models[role] = build_model(spec, api_key(spec, key))
            require_mode(spec, models[role], role)

    def how(role: str) -> dict[str, Any]:
        spec = specs[role]
        return {"mode": spec.output_mode, "named_tool_choice": spec.server.named_tool_choice}

    answering = specs["answerer"]
    answerer: AgentAnswerer | CitingAnswerer
    if answering.cites:
        client = anthropic_client(answering, api_key(answering, key))
        answerer = CitingAnswerer(answering.id, client, models["answerer"], policy, prices)
    else:
        answerer = AgentAnswerer(
            answering.id, models["answerer"], policy, prices, **how("answerer")
        )
    return Agents(
        planner=AgentPlanner(
            specs["planner"].id, models["planner"], policy, prices, **how("planner")
        ),
        answerer=answerer,
        auditor=AgentAuditor(
            specs["auditor"].id, models["auditor"], policy, prices, **how("auditor")
        ),
        teacher=AgentTeacher(
            specs["teacher"].id, models["teacher"], policy, prices, **how("teacher")
        ),
        illustrator=resolve_illustrator(settings, key, prices, policy),
    )


def resolve_illustrator(
    settings: Settings, key: str | None, prices: PriceTable, policy: CallPolicy
) -> ImagesIllustrator | None:
    """The illustrator `settings` name, or None when illustrations are off (see the module
    docstring). Raises `ValueError` subclasses with one sentence."""
    name = settings.illustrator.strip()
    if not name:
        return None
    if name.lower() == OFFLINE:
        raise ProviderSetupError(
            "There is no offline image model: set EVIDENCE_DESK_ILLUSTRATOR to an image "
            "engine such as openai:gpt-image-1, or leave it empty to keep illustrations off."
        )
    spec = parse_engine(name, "illustrator", settings.base_url)
    if spec.provider not in IMAGE_PROVIDERS:
        raise ProviderSetupError(
            f"The illustrator {spec.id} cannot draw: pictures are made through the OpenAI "
            "Images API, so use 'openai:<model>' or 'openai-compatible:<model>@<base URL>'."
        )
    require_key(spec, "illustrator", key)
    seen_by = settings.illustration_reviewer.strip() or settings.engine_name("teacher")
    role = "illustration reviewer"
    review = parse_engine(seen_by, role, settings.base_url, settings.model_output_mode)
    if review.provider == OFFLINE:
        raise ProviderSetupError(
            "A picture is reviewed by a vision model, and the offline engine cannot see: set "
            "EVIDENCE_DESK_ILLUSTRATION_REVIEWER to one (e.g. openai:gpt-4.1-mini)."
        )
    require_key(review, role, key)
    model = build_model(review, api_key(review, key))
    require_mode(review, model, role)
    named = review.server.named_tool_choice
    reviewer = ImageReviewer(
        review.id, model, policy, prices, mode=review.output_mode, named_tool_choice=named
    )
    client = openai_client(spec, api_key(spec, key))
    return ImagesIllustrator(spec, client, settings.illustration_price_usd, reviewer, policy)


def require_mode(spec: EngineSpec, model: Model, role: str) -> None:
    """Fail before any work when `model` cannot give output in its engine's mode."""
    if spec.output_mode == "native" and not model.profile.get("supports_json_schema_output", False):
        raise ProviderSetupError(
            f"The {role} uses {spec.id}, which cannot return output in a JSON-schema "
            "response format; set EVIDENCE_DESK_MODEL_OUTPUT_MODE to auto, tool or prompted."
        )
