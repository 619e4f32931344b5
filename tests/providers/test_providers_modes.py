"""Each kind of self-hosted server gets the output mode it honours, and each mode is sent the
way the OpenAI Chat Completions API writes it.

A desk's three roles talk to a local Chat Completions server under every server kind
(`ollama:`, `vllm:`, `llamacpp:`, `openai-compatible:`) and every setting of
`EVIDENCE_DESK_MODEL_OUTPUT_MODE`. Each request is read as the server would read it: what
it offers (one output tool, a JSON-schema response format, or neither), how it forces the
tool (`"required"`, or by name for llama.cpp, whose function-calling format crashes on
`"required"`), which field carries the output cap, and what the instructions' last line
tells the model to do. A faithful scripted model answers in the same mode, and the run is
published: every mode reaches the same gate. The server validates every request
(`FakeProvider(validate=True)`) and rejects none.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import DeskFactory
from scripts import Model, system_text, tool_names

from evidence_desk.agents.prompts import OUTPUT_RULES, PROMPTED_TEMPLATE
from evidence_desk.testing.fakeproviders import FakeProvider, Reply
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"
TOOLS = {"plan": "submit_plan", "answer": "submit_answer", "audit": "submit_audit"}
KINDS = {  # kind → (model name, the mode `auto` picks)
    "ollama": ("llama3.1:8b", "native"),
    "vllm": ("Qwen/Qwen2.5-7B-Instruct", "tool"),
    "llamacpp": ("smollm2", "tool"),
    "openai-compatible": ("local-model", "prompted"),
}
PROMPTED_LAST = PROMPTED_TEMPLATE.rsplit("\n", 1)[-1]


def run(make_desk: DeskFactory, kind: str, mode: str) -> tuple[Receipt, list[tuple[str, Any]]]:
    model = Model("chat")
    name, _ = KINDS[kind]
    with FakeProvider("chat", model, models=(name,), validate=True) as fake:
        desk = make_desk("chat", "", model=f"{kind}:{name}@{fake.base_url}", model_output_mode=mode)
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    # What the real APIs reject (a strict schema that is not, a forced choice naming no
    # offered tool, ...) the validating fake rejects: nothing the desk sent was.
    assert [(r.rule, r.message) for r in fake.rejected] == []
    return receipt, model.seen


def expect_tool(body: dict[str, Any], role: str, kind: str) -> None:
    tool = TOOLS[role]
    assert tool_names("chat", body) == [tool]
    assert "response_format" not in body
    if kind == "llamacpp":
        assert body["tool_choice"] == {"type": "function", "function": {"name": tool}}
    else:
        assert body["tool_choice"] == "required"


def expect_native(body: dict[str, Any], role: str) -> None:
    assert "tools" not in body and "tool_choice" not in body
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == TOOLS[role]
    assert set(fmt["json_schema"]["schema"]["properties"]) >= {"claims"} or role != "answer"


def expect_prompted(body: dict[str, Any], kind: str) -> None:
    assert "tools" not in body and "tool_choice" not in body
    if kind == "openai-compatible":
        assert "response_format" not in body  # a server of unknown kind may not know it
    else:
        assert body["response_format"] == {"type": "json_object"}
    system = system_text("chat", body)
    assert "The JSON schema of your result:\n{" in system
    assert system.rstrip().endswith(PROMPTED_LAST)


@pytest.mark.parametrize("mode", ["auto", "tool", "native", "prompted"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_each_server_kind_asks_in_its_mode_and_publishes(
    make_desk: DeskFactory, kind: str, mode: str
) -> None:
    receipt, seen = run(make_desk, kind, mode)
    effective = KINDS[kind][1] if mode == "auto" else mode
    assert [role for role, _ in seen] == ["plan", "answer", "audit"]
    assert receipt.decision is Decision.AUTO_CLEARED, receipt.reason
    for role, body in seen:
        # Ollama and llama.cpp ignore `max_completion_tokens`; every such server reads this.
        assert body["max_tokens"] == 2048 and "max_completion_tokens" not in body
        system = system_text("chat", body)
        if effective == "tool":
            expect_tool(body, role, kind)
        elif effective == "native":
            expect_native(body, role)
        else:
            expect_prompted(body, kind)
        # The hierarchy ends on how the result is returned in this mode, and on nothing
        # else: a model told to call a tool it was not offered would answer in prose.
        rule = OUTPUT_RULES[effective].rsplit("\n", 1)[-1]
        assert rule in system
        if "The JSON schema of your result:" in system:  # prompted, or a profile's wish
            assert effective != "tool" and system.rstrip().endswith(PROMPTED_LAST)
        else:
            assert effective != "prompted" and system.endswith(rule)
        assert ("output tool" in system) == (effective == "tool")


def test_an_unknown_output_mode_is_one_sentence(make_desk: DeskFactory) -> None:
    with pytest.raises(ValueError, match="Input should be 'auto', 'tool', 'native' or 'prompted'"):
        make_desk("chat", "", model="vllm:m@http://127.0.0.1:9/v1", model_output_mode="json")


def test_llamacpp_gets_a_string_content_when_a_tool_call_goes_back(
    make_desk: DeskFactory,
) -> None:
    """llama-cpp-python's server answers an assistant message with `content: null` (how a
    tool call goes back with a retry) with an HTTP 500; the `llamacpp:` kind sends ""."""
    for kind, expected in (("llamacpp", ""), ("vllm", None)):
        model = Model("chat", {"plan": [Reply.raw_arguments('{"kind": "factoid", "subq')]})
        name, _ = KINDS[kind]
        with FakeProvider("chat", model, models=(name,)) as fake:
            make_desk("chat", "", model=f"{kind}:{name}@{fake.base_url}").ask(QUESTION)
        retry = [body for role, body in model.seen if role == "plan"][1]
        sent_back = [m for m in retry["messages"] if m["role"] == "assistant"]
        assert len(sent_back) == 1 and sent_back[0]["tool_calls"]
        assert sent_back[0]["content"] == expected, kind


def test_a_reply_whose_tokens_reach_the_cap_is_cut_off_whatever_it_says(
    make_desk: DeskFactory,
) -> None:
    """llama-cpp-python reports `finish_reason: "tool_calls"` for a call its cap cut short:
    output tokens that reach the cap end the try with that reason, and it is not sent back."""
    model = Model("chat", {"plan": [Reply.raw_arguments('{"kind": "fac', usage=(900, 2048))]})
    with FakeProvider("chat", model, models=("smollm2",)) as fake:
        desk = make_desk("chat", "", model=f"llamacpp:smollm2@{fake.base_url}")
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    assert model.calls("plan") == 1
    assert receipt.decision is Decision.HELD_FOR_REVIEW
    assert "used its whole output cap of 2048 tokens" in receipt.reason
