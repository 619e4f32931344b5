"""The validating fake server's rules, one by one: each rejects a request that breaks it with
a 400 in the provider's own error shape naming the rule, and accepts the same request mended.

The bodies are posted raw, so each test controls exactly what the server reads.
"""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from evidence_desk.testing import fakeproviders
from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.testing.fakerules import RULES

USER = [{"role": "user", "content": "q"}]
BASE: dict[Protocol, dict[str, Any]] = {
    "chat": {"model": "gpt-4.1-mini", "messages": USER},
    "responses": {"model": "gpt-4.1-mini", "input": "q"},
    "anthropic": {"model": "claude-haiku-4-5", "max_tokens": 256, "messages": USER},
}
STRICT = {  # strict-compatible: every object closed, every property required, at any depth
    "type": "object",
    "properties": {
        "claims": {"type": "array", "items": {"$ref": "#/$defs/Claim"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["claims", "note"],
    "additionalProperties": False,
    "$defs": {
        "Claim": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "window": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {"start": {"type": "string"}},
                            "required": ["start"],
                            "additionalProperties": False,
                        },
                        {"type": "null"},
                    ]
                },
            },
            "required": ["text", "window"],
            "additionalProperties": False,
        }
    },
}


def loosen(path: list[str], key: str, value: Any = None) -> dict[str, Any]:
    """`STRICT` with one object at `path` changed: `key` set to `value`, or removed."""
    schema = copy.deepcopy(STRICT)
    node: Any = schema
    for step in path:
        node = node[int(step)] if isinstance(node, list) else node[step]
    if value is None:
        del node[key]
    else:
        node[key] = value
    return schema


OPEN_IN_DEFS = loosen(["$defs", "Claim"], "additionalProperties")
OPEN_IN_ANYOF = loosen(
    ["$defs", "Claim", "properties", "window", "anyOf", "0"], "additionalProperties", True
)
OPTIONAL_IN_DEFS = loosen(["$defs", "Claim"], "required", ["text"])
OPEN_ITEMS = loosen(["properties", "claims"], "items", {"type": "object", "properties": {}})


def chat_tool(schema: Any, strict: bool = True, name: str = "final_result") -> dict[str, Any]:
    fn = {"name": name, "parameters": schema, "strict": strict}
    return {"tools": [{"type": "function", "function": fn}]}


def responses_tool(schema: Any, strict: bool = True, name: str = "final_result") -> dict[str, Any]:
    return {"tools": [{"type": "function", "name": name, "parameters": schema, "strict": strict}]}


def anthropic_tool(schema: Any, strict: bool | None = None, name: str = "final_result") -> Any:
    tool: dict[str, Any] = {"name": name, "input_schema": schema}
    if strict is not None:
        tool["strict"] = strict
    return {"tools": [tool]}


def chat_format(schema: Any, strict: bool = True) -> dict[str, Any]:
    spec = {"name": "Claims", "schema": schema, "strict": strict}
    return {"response_format": {"type": "json_schema", "json_schema": spec}}


def responses_format(schema: Any, strict: bool = True) -> dict[str, Any]:
    fmt = {"type": "json_schema", "name": "Claims", "schema": schema, "strict": strict}
    return {"text": {"format": fmt}}


THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


def result(*texts: str, cited: bool | None = True, **fields: Any) -> dict[str, Any]:
    """A `search_result` block of `texts`, citations as `cited` says (None: not stated)."""
    block: dict[str, Any] = {
        "type": "search_result",
        "source": "S1",
        "title": "Erie Canal opens (1825-10-26)",
        "content": [{"type": "text", "text": t} for t in texts],
        **fields,
    }
    if cited is not None:
        block["citations"] = {"enabled": cited}
    return block


def results(*blocks: dict[str, Any]) -> dict[str, Any]:
    """A user message of search results (one inside a tool result, as a tool may return)."""
    content = [{"type": "text", "text": "q"}, *blocks]
    return {"messages": [{"role": "user", "content": content}]}


# (rule, protocol, what the request adds to its protocol's base: broken, then mended)
CASES: list[tuple[str, Protocol, dict[str, Any], dict[str, Any]]] = [
    ("strict_schema", "chat", chat_tool(OPEN_IN_DEFS), chat_tool(STRICT)),
    ("strict_schema", "chat", chat_tool(OPTIONAL_IN_DEFS), chat_tool(OPTIONAL_IN_DEFS, False)),
    ("strict_schema", "chat", chat_format(OPEN_IN_ANYOF), chat_format(STRICT)),
    ("strict_schema", "chat", chat_format(OPEN_ITEMS), chat_format(OPEN_ITEMS, strict=False)),
    ("strict_schema", "responses", responses_tool(OPTIONAL_IN_DEFS), responses_tool(STRICT)),
    ("strict_schema", "responses", responses_format(OPEN_IN_DEFS), responses_format(STRICT)),
    # Anthropic: objects closed, but a property may be optional.
    (
        "strict_schema",
        "anthropic",
        anthropic_tool(OPEN_IN_ANYOF, True),
        anthropic_tool(OPTIONAL_IN_DEFS, True),
    ),
    (
        "strict_schema",
        "anthropic",
        {"output_config": {"format": {"type": "json_schema", "schema": OPEN_IN_DEFS}}},
        {"output_config": {"format": {"type": "json_schema", "schema": STRICT}}},
    ),
    (
        "strict_schema",
        "anthropic",
        anthropic_tool(OPEN_IN_DEFS, True),
        anthropic_tool(OPEN_IN_DEFS),
    ),
    (
        "no_sampling_when_reasoning",
        "chat",
        {"model": "gpt-5-mini", "temperature": 0},
        {"model": "gpt-5-mini"},
    ),
    (
        "no_sampling_when_reasoning",
        "chat",
        {"model": "o3-mini", "top_p": 0.5},
        {"model": "o3-mini", "top_p": 1},
    ),
    (
        "no_sampling_when_reasoning",
        "chat",
        {"model": "gpt-5.1", "reasoning_effort": "low", "temperature": 0},
        {"model": "gpt-5.1", "reasoning_effort": "none", "temperature": 0},
    ),
    (
        "no_sampling_when_reasoning",
        "chat",
        {"model": "gpt-5.1-chat-latest", "reasoning_effort": "none", "temperature": 0},
        {"model": "gpt-5-chat-latest", "temperature": 0},
    ),
    (
        "no_sampling_when_reasoning",
        "responses",
        {"model": "gpt-5-mini", "reasoning": {"effort": "low"}, "temperature": 0},
        {"model": "gpt-5.2", "reasoning": {"effort": "none"}, "temperature": 0},
    ),
    (
        "no_sampling_when_reasoning",
        "responses",
        {"model": "o4-mini", "temperature": 0.2},
        {"model": "gpt-5.1", "temperature": 0.2},  # GPT-5.1 reasons only when asked
    ),
    (
        "max_completion_tokens_when_reasoning",
        "chat",
        {"model": "gpt-5-mini", "max_tokens": 100},
        {"model": "gpt-5-mini", "max_completion_tokens": 100},
    ),
    ("max_tokens_required", "anthropic", {"max_tokens": None}, {"max_tokens": 1}),
    (
        "no_forced_tool_when_thinking",
        "anthropic",
        {**THINKING, **anthropic_tool(STRICT), "tool_choice": {"type": "any"}},
        {**THINKING, **anthropic_tool(STRICT), "tool_choice": {"type": "auto"}},
    ),
    (
        "no_forced_tool_when_thinking",
        "anthropic",  # Claude Sonnet 5 thinks unless told not to
        {"model": "claude-sonnet-5", **anthropic_tool(STRICT), "tool_choice": {"type": "any"}},
        {
            "model": "claude-sonnet-5",
            "thinking": {"type": "disabled"},
            **anthropic_tool(STRICT),
            "tool_choice": {"type": "tool", "name": "final_result"},
        },
    ),
    (
        "temperature_1_when_thinking",
        "anthropic",
        {"thinking": {"type": "adaptive"}, "temperature": 0},
        {"thinking": {"type": "adaptive"}, "temperature": 1},
    ),
    (
        "tool_choice_names_an_offered_tool",
        "chat",
        {**chat_tool(STRICT), "tool_choice": {"type": "function", "function": {"name": "nope"}}},
        {
            **chat_tool(STRICT),
            "tool_choice": {"type": "function", "function": {"name": "final_result"}},
        },
    ),
    (
        "tool_choice_names_an_offered_tool",
        "responses",
        {**responses_tool(STRICT), "tool_choice": {"type": "function", "name": "nope"}},
        {**responses_tool(STRICT), "tool_choice": {"type": "function", "name": "final_result"}},
    ),
    (
        "tool_choice_names_an_offered_tool",
        "anthropic",
        {**anthropic_tool(STRICT), "tool_choice": {"type": "tool", "name": "nope"}},
        {**anthropic_tool(STRICT), "tool_choice": {"type": "tool", "name": "final_result"}},
    ),
    ("tool_choice_needs_tools", "chat", {"tool_choice": "required"}, {"tool_choice": "auto"}),
    (
        "tool_choice_needs_tools",
        "responses",
        {"tool_choice": {"type": "function", "name": "final_result"}},
        {**responses_tool(STRICT), "tool_choice": "required"},
    ),
    ("tool_choice_needs_tools", "anthropic", {"tool_choice": {"type": "any"}}, {}),
    (
        "search_result_shape",
        "anthropic",
        results(result("The canal opened.", "  ")),
        results(result("The canal opened.", "It linked the Hudson to Lake Erie.")),
    ),
    (
        "search_result_shape",
        "anthropic",
        results(result("The canal opened.", title=None)),
        results(result("The canal opened.", title="")),
    ),
    (
        "citations_all_or_none",
        "anthropic",
        results(result("The canal opened."), result("Towns grew.", cited=None)),
        results(result("The canal opened.", cited=False), result("Towns grew.", cited=None)),
    ),
    (
        "no_citations_with_output_format",
        "anthropic",
        {
            **results(result("The canal opened.")),
            "output_config": {"format": {"type": "json_schema", "schema": STRICT}},
        },
        {
            **results(result("The canal opened.", cited=False)),
            "output_config": {"format": {"type": "json_schema", "schema": STRICT}},
        },
    ),
]


def body_of(protocol: Protocol, extra: dict[str, Any]) -> dict[str, Any]:
    body = {**BASE[protocol], **extra}
    return {key: value for key, value in body.items() if value is not None}


def post(fake: FakeProvider, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    path = {"chat": "/chat/completions", "responses": "/responses", "anthropic": "/v1/messages"}
    request = urllib.request.Request(
        fake.base_url + path[fake.protocol], data=json.dumps(body).encode(), method="POST"
    )
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    ("rule", "protocol", "broken", "mended"),
    CASES,
    ids=[f"{rule}-{protocol}-{i}" for i, (rule, protocol, _, _) in enumerate(CASES)],
)
def test_a_rule_rejects_what_breaks_it_and_accepts_it_mended(
    rule: str, protocol: Protocol, broken: dict[str, Any], mended: dict[str, Any]
) -> None:
    with FakeProvider(protocol, [Reply.text("accepted")], validate=True) as fake:
        status, answer = post(fake, body_of(protocol, broken))
        assert status == 400, answer
        error = answer["error"]
        assert error["type"] == "invalid_request_error"
        assert error["message"].startswith(f"{rule}: ")
        if protocol == "anthropic":
            assert answer["type"] == "error" and "request_id" in answer
        else:
            assert set(error) == {"message", "type", "param", "code"}
        assert [(r.rule, r.body) for r in fake.rejected] == [(rule, body_of(protocol, broken))]
        status, answer = post(fake, body_of(protocol, mended))
        assert status == 200, answer  # the rejected request did not use the reply
        assert len(fake.rejected) == 1


def test_every_rule_is_tested_on_every_protocol_it_covers_and_documented() -> None:
    covered = {(rule, protocol) for rule, protocol, _, _ in CASES}
    assert covered == {(rule.name, p) for rule in RULES for p in rule.protocols}
    doc = fakeproviders.__doc__ or ""
    assert all(f"`{rule.name}`" in doc for rule in RULES)


def test_strict_schema_errors_say_where_as_openai_does() -> None:
    with FakeProvider("chat", [], validate=True) as fake:
        _, answer = post(fake, body_of("chat", chat_tool(OPTIONAL_IN_DEFS)))
    assert answer["error"]["message"] == (
        "strict_schema: Invalid schema for function 'final_result': In context=('$defs', "
        "'Claim'), 'required' is required to be supplied and to be an array including every "
        "key in properties. Missing 'window'."
    )
    assert answer["error"]["code"] == "invalid_function_parameters"


def test_validation_is_off_unless_asked() -> None:
    for rule, protocol, broken, _ in CASES:
        with FakeProvider(protocol, [Reply.text("accepted")]) as fake:
            status, _ = post(fake, body_of(protocol, broken))
        assert status == 200, rule
        assert fake.rejected == []
