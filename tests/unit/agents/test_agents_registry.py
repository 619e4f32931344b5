"""Engines by name, and the embedding cache the offline answerer and auditor share."""

from __future__ import annotations

import numpy as np
import pytest
from agents_helpers import BagOfWordsEmbedder, source_from_text
from pydantic_ai.models.function import FunctionModel

from evidence_desk.agents.base import RunBudget
from evidence_desk.agents.citations import CitingAnswerer
from evidence_desk.agents.offline import (
    CachedEmbedder,
    OfflineAnswerer,
    OfflineAuditor,
    OfflinePlanner,
)
from evidence_desk.agents.providers import ProviderSetupError
from evidence_desk.agents.registry import (
    UnknownEngineError,
    offline_engine,
    resolve,
    role_specs,
    shared_cache,
)
from evidence_desk.agents.roles import AgentAnswerer, AgentAuditor, AgentPlanner
from evidence_desk.settings import Settings
from evidence_desk.types import Plan, SubQuestion, TimeWindow


def test_offline_is_the_default_for_every_role() -> None:
    embedder = BagOfWordsEmbedder()
    agents = resolve(Settings(), embedder)
    for role in (agents.planner, agents.answerer, agents.auditor):
        assert role.engine_id == "offline"
        assert isinstance(role._call.agent.model, FunctionModel)
    engine = offline_engine(embedder)
    assert engine is offline_engine(embedder)
    assert isinstance(engine.planner, OfflinePlanner)
    assert isinstance(engine.answerer, OfflineAnswerer)
    assert isinstance(engine.auditor, OfflineAuditor)


def test_one_variable_sets_every_role_and_each_role_can_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVIDENCE_DESK_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("EVIDENCE_DESK_AUDITOR", "anthropic:claude-haiku-4-5")
    monkeypatch.setenv("EVIDENCE_DESK_PLANNER", "offline")
    specs = role_specs(Settings())
    assert {r: s.id for r, s in specs.items()} == {
        "planner": "offline",
        "answerer": "openai:gpt-4.1-mini",
        "auditor": "anthropic:claude-haiku-4-5",
        "teacher": "openai:gpt-4.1-mini",
    }


def test_base_urls_come_from_the_name_or_the_setting() -> None:
    specs = role_specs(
        Settings(
            model="ollama:llama3.1:8b",
            answerer="openai-compatible:qwen@http://10.1.2.3:8000/v1",
            auditor="openai-compatible:qwen",
            base_url="http://127.0.0.1:9999/v1",
        )
    )
    assert specs["planner"].model == "llama3.1:8b"
    assert specs["planner"].base_url == "http://127.0.0.1:9999/v1"
    assert specs["answerer"].base_url == "http://10.1.2.3:8000/v1"
    assert specs["answerer"].id == "openai-compatible:qwen"  # receipts name no URL
    assert specs["auditor"].base_url == "http://127.0.0.1:9999/v1"
    assert role_specs(Settings(model="ollama:phi"))["planner"].base_url == (
        "http://127.0.0.1:11434/v1"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("magic", "Unknown planner engine 'magic'"),
        ("gemini:pro", "Unknown planner engine 'gemini:pro'"),
        ("openai:", "names no model"),
        ("openai-compatible:qwen", "needs the server's base URL"),
        ("openai:gpt@ftp://x", "must start with http"),
    ],
)
def test_bad_engine_names_fail_with_one_clear_sentence(name: str, message: str) -> None:
    with pytest.raises(UnknownEngineError, match=message) as info:
        role_specs(Settings(planner=name))
    assert str(info.value).endswith(".")


def test_a_missing_key_is_named_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderSetupError, match="needs ANTHROPIC_API_KEY; it is not set"):
        resolve(Settings(answerer="anthropic:claude-haiku-4-5"), BagOfWordsEmbedder())


def test_keys_reach_the_sdk_client_and_never_the_engine_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    agents = resolve(Settings(model="openai:gpt-4.1-mini"), BagOfWordsEmbedder())
    assert agents.answerer.engine_id == "openai:gpt-4.1-mini"
    assert "sk-test" not in repr(role_specs(Settings(model="openai:gpt-4.1-mini")))
    assert (
        agents.answerer._call.metered
        and not resolve(Settings(), BagOfWordsEmbedder()).answerer._call.metered
    )


def test_an_anthropic_answerer_cites_unless_an_output_mode_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    agents = resolve(Settings(model="anthropic:claude-haiku-4-5"), BagOfWordsEmbedder())
    assert isinstance(agents.answerer, CitingAnswerer)
    assert agents.answerer.engine_id == "anthropic:claude-haiku-4-5"
    client = agents.answerer._call.client
    assert client.api_key == "sk-ant-test-secret" and client.max_retries == 0
    assert str(client.base_url).startswith("http://127.0.0.1:9")
    assert isinstance(agents.planner, AgentPlanner) and isinstance(agents.auditor, AgentAuditor)
    for mode in ("tool", "native", "prompted"):
        settings = Settings(model="anthropic:claude-haiku-4-5", model_output_mode=mode)
        assert not role_specs(settings)["answerer"].cites
    tool = Settings(model="anthropic:claude-haiku-4-5", model_output_mode="tool")
    assert isinstance(resolve(tool, BagOfWordsEmbedder()).answerer, AgentAnswerer)
    assert not role_specs(Settings(model="openai:gpt-4.1-mini"))["answerer"].cites


def test_answerer_and_auditor_share_one_cache_per_embedder() -> None:
    embedder = BagOfWordsEmbedder()
    first, second = shared_cache(embedder), shared_cache(embedder)
    assert first is second
    assert shared_cache(first) is first
    assert shared_cache(BagOfWordsEmbedder()) is not first


def test_cache_embeds_each_text_once_and_keeps_order() -> None:
    inner = BagOfWordsEmbedder()
    cache = CachedEmbedder(inner, capacity=3)
    a = cache.embed(["navy ships", "army", "navy ships"])
    assert inner.texts == 2
    b = cache.embed(["army", "navy ships"])
    assert inner.texts == 2
    assert np.allclose(a[1], b[0]) and np.allclose(a[0], b[1])
    assert np.allclose(cache.embed_query("army"), a[1])
    cache.embed(["tariff", "gold", "silver"])
    assert len(cache) == 3
    cache.embed(["army"])
    assert inner.texts == 6  # "army" was evicted and embedded again


def test_the_answerers_reach_for_relative_dates_comes_from_settings() -> None:
    window = TimeWindow(start="2017-04-01", end="2017-04-30", label="April 2017")
    text = "In early April, GSA launched a shared login service for federal agencies."
    source = source_from_text(text, title="Login news").model_copy(update={"date": "2018-02-24"})
    plan = Plan(
        subquestions=(SubQuestion(text="What login service did GSA launch?", window=window),),
        time_windows=(window,),
        queries=("login service",),
        key_terms=("login", "service"),
        kind="temporal",
    )
    embedder = BagOfWordsEmbedder()
    budget = RunBudget(12, 90_000)

    def draft(reach: int) -> str:
        answerer = resolve(Settings(relative_date_reach_days=reach), embedder).answerer
        return answerer.answer("What login service?", plan, [source], budget).value.text

    assert draft(183) == ""  # 300 days after the window: beyond the default reach
    assert draft(300).startswith('Login news (February 24, 2018): "In early April')
    assert offline_engine(embedder, 300) is offline_engine(embedder, 300)
    assert offline_engine(embedder, 300) is not offline_engine(embedder)
