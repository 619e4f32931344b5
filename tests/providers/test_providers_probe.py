"""`doctor --probe`: one tiny request per engine finds what a model list cannot.

Each test puts a local Chat Completions server behind an engine and lets the probe ask it
for real: a server that crashes on `tool_choice: "required"` (as llama.cpp's
`chatml-function-calling` format does) is found out and the setting that works is named; a
bad key is not "fixed" by another mode; the cost is stated before anything is sent; and an
Ollama context shorter than the desk's largest request is a problem with its fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from evidence_desk.agents.probe import (
    CITING_PASSAGE,
    largest_request,
    plan,
    probe_engine,
    run,
)
from evidence_desk.agents.providers import parse_engine
from evidence_desk.settings import Settings
from evidence_desk.testing.fakebodies import Cite, CitedText
from evidence_desk.testing.fakeproviders import FakeProvider, Reply
from evidence_desk.testing.fakerules import search_results

READY = {"ready": True}
CITING_FIRST = CITING_PASSAGE.split(". ")[0] + "."  # the search result's first text block


def crashes_on_required(body: dict[str, Any], index: int) -> Reply:
    """llama.cpp's function-calling format: `"required"` is a 500, a named tool works."""
    choice = body.get("tool_choice")
    if choice == "required":
        return Reply.error(500, "tool_choice 'required' is not supported")
    if body.get("tools"):
        return Reply.output(READY)
    return Reply.text(json.dumps(READY))  # a response format, or prompted JSON


def settings_for(engine: str, **kw: Any) -> Settings:
    return Settings(model=engine, cache_dir=None, model_backoff=0.01, model_timeout=5.0, **kw)


def test_a_working_engine_answers_once_in_its_own_mode() -> None:
    with FakeProvider("chat", [Reply.output(READY)], models=("m",)) as fake:
        settings = settings_for(f"vllm:m@{fake.base_url}")
        (result,) = run(settings, plan(settings))
        assert len(fake.requests) == 1
    assert result.ok and result.roles == ["planner", "answerer", "auditor", "teacher"]
    assert [(t.mode, t.ok) for t in result.trials] == [("tool", True)]
    assert result.trials[0].input_tokens > 0 and not result.advice


def test_a_server_that_crashes_on_required_is_found_and_the_working_mode_named() -> None:
    with FakeProvider("chat", crashes_on_required, models=("m",)) as fake:
        settings = settings_for(f"openai-compatible:m@{fake.base_url}", model_output_mode="tool")
        (result,) = run(settings, plan(settings))
        sent = [b.body.get("tool_choice") for b in fake.requests if b.path.endswith("/completions")]
    assert [(t.mode, t.ok) for t in result.trials] == [("tool", False), ("native", True)]
    assert sent == ["required", None]
    assert "HTTP 500" in result.trials[0].detail
    assert not result.ok
    assert (
        "failed in tool mode" in result.problems[0]
        and "answered in native mode" in result.problems[0]
    )
    assert result.advice == ["Set EVIDENCE_DESK_MODEL_OUTPUT_MODE=native to run in native mode."]


def test_the_llamacpp_kind_names_the_tool_and_passes() -> None:
    with FakeProvider("chat", crashes_on_required, models=("m",)) as fake:
        settings = settings_for(f"llamacpp:m@{fake.base_url}")
        (result,) = run(settings, plan(settings))
    assert result.ok and [(t.mode, t.ok) for t in result.trials] == [("tool", True)]


def test_a_rejected_key_is_not_retried_in_other_modes() -> None:
    with FakeProvider("chat", [Reply.error(401, "bad key")] * 3, models=("m",)) as fake:
        settings = settings_for(f"vllm:m@{fake.base_url}")
        (result,) = run(settings, plan(settings))
        assert len(fake.requests) == 1
    assert [t.ok for t in result.trials] == [False]
    assert "rejected the API key" in result.problems[0] and not result.advice


def test_the_cost_is_stated_before_anything_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    settings = settings_for("openai:gpt-4.1-mini", auditor="vllm:m@http://127.0.0.1:9/v1")
    stated = plan(settings)
    assert [roles for _, roles in stated.engines] == [
        ["planner", "answerer", "teacher"],
        ["auditor"],
    ]
    assert stated.max_requests == 6  # three modes at most per engine
    assert stated.spend_usd is not None and 0 < stated.spend_usd < 0.01
    text = stated.statement()
    assert text.startswith("The probe sends at most 6 request(s) to 2 engine(s)")
    assert f"at most ${stated.spend_usd:.5f}" in text
    offline = plan(Settings(cache_dir=None)).statement()
    assert offline == "Nothing to probe: every role runs offline."


def test_self_hosted_costs_nothing_and_an_unpriced_model_an_unknown_amount(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    free = plan(settings_for("openai-compatible:m@http://127.0.0.1:9/v1"))
    assert (free.spend_usd, free.unpriced) == (0.0, [])
    assert "nothing (self-hosted or built in)" in free.statement()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    unknown = plan(settings_for("openai:no-such-model-7x"))
    assert unknown.spend_usd is None and unknown.unpriced == ["openai:no-such-model-7x"]
    assert "an unknown amount (openai:no-such-model-7x unpriced)" in unknown.statement()


class OllamaAPI:
    """What Ollama's own API says about a model (`/api/ps`, `/api/show`)."""

    def __init__(self, ps: dict[str, Any], show: dict[str, Any]) -> None:
        self.ps, self.show, self.asked = ps, show, []  # type: ignore[var-annotated]

    def __call__(self, url: str, body: dict[str, Any] | None) -> Any:
        self.asked.append(url)
        return self.ps if url.endswith("/api/ps") else self.show


@pytest.mark.parametrize(
    ("ps", "show", "context", "short"),
    [
        ({"models": [{"name": "llama3.1:8b", "context_length": 4096}]}, {}, 4096, True),
        ({"models": [{"name": "llama3.1:8b", "context_length": 32768}]}, {}, 32768, False),
        ({"models": []}, {"parameters": "num_ctx 16384\nstop x"}, 16384, False),
        ({"models": []}, {"parameters": ""}, 4096, True),  # Ollama's default
    ],
)
def test_ollama_context_length_against_the_largest_request(
    ps: dict[str, Any], show: dict[str, Any], context: int, short: bool
) -> None:
    api = OllamaAPI(ps, show)
    with FakeProvider("chat", lambda body, i: Reply.text(json.dumps(READY))) as fake:
        settings = settings_for(f"ollama:llama3.1:8b@{fake.base_url}")
        spec = parse_engine(settings.model, "planner", "", "auto")
        result = probe_engine(spec, ["planner"], settings, fetch=api)
    need = largest_request(settings)
    assert need > 4096 and need < 16384  # the defaults: 6 sources of 3 passages, 2048 out
    assert result.trials[0].ok and result.trials[0].mode == "native"
    assert result.context.startswith(f"{context} tokens")
    assert api.asked[0] == fake.base_url.removesuffix("/v1") + "/api/ps"
    if short:
        assert "drops the start of a longer prompt" in result.problems[0]
        assert result.advice == [
            "Start Ollama with OLLAMA_CONTEXT_LENGTH=8192 (or set num_ctx in the model's "
            "Modelfile), or lower EVIDENCE_DESK_MAX_SOURCES."
        ]
    else:
        assert result.ok


def citing(cites: bool) -> Callable[[dict[str, Any], int], Reply]:
    """An Anthropic server whose model answers the output tool, and a citing request with a
    sentence that cites its search result (or, `cites` false, the same without citations)."""

    def answer(body: dict[str, Any], index: int) -> Reply:
        if body.get("tools"):
            return Reply.output(READY)
        assert len(search_results(body)) == 1
        sentence = "The canal opened in 1825."
        if not cites:
            return Reply.cited_text(CitedText(sentence))
        return Reply.cited_text(CitedText(sentence, (Cite(0, 0, 1),)))

    return answer


def test_a_citing_answerer_is_asked_the_way_a_run_asks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key-0000")
    with FakeProvider("anthropic", citing(True), models=("claude-haiku-4-5",)) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        settings = settings_for("anthropic:claude-haiku-4-5")
        stated = plan(settings)
        (result,) = run(settings, stated)
        bodies = [r.body for r in fake.requests if r.method == "POST"]
    assert fake.rejected == []
    assert stated.max_requests == 4  # three modes at most, and the citing request
    assert len(bodies) == 2 and "tools" not in bodies[1]
    [sent] = search_results(bodies[1])
    assert sent["citations"] == {"enabled": True} and sent["source"] == "S1"
    assert result.ok, result.problems
    assert result.citations == f'the reply cited its search result: "{CITING_FIRST}"'
    assert result.to_json()["citations"] == result.citations


def test_a_citing_answerer_whose_reply_cites_nothing_is_a_problem_with_its_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key-0000")
    with FakeProvider("anthropic", citing(False), models=("claude-haiku-4-5",)) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        settings = settings_for("anthropic:claude-haiku-4-5")
        (result,) = run(settings, plan(settings))
    assert not result.ok and result.citations == "the reply cited nothing"
    assert "answered without citing its search result" in result.problems[0]
    assert result.advice == [
        "Set EVIDENCE_DESK_MODEL_OUTPUT_MODE=tool to have the answerer name the words it "
        "rests on through the output tool."
    ]


def test_an_explicit_mode_or_another_role_sends_no_citing_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key-0000")
    with FakeProvider("anthropic", citing(True), models=("claude-haiku-4-5",)) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        tool = settings_for("anthropic:claude-haiku-4-5", model_output_mode="tool")
        auditor = settings_for("offline", auditor="anthropic:claude-haiku-4-5")
        assert plan(tool).max_requests == 3 and plan(auditor).max_requests == 3
        results = run(tool, plan(tool)) + run(auditor, plan(auditor))
        bodies = [r.body for r in fake.requests if r.method == "POST"]
    assert all(r.ok and not r.citations for r in results)
    assert len(bodies) == 2 and all("tools" in b for b in bodies)
