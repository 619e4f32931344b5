"""The validating fake servers' rules: what the real APIs reject with a 400.

`FakeProvider(validate=True)` (`fakeproviders.py`) checks every scripted request against
`RULES` and answers the first one it breaks with a 400 in the provider's own error shape,
whose message starts with the rule's name. Each rule names the protocols it applies to and
says, in the provider's words, why a request breaks it (None when it keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Protocol = Literal["chat", "responses", "anthropic"]


def dig(body: Any, *keys: str) -> Any:
    """`body[k1][k2]...`, or None where a level is missing or not an object."""
    for key in keys:
        body = body.get(key) if isinstance(body, dict) else None
    return body


def tool_names(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        # Chat nests the name under "function"; Responses and Anthropic do not.
        spec = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            names.append(spec["name"])
    return names


def response_format(protocol: Protocol, body: dict[str, Any]) -> Any:
    """The structured response format the request asks for, where its protocol puts it."""
    if protocol == "chat":
        return body.get("response_format")
    if protocol == "responses":
        return dig(body, "text", "format")
    return dig(body, "output_config", "format")


@dataclass(frozen=True)
class Rule:
    """Something a real API rejects with a 400. `check` says why a request breaks it, in
    the provider's words, or None when the request keeps it; `code` is OpenAI's error code."""

    name: str
    protocols: tuple[Protocol, ...]
    check: Callable[[Protocol, dict[str, Any]], str | None]
    code: str | None = None


def _strict_problem(schema: Any, every_required: bool, context: tuple[str, ...] = ()) -> str | None:
    """The first place in `schema` that strict mode rejects, as OpenAI words it, or None.

    Every object schema needs `additionalProperties: false` and (OpenAI) every property in
    `required`; sub-schemas are looked for under every key that holds them."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            if found := _strict_problem(item, every_required, (*context, str(i))):
                return found
        return None
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return (
                f"In context={context}, 'additionalProperties' is required to be supplied "
                "and to be false."
            )
        listed = schema.get("required") or []
        missing = [key for key in schema.get("properties") or {} if key not in listed]
        if every_required and missing:
            return (
                f"In context={context}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
    for key in ("properties", "$defs", "definitions"):
        for name, sub in (schema.get(key) or {}).items():
            if found := _strict_problem(sub, every_required, (*context, key, name)):
                return found
    for key in ("items", "prefixItems", "anyOf", "allOf", "oneOf", "not"):
        if found := _strict_problem(schema.get(key), every_required, (*context, key)):
            return found
    return None


def _strict_schemas(protocol: Protocol, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """The schemas the request asks to be kept strictly, each named as the error names it."""
    found: list[tuple[str, Any]] = []
    for tool in body.get("tools") or []:
        spec = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(spec, dict) and spec.get("strict") is True:
            schema = spec.get("input_schema" if protocol == "anthropic" else "parameters")
            found.append((f"function '{spec.get('name')}'", schema))
    fmt = response_format(protocol, body)
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema", fmt) if protocol == "chat" else fmt
        # Anthropic always decodes an output format strictly; OpenAI only when told to.
        if protocol == "anthropic" or (isinstance(spec, dict) and spec.get("strict") is True):
            found.append((f"response_format '{spec.get('name', '')}'", spec.get("schema")))
    return found


def _check_strict_schema(protocol: Protocol, body: dict[str, Any]) -> str | None:
    for what, schema in _strict_schemas(protocol, body):
        if problem := _strict_problem(schema, every_required=protocol != "anthropic"):
            return f"Invalid schema for {what}: {problem}"
    return None


_O_SERIES = re.compile(r"o[134](?:-|$)")
_GPT5 = re.compile(r"gpt-5(?:\.(\d+))?")


def _openai_reasons(protocol: Protocol, body: dict[str, Any]) -> bool:
    """Whether the OpenAI model reasons on this request (so it takes no sampling settings)."""
    model = str(body.get("model", "")).lower()
    if _O_SERIES.match(model):
        return True
    version = _GPT5.match(model)
    if version is None or model.startswith("gpt-5-chat"):
        return False  # not a reasoning model; gpt-5-chat-latest does not reason
    effort = (
        body.get("reasoning_effort") if protocol == "chat" else dig(body, "reasoning", "effort")
    )
    minor = int(version.group(1) or 0)
    mainline = not any(variant in model for variant in ("-chat", "-pro", "-codex"))
    if minor >= 1 and mainline and effort == "none":
        return False
    # GPT-5.1 to 5.4 reason only when asked: their default effort is `none`.
    return not (1 <= minor <= 4 and mainline and effort is None)


def _check_sampling(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if not _openai_reasons(protocol, body):
        return None
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if value is not None and value != 1:
            return (
                f"Unsupported value: '{name}' does not support {value} with this model. Only "
                "the default (1) value is supported."
            )
    return None


def _check_max_tokens(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if "max_tokens" in body and _openai_reasons(protocol, body):
        return (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead."
        )
    return None


def _check_anthropic_max_tokens(protocol: Protocol, body: dict[str, Any]) -> str | None:
    return None if "max_tokens" in body else "max_tokens: Field required"


# Claude models that think when a request does not say (Anthropic's model guides).
_THINKS_BY_DEFAULT = (
    "claude-fable-5",
    "claude-mythos-5",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-haiku-5-5",
)


def _thinks(body: dict[str, Any]) -> bool:
    kind = dig(body, "thinking", "type")
    if kind is None:
        return str(body.get("model", "")).startswith(_THINKS_BY_DEFAULT)
    return kind in ("enabled", "adaptive")


def _check_forced_tool_with_thinking(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if dig(body, "tool_choice", "type") in ("any", "tool") and _thinks(body):
        return "Thinking may not be enabled when tool_choice forces tool use."
    return None


def _check_temperature_with_thinking(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if body.get("temperature") not in (None, 1) and _thinks(body):
        return "`temperature` may only be set to 1 when thinking is enabled."
    return None


def _tool_choice(protocol: Protocol, body: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the request's `tool_choice` forces a tool call, and the tool it names."""
    choice = body.get("tool_choice")
    if protocol == "anthropic":
        kind = dig(choice, "type")
        return kind in ("any", "tool"), dig(choice, "name") if kind == "tool" else None
    if choice == "required":
        return True, None
    if dig(choice, "type") == "function":
        named = dig(choice, "function", "name") if protocol == "chat" else dig(choice, "name")
        return True, named
    return False, None


def _check_named_tool(protocol: Protocol, body: dict[str, Any]) -> str | None:
    _, named = _tool_choice(protocol, body)
    offered = tool_names(body)
    if named is not None and offered and named not in offered:
        return f"Invalid value for 'tool_choice': no tool named '{named}' is in 'tools'."
    return None


def _check_forced_without_tools(protocol: Protocol, body: dict[str, Any]) -> str | None:
    forced, _ = _tool_choice(protocol, body)
    if forced and not body.get("tools"):
        return (
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified."
        )
    return None


def search_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's `search_result` blocks in the order Anthropic counts them for a
    citation's `search_result_index`: across messages, top-level and in tool results."""
    found: list[dict[str, Any]] = []

    def walk(content: Any) -> None:
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "search_result":
                found.append(block)
            elif block.get("type") == "tool_result":
                walk(block.get("content"))

    for message in body.get("messages") or []:
        if isinstance(message, dict):
            walk(message.get("content"))
    return found


def _check_search_results(protocol: Protocol, body: dict[str, Any]) -> str | None:
    for i, result in enumerate(search_results(body)):
        where = f"search_result {i}"
        for name in ("source", "title"):
            if not isinstance(result.get(name), str):
                return f"{where}: {name}: Field required"
        content = result.get("content")
        if not isinstance(content, list) or not content:
            return f"{where}: content: must hold at least one text block"
        for block in content:
            text = dig(block, "text")
            if dig(block, "type") != "text" or not isinstance(text, str) or not text.strip():
                return f"{where}: content: text content blocks must be non-empty"
        enabled = dig(result, "citations", "enabled")
        if enabled not in (None, True, False):
            return f"{where}: citations.enabled: Input should be a valid boolean"
    return None


def _cites(body: dict[str, Any]) -> set[bool]:
    return {dig(r, "citations", "enabled") is True for r in search_results(body)}


def _check_citations_all_or_none(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if len(_cites(body)) > 1:
        return (
            "Mixed citation settings are not allowed: citations must be enabled for all "
            "search results or for none."
        )
    return None


def _check_citations_with_output_format(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if True in _cites(body) and dig(body, "output_config", "format") is not None:
        return "Citations are not supported together with a structured output format."
    return None


_ALL: tuple[Protocol, ...] = ("chat", "responses", "anthropic")
RULES: tuple[Rule, ...] = (
    Rule("strict_schema", _ALL, _check_strict_schema, "invalid_function_parameters"),
    Rule("no_sampling_when_reasoning", ("chat", "responses"), _check_sampling, "unsupported_value"),
    Rule(
        "max_completion_tokens_when_reasoning",
        ("chat",),
        _check_max_tokens,
        "unsupported_parameter",
    ),
    Rule("max_tokens_required", ("anthropic",), _check_anthropic_max_tokens),
    Rule("no_forced_tool_when_thinking", ("anthropic",), _check_forced_tool_with_thinking),
    Rule("temperature_1_when_thinking", ("anthropic",), _check_temperature_with_thinking),
    Rule("tool_choice_names_an_offered_tool", _ALL, _check_named_tool, "invalid_value"),
    Rule("tool_choice_needs_tools", _ALL, _check_forced_without_tools, "invalid_value"),
    Rule("search_result_shape", ("anthropic",), _check_search_results),
    Rule("citations_all_or_none", ("anthropic",), _check_citations_all_or_none),
    Rule("no_citations_with_output_format", ("anthropic",), _check_citations_with_output_format),
)
"""What a validating `FakeProvider` rejects, checked in this order (the first broken one is
the one reported)."""


def broken_rule(protocol: Protocol, body: dict[str, Any]) -> tuple[Rule, str] | None:
    for rule in RULES:
        if protocol in rule.protocols and (why := rule.check(protocol, body)) is not None:
            return rule, why
    return None
