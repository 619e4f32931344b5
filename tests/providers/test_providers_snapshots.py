"""Snapshots of the request bodies each provider receives, one file per protocol.

`snapshots/<protocol>.json` holds the planner's, answerer's and auditor's request bodies of
one run, exactly as the local server received them (today's date replaced by a
placeholder), so a reviewer can read them beside the providers' public API references. A
change to a prompt, a schema or a model setting shows up here as a diff.
`snapshots/<variant>.json` does the same per server kind (`chat-vllm`, `chat-llamacpp`,
`chat-ollama`, `chat-openai-compatible`), per output mode (`chat-native`, `chat-prompted`,
`responses-native`, `anthropic-prompted`) and for one reasoning model per protocol
(`*-reasoning`). An Anthropic answerer in `auto` mode cites: its request in `anthropic.json`
and `anthropic-reasoning.json` carries search results and no tool.
Regenerate with `UPDATE_SNAPSHOTS=1 pytest tests/providers/test_providers_snapshots.py`.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model, system_text, tool_names, user_text

from evidence_desk.agents.prompts import (
    ANSWERER_INSTRUCTIONS,
    AUDITOR_INSTRUCTIONS,
    CITING_ANSWERER_INSTRUCTIONS,
    PLANNER_INSTRUCTIONS,
)
from evidence_desk.testing.fakeproviders import FakeProvider, Protocol

SNAPSHOTS = Path(__file__).parent / "snapshots"
QUESTION = "When was the Erie Canal opened?"
INSTRUCTIONS = {
    "plan": PLANNER_INSTRUCTIONS,
    "answer": ANSWERER_INSTRUCTIONS,
    "audit": AUDITOR_INSTRUCTIONS,
}


# Per server kind, per output mode, and one reasoning model per protocol: (protocol,
# engine with `{url}` for a self-hosted server's base URL, output mode).
VARIANTS: dict[str, tuple[Protocol, str, str]] = {
    "chat-vllm": ("chat", "vllm:Qwen/Qwen2.5-7B-Instruct@{url}", "auto"),
    "chat-llamacpp": ("chat", "llamacpp:smollm2@{url}", "auto"),
    "chat-ollama": ("chat", "ollama:llama3.1:8b@{url}", "auto"),
    "chat-openai-compatible": ("chat", "openai-compatible:local-model@{url}", "auto"),
    "chat-native": ("chat", "openai:gpt-4.1-mini", "native"),
    "chat-prompted": ("chat", "openai:gpt-4.1-mini", "prompted"),
    "responses-native": ("responses", "openai-responses:gpt-4.1-mini", "native"),
    "anthropic-prompted": ("anthropic", "anthropic:claude-haiku-4-5", "prompted"),
    "chat-reasoning": ("chat", "openai:gpt-5-mini", "auto"),
    "responses-reasoning": ("responses", "openai-responses:gpt-5-mini", "auto"),
    "anthropic-reasoning": ("anthropic", "anthropic:claude-sonnet-5", "auto"),
}


def bodies(
    make_desk: DeskFactory, protocol: Protocol, engine: str = "", mode: str = "auto"
) -> dict[str, Any]:
    model = Model(protocol)
    with FakeProvider(protocol, model, validate=True) as fake:
        kw: dict[str, Any] = {"model_output_mode": mode}
        if engine:
            kw["model"] = engine.format(url=fake.base_url)
        # One source: which irrelevant documents come second may differ in the last bits
        # of the embeddings between CPUs (bf16 or fp32); the snapshot must not.
        make_desk(protocol, fake.base_url, max_sources=1, **kw).ask(QUESTION)
    assert [(r.rule, r.message) for r in fake.rejected] == []  # what a real API accepts
    today = datetime.now(UTC).date().isoformat()
    text = json.dumps({role: body for role, body in model.seen}, indent=2, sort_keys=True)
    return json.loads(text.replace(f"Today is {today}.", "Today is <today>."))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_request_bodies_match_their_snapshot(make_desk: DeskFactory, protocol: Protocol) -> None:
    seen = bodies(make_desk, protocol)
    path = SNAPSHOTS / f"{protocol}.json"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(json.dumps(seen, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert seen == json.loads(path.read_text("utf-8")), f"{path.name} changed"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_server_kind_mode_and_reasoning_model_matches_its_snapshot(
    make_desk: DeskFactory, name: str
) -> None:
    protocol, engine, mode = VARIANTS[name]
    seen = bodies(make_desk, protocol, engine, mode)
    assert list(seen) == ["answer", "audit", "plan"]  # every role asked, and answered
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(json.dumps(seen, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert seen == json.loads(path.read_text("utf-8")), f"{path.name} changed"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_each_request_offers_only_its_output_tool_and_states_the_rules(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    seen = bodies(make_desk, protocol)
    tools = {"plan": "submit_plan", "answer": "submit_answer", "audit": "submit_audit"}
    for role, tool in tools.items():
        body = seen[role]
        if protocol == "anthropic" and role == "answer":
            assert_cites_search_results(body)
            continue
        assert tool_names(protocol, body) == [tool]  # no other tool exists to unlock
        assert body["temperature"] == 0
        limit = ("max_completion_tokens", "max_output_tokens", "max_tokens")
        assert [body[k] for k in limit if k in body] == [2048]
        assert body.get("stream") in (None, False)
        choice = body["tool_choice"]
        assert choice in ("required", {"type": "any"}), choice  # the model must use the tool
        assert system_text(protocol, body) == INSTRUCTIONS[role]
        prompt = user_text(protocol, body)
        assert prompt.startswith(f"<question>\n{QUESTION}\n</question>")
        if role != "plan":
            assert prompt.count("<sources>") == 1 and prompt.rstrip().endswith("</sources>")
            assert prompt.count("<source id=") == 1
            assert re.search(r'<source id="S1" title="Erie Canal opens" date="1825-10-26"', prompt)


def assert_cites_search_results(body: dict[str, Any]) -> None:
    """The Anthropic answerer in `auto` mode: no tool, its passages as search results with
    citations enabled, one text block per sentence."""
    assert "tools" not in body and "tool_choice" not in body
    assert body["temperature"] == 0 and body["max_tokens"] == 2048
    assert body.get("stream") in (None, False)
    assert system_text("anthropic", body) == CITING_ANSWERER_INSTRUCTIONS
    [message] = body["messages"]
    first, *results, last = message["content"]
    assert first["text"].startswith(f"<question>\n{QUESTION}\n</question>")
    assert first["text"].endswith("</plan>\n<sources>") and last["text"] == "</sources>"
    assert [(r["type"], r["source"], r["title"], r["citations"]) for r in results] == [
        ("search_result", "S1", "Erie Canal opens (1825-10-26)", {"enabled": True})
    ]
    [canal] = results
    assert [b["text"] for b in canal["content"]][:2] == [
        "The Erie Canal was opened on October 26, 1825, linking the Hudson River to Lake Erie.",
        "Governor DeWitt Clinton rode the first boat from Buffalo to New York City.",
    ]


def test_snapshots_hold_no_secret() -> None:
    for path in SNAPSHOTS.glob("*.json"):
        assert "sk-" not in path.read_text("utf-8")
