"""The fake provider servers speak each protocol well enough for the official SDKs and
Pydantic AI to parse their answers, errors and timeouts the way they parse the real services'."""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from typing import Any

import anthropic
import openai
import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, AgentRunResult, NativeOutput, PromptedOutput
from pydantic_ai.exceptions import ModelRequestRejectedError
from pydantic_ai.models import override_allow_model_requests
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from evidence_desk.testing.fakebodies import Cite, CitedText
from evidence_desk.testing.fakeproviders import Captured, FakeProvider, Protocol, Reply

PROTOCOLS: tuple[Protocol, ...] = ("chat", "responses", "anthropic")
QUESTION = [{"role": "user", "content": "Which claims does the source make?"}]
CLAIMS_SCHEMA = {
    "type": "object",
    "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
    "required": ["claims"],
}
ARGS = {"claims": ["The sky is blue.", "Water is wet."]}
CHAT_TOOLS = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "final_result", "parameters": CLAIMS_SCHEMA}},
]
RESPONSES_TOOLS = [
    {"type": "function", "name": "final_result", "parameters": CLAIMS_SCHEMA, "strict": False}
]
ANTHROPIC_TOOLS = [{"name": "final_result", "input_schema": CLAIMS_SCHEMA}]


class Claims(BaseModel):
    claims: list[str]


def openai_client(fake: FakeProvider, timeout: float = 10) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.base_url, api_key="test", max_retries=0, timeout=timeout)


def anthropic_client(fake: FakeProvider, timeout: float = 10) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=fake.base_url, api_key="test", max_retries=0, timeout=timeout
    )


def ask_chat(client: openai.OpenAI, **extra: Any) -> Any:
    return client.chat.completions.create(model="gpt-test", messages=QUESTION, **extra)


def ask_anthropic(client: anthropic.Anthropic, **extra: Any) -> Any:
    return client.messages.create(model="claude-test", max_tokens=256, messages=QUESTION, **extra)


def raw_post(url: str, body: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


# chat


def test_chat_output_reply_calls_the_output_tool_with_the_scripted_arguments() -> None:
    with FakeProvider("chat", [Reply.output(ARGS)]) as fake:
        completion = ask_chat(openai_client(fake), tools=CHAT_TOOLS)
    choice = completion.choices[0]
    assert completion.object == "chat.completion"
    assert completion.model == "gpt-test"
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.type == "function"
    assert call.function.name == "final_result"
    assert json.loads(call.function.arguments) == ARGS


def test_output_reply_falls_back_to_the_first_tool_without_a_final_result_tool() -> None:
    tools = [{"type": "function", "function": {"name": "answer", "parameters": CLAIMS_SCHEMA}}]
    with FakeProvider("chat", [Reply.output(ARGS)]) as fake:
        completion = ask_chat(openai_client(fake), tools=tools)
    assert completion.choices[0].message.tool_calls[0].function.name == "answer"


def test_output_reply_to_a_request_without_tools_is_the_json_text() -> None:
    with FakeProvider("chat", [Reply.output(ARGS), Reply.truncated(ARGS)]) as fake:
        client = openai_client(fake)
        whole, cut = ask_chat(client).choices[0], ask_chat(client).choices[0]
    assert (whole.finish_reason, whole.message.tool_calls) == ("stop", None)
    assert json.loads(whole.message.content) == ARGS
    assert cut.finish_reason == "length"
    assert cut.message.content == json.dumps(ARGS)[: len(json.dumps(ARGS)) // 2]


def test_output_reply_to_tools_and_a_json_schema_format_is_the_json_text() -> None:
    """`NativeOutput` beside function tools: the output is the text, not a tool call."""
    fmt = {"type": "json_schema", "json_schema": {"name": "Claims", "schema": CLAIMS_SCHEMA}}
    with FakeProvider("chat", [Reply.output(ARGS)]) as fake:
        choice = ask_chat(openai_client(fake), tools=CHAT_TOOLS, response_format=fmt).choices[0]
    assert choice.message.tool_calls is None
    assert json.loads(choice.message.content) == ARGS


def test_several_calls_need_a_request_that_offers_a_tool() -> None:
    with (
        FakeProvider("chat", [Reply.several(Reply.output(ARGS))]) as fake,
        pytest.raises(openai.InternalServerError, match="offers a tool"),
    ):
        ask_chat(openai_client(fake))


def test_chat_tool_call_names_any_tool_and_raw_arguments_pass_verbatim() -> None:
    script = [Reply.tool_call("delete_everything", {"now": True}), Reply.raw_arguments("{'c': [")]
    with FakeProvider("chat", script) as fake:
        client = openai_client(fake)
        unoffered = ask_chat(client, tools=CHAT_TOOLS).choices[0].message.tool_calls[0]
        malformed = ask_chat(client, tools=CHAT_TOOLS).choices[0].message.tool_calls[0]
    assert unoffered.function.name == "delete_everything"
    assert json.loads(unoffered.function.arguments) == {"now": True}
    assert malformed.function.name == "final_result"
    assert malformed.function.arguments == "{'c': ["


def test_chat_text_reply_and_default_usage() -> None:
    with FakeProvider("chat", [Reply.text("{'claims': [")]) as fake:
        raw = openai_client(fake).chat.completions.with_raw_response.create(
            model="gpt-test", messages=QUESTION
        )
    completion = raw.parse()
    assert completion.choices[0].message.content == "{'claims': ["
    assert completion.choices[0].message.tool_calls is None
    assert completion.choices[0].finish_reason == "stop"
    sent = raw.http_request.content
    assert completion.usage.prompt_tokens == math.ceil(len(sent) / 4)
    assert completion.usage.completion_tokens == math.ceil(len("{'claims': [") / 4)
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


def test_chat_usage_override_and_captured_request() -> None:
    with FakeProvider("chat", [Reply.output(ARGS, usage=(120, 30))]) as fake:
        completion = ask_chat(openai_client(fake), tools=CHAT_TOOLS, temperature=0)
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (120, 30, 150)
    (captured,) = fake.requests
    assert isinstance(captured, Captured)
    assert (captured.method, captured.path) == ("POST", "/v1/chat/completions")
    assert captured.headers["authorization"] == "Bearer test"
    assert captured.body == {
        "model": "gpt-test",
        "messages": QUESTION,
        "tools": CHAT_TOOLS,
        "temperature": 0,
    }


def test_a_failing_callable_script_is_a_server_error() -> None:
    def script(body: dict[str, Any], index: int) -> Reply:
        raise LookupError("no reply for this body")

    with (
        FakeProvider("chat", script) as fake,
        pytest.raises(openai.InternalServerError, match="no reply for this body"),
    ):
        ask_chat(openai_client(fake))


def test_callable_script_sees_each_body_and_its_index() -> None:
    seen: list[tuple[str, int]] = []

    def script(body: dict[str, Any], index: int) -> Reply:
        seen.append((body["messages"][-1]["content"], index))
        return Reply.text(f"answer {index}")

    with FakeProvider("chat", script) as fake:
        client = openai_client(fake)
        texts = [
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": word}])
            .choices[0]
            .message.content
            for word in ("one", "two")
        ]
    assert texts == ["answer 0", "answer 1"]
    assert seen == [("one", 0), ("two", 1)]


# responses


def test_responses_output_reply_is_a_function_call_item() -> None:
    with FakeProvider("responses", [Reply.output(ARGS, usage=(40, 9))]) as fake:
        response = openai_client(fake).responses.create(
            model="gpt-test", input="q", tools=RESPONSES_TOOLS
        )
    assert response.object == "response"
    assert response.status == "completed"
    assert response.model == "gpt-test"
    (item,) = response.output
    assert item.type == "function_call"
    assert item.name == "final_result"
    assert item.call_id.startswith("call_")
    assert item.call_id != item.id
    assert json.loads(item.arguments) == ARGS
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 9)
    assert response.usage.total_tokens == 49
    assert response.usage.input_tokens_details.cached_tokens == 0
    assert response.usage.output_tokens_details.reasoning_tokens == 0
    assert fake.requests[0].path == "/v1/responses"
    assert fake.requests[0].body == {"model": "gpt-test", "input": "q", "tools": RESPONSES_TOOLS}


def test_responses_text_and_raw_arguments() -> None:
    script = [Reply.text("no tool today"), Reply.raw_arguments('{"claims": [1,')]
    with FakeProvider("responses", script) as fake:
        client = openai_client(fake)
        text = client.responses.create(model="m", input="q")
        raw = client.responses.create(model="m", input="q", tools=RESPONSES_TOOLS)
    assert text.output_text == "no tool today"
    assert text.output[0].type == "message"
    assert text.usage.output_tokens == math.ceil(len("no tool today") / 4)
    assert raw.output[0].type == "function_call"
    assert raw.output[0].arguments == '{"claims": [1,'


# anthropic


def test_anthropic_output_reply_is_a_tool_use_block() -> None:
    with FakeProvider("anthropic", [Reply.output(ARGS, usage=(77, 5))]) as fake:
        message = ask_anthropic(anthropic_client(fake), tools=ANTHROPIC_TOOLS)
    assert message.type == "message"
    assert message.role == "assistant"
    assert message.model == "claude-test"
    assert message.stop_reason == "tool_use"
    (block,) = message.content
    assert block.type == "tool_use"
    assert block.name == "final_result"
    assert block.input == ARGS
    assert (message.usage.input_tokens, message.usage.output_tokens) == (77, 5)
    (captured,) = fake.requests
    assert captured.path == "/v1/messages"
    assert captured.body == {
        "model": "claude-test",
        "max_tokens": 256,
        "messages": QUESTION,
        "tools": ANTHROPIC_TOOLS,
    }


def test_anthropic_text_and_raw_arguments_are_text_blocks() -> None:
    script = [Reply.text("plain"), Reply.raw_arguments("{'claims': [")]
    with FakeProvider("anthropic", script) as fake:
        client = anthropic_client(fake)
        text = ask_anthropic(client)
        raw = ask_anthropic(client)
    assert text.stop_reason == "end_turn"
    assert [(b.type, b.text) for b in text.content] == [("text", "plain")]
    assert text.usage.output_tokens == math.ceil(len("plain") / 4)
    assert [(b.type, b.text) for b in raw.content] == [("text", "{'claims': [")]
    assert "tools" not in fake.requests[1].body


def search_result(source: str, *texts: str) -> dict[str, Any]:
    content = [{"type": "text", "text": t} for t in texts]
    return {
        "type": "search_result",
        "source": source,
        "title": f"Title of {source}",
        "content": content,
        "citations": {"enabled": True},
    }


def test_anthropic_cited_text_blocks_cite_search_results_as_the_api_does() -> None:
    # One result at the top level, one in a tool result: `search_result_index` counts both.
    first = search_result("S1", "The sky is blue.", "It is blue by day.")
    second = search_result("S2", "Water is wet.", "Rain is water.")
    messages = [
        {"role": "user", "content": [first, {"type": "text", "text": "What is blue?"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [second]}],
        },
    ]
    reply = Reply.cited_text(
        "Here: ",
        CitedText("The sky is blue by day.", (Cite(0, 0, 2),)),
        CitedText("Rain is wet.", (Cite(1, 1, 2), Cite(1, 0, 1, cited_text="Fire is wet."))),
    )
    with FakeProvider("anthropic", [reply], validate=True) as fake:
        message = anthropic_client(fake).messages.create(
            model="claude-test", max_tokens=256, messages=messages
        )
    assert fake.rejected == [] and message.stop_reason == "end_turn"
    plain, sky, rain = message.content
    assert plain.type == "text" and plain.text == "Here: " and not plain.citations
    [cited] = sky.citations or []
    assert cited.model_dump() == {
        "type": "search_result_location",
        "cited_text": "The sky is blue.It is blue by day.",
        "search_result_index": 0,
        "source": "S1",
        "title": "Title of S1",
        "start_block_index": 0,
        "end_block_index": 2,
    }
    held, lied = rain.citations or []
    assert (held.search_result_index, held.source, held.cited_text) == (1, "S2", "Rain is water.")
    assert lied.cited_text == "Fire is wet." and lied.start_block_index == 0


def test_a_cited_reply_needs_the_search_result_it_cites() -> None:
    reply = Reply.cited_text(CitedText("The sky is blue.", (Cite(3),)))
    with (
        FakeProvider("anthropic", [reply]) as fake,
        pytest.raises(anthropic.InternalServerError, match="no search result 3"),
    ):
        ask_anthropic(anthropic_client(fake))


# several tool calls, object arguments


def several() -> Reply:
    return Reply.several(Reply.tool_call("lookup", {"q": "sky"}), Reply.output(ARGS))


def test_chat_several_tool_calls_in_one_turn_keep_their_order() -> None:
    with FakeProvider("chat", [several()]) as fake:
        choice = ask_chat(openai_client(fake), tools=CHAT_TOOLS).choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("lookup", {"q": "sky"}),
        ("final_result", ARGS),
    ]
    assert len({c.id for c in calls}) == 2


def test_responses_several_tool_calls_are_function_call_items() -> None:
    with FakeProvider("responses", [several()]) as fake:
        tools = [{"type": "function", "name": "lookup", "parameters": {}}, *RESPONSES_TOOLS]
        response = openai_client(fake).responses.create(model="m", input="q", tools=tools)
    assert [(i.type, i.name, json.loads(i.arguments)) for i in response.output] == [
        ("function_call", "lookup", {"q": "sky"}),
        ("function_call", "final_result", ARGS),
    ]
    assert len({i.call_id for i in response.output}) == 2


def test_anthropic_several_tool_calls_are_tool_use_blocks() -> None:
    with FakeProvider("anthropic", [several(), Reply.several(Reply.raw_arguments("{"))]) as fake:
        client = anthropic_client(fake)
        message = ask_anthropic(client, tools=ANTHROPIC_TOOLS)
        with pytest.raises(anthropic.InternalServerError, match="must be an object"):
            ask_anthropic(client, tools=ANTHROPIC_TOOLS)
    assert message.stop_reason == "tool_use"
    assert [(b.type, b.name, b.input) for b in message.content] == [
        ("tool_use", "lookup", {"q": "sky"}),
        ("tool_use", "final_result", ARGS),
    ]


def test_several_takes_only_tool_calls() -> None:
    with pytest.raises(ValueError, match="takes tool calls"):
        Reply.several(Reply.text("no"))


def test_chat_object_arguments_are_a_json_object_on_the_wire() -> None:
    body = json.dumps({"model": "m", "messages": QUESTION, "tools": CHAT_TOOLS}).encode()
    with FakeProvider("chat", [Reply.output(ARGS, object_arguments=True)]) as fake:
        status, _, answer = raw_post(fake.base_url + "/chat/completions", body)
    assert status == 200
    [call] = answer["choices"][0]["message"]["tool_calls"]
    assert call["function"] == {"name": "final_result", "arguments": ARGS}


def test_object_arguments_are_only_a_chat_variant() -> None:
    script = [Reply.output(ARGS, object_arguments=True)]
    with (
        FakeProvider("responses", script) as fake,
        pytest.raises(openai.InternalServerError, match="Chat Completions variant"),
    ):
        openai_client(fake).responses.create(model="m", input="q", tools=RESPONSES_TOOLS)


def test_requests_record_when_they_arrived() -> None:
    with FakeProvider("chat", [Reply.text("a"), Reply.text("b")]) as fake:
        before = time.monotonic()
        ask_chat(openai_client(fake))
        ask_chat(openai_client(fake))
    first, second = fake.requests
    assert before <= first.at <= second.at <= time.monotonic()


# errors, exhaustion, timeouts


def test_openai_rate_limit_error_carries_retry_after() -> None:
    script = [Reply.error(429, "slow down", headers={"retry-after": "0"})]
    with FakeProvider("chat", script) as fake, pytest.raises(openai.RateLimitError) as caught:
        ask_chat(openai_client(fake))
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "0"
    assert caught.value.body == {
        "message": "slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }


@pytest.mark.parametrize("protocol", ["chat", "responses"])
def test_openai_server_error_and_script_exhaustion(protocol: Protocol) -> None:
    with FakeProvider(protocol, [Reply.error(500, "boom")]) as fake:
        client = openai_client(fake)
        for expected in ("boom", "script exhausted"):
            with pytest.raises(openai.InternalServerError) as caught:
                if protocol == "chat":
                    ask_chat(client)
                else:
                    client.responses.create(model="m", input="q")
            assert caught.value.status_code == 500
            assert caught.value.body["message"] == expected
            assert caught.value.body["type"] == "server_error"
    assert len(fake.requests) == 2


@pytest.mark.parametrize(
    ("status", "error_class", "error_type"),
    [
        (400, anthropic.BadRequestError, "invalid_request_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (404, anthropic.NotFoundError, "not_found_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
def test_anthropic_errors_use_the_typed_sdk_errors(
    status: int, error_class: type[anthropic.APIStatusError], error_type: str
) -> None:
    script = [Reply.error(status, "nope", headers={"retry-after": "0"})]
    with FakeProvider("anthropic", script) as fake, pytest.raises(error_class) as caught:
        ask_anthropic(anthropic_client(fake))
    assert isinstance(caught.value, anthropic.APIStatusError)
    assert caught.value.status_code == status
    assert caught.value.type == error_type
    assert caught.value.api_message == "nope"
    assert caught.value.response.headers["retry-after"] == "0"


def test_anthropic_script_exhaustion_is_a_server_error() -> None:
    with (
        FakeProvider("anthropic", []) as fake,
        pytest.raises(anthropic.InternalServerError) as caught,
    ):
        ask_anthropic(anthropic_client(fake))
    assert caught.value.api_message == "script exhausted"


def test_hang_past_the_client_timeout_raises_timeout_and_the_server_keeps_serving(
    capfd: pytest.CaptureFixture[str],
) -> None:
    script = [Reply.hang(5), Reply.text("after")]
    started = time.monotonic()
    with FakeProvider("chat", script) as fake:
        with pytest.raises(openai.APITimeoutError):
            ask_chat(openai_client(fake, timeout=0.3))
        assert ask_chat(openai_client(fake)).choices[0].message.content == "after"
    assert time.monotonic() - started < 3
    assert capfd.readouterr().err == ""


def test_anthropic_hang_raises_timeout() -> None:
    with (
        FakeProvider("anthropic", [Reply.hang(5)]) as fake,
        pytest.raises(anthropic.APITimeoutError),
    ):
        ask_anthropic(anthropic_client(fake, timeout=0.3))


def test_short_hang_answers_then_or_a_server_error() -> None:
    script = [Reply.hang(0.05, then=Reply.text("late")), Reply.hang(0.05)]
    with FakeProvider("chat", script) as fake:
        client = openai_client(fake)
        assert ask_chat(client).choices[0].message.content == "late"
        with pytest.raises(openai.InternalServerError):
            ask_chat(client)


def test_streaming_requests_are_refused_without_using_the_script() -> None:
    with FakeProvider("anthropic", [Reply.text("kept")]) as fake:
        client = anthropic_client(fake)
        with pytest.raises(anthropic.BadRequestError, match="Streaming"):
            ask_anthropic(client, stream=True)
        assert ask_anthropic(client).content[0].text == "kept"
    assert fake.requests[0].body["stream"] is True


@pytest.mark.parametrize(
    ("protocol", "path", "error"),
    [
        ("chat", "/v1/responses", {"error"}),
        ("responses", "/v1/chat/completions", {"error"}),
        ("anthropic", "/v1/chat/completions", {"type", "error", "request_id"}),
    ],
)
def test_unknown_paths_are_404_in_the_protocol_shape(
    protocol: Protocol, path: str, error: set[str]
) -> None:
    with FakeProvider(protocol, [Reply.text("unused")]) as fake:
        root = fake.base_url.removesuffix("/v1")
        status, headers, body = raw_post(root + path, b'{"model": "m"}')
        assert fake.requests[-1].path == path
    assert status == 404
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(json.dumps(body))
    assert set(body) == error
    assert path in body["error"]["message"]


def test_models_list_for_openai_and_anthropic() -> None:
    with FakeProvider("chat", [], models=["gpt-a", "gpt-b"]) as fake:
        openai_ids = [model.id for model in openai_client(fake).models.list()]
        assert fake.requests[0].method == "GET"
        assert fake.requests[0].path == "/v1/models"
    with FakeProvider("anthropic", [], models=["claude-a"]) as fake:
        page = anthropic_client(fake).models.list()
        assert fake.requests[0].path.startswith("/v1/models")
    assert openai_ids == ["gpt-a", "gpt-b"]
    assert [model.id for model in page.data] == ["claude-a"]
    assert page.data[0].display_name == "claude-a"
    assert page.has_more is False


# Pydantic AI, one run per protocol. The suite forbids model requests; these go to local servers.


def run(agent: Agent[None, Claims]) -> AgentRunResult[Claims]:
    with override_allow_model_requests(True):
        return agent.run_sync("q")


def test_pydantic_ai_chat_model_parses_the_output() -> None:
    with FakeProvider("chat", [Reply.output(ARGS, usage=(321, 12))]) as fake:
        provider = OpenAIProvider(base_url=fake.base_url, api_key="test")
        agent = Agent(OpenAIChatModel("gpt-test", provider=provider), output_type=Claims)
        result = run(agent)
    assert result.output == Claims(**ARGS)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (321, 12)
    assert fake.requests[0].body["model"] == "gpt-test"


def test_pydantic_ai_responses_model_parses_the_output() -> None:
    with FakeProvider("responses", [Reply.output(ARGS, usage=(222, 11))]) as fake:
        provider = OpenAIProvider(base_url=fake.base_url, api_key="test")
        agent = Agent(OpenAIResponsesModel("gpt-test", provider=provider), output_type=Claims)
        result = run(agent)
    assert result.output == Claims(**ARGS)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (222, 11)
    assert fake.requests[0].path == "/v1/responses"


def test_pydantic_ai_anthropic_model_parses_the_output() -> None:
    with FakeProvider("anthropic", [Reply.output(ARGS, usage=(111, 10))]) as fake:
        provider = AnthropicProvider(base_url=fake.base_url, api_key="test")
        agent = Agent(AnthropicModel("claude-test", provider=provider), output_type=Claims)
        result = run(agent)
    assert result.output == Claims(**ARGS)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (111, 10)
    assert fake.requests[0].path.split("?")[0] == "/v1/messages"


def test_pydantic_ai_anthropic_large_output_models_need_a_small_max_tokens() -> None:
    script = [Reply.output(ARGS), Reply.output(ARGS)]
    with FakeProvider("anthropic", script) as fake:
        provider = AnthropicProvider(base_url=fake.base_url, api_key="test")
        model = AnthropicModel("claude-haiku-4-5", provider=provider)
        with pytest.raises(ModelRequestRejectedError, match="max_tokens"):
            run(Agent(model, output_type=Claims))
        agent = Agent(model, output_type=Claims, model_settings={"max_tokens": 4096})
        assert run(agent).output == Claims(**ARGS)
    assert fake.requests[0].body["stream"] is True
    assert fake.requests[1].body["stream"] is False


def provider_for(protocol: Protocol, fake: FakeProvider) -> OpenAIProvider | AnthropicProvider:
    if protocol == "anthropic":
        return AnthropicProvider(base_url=fake.base_url, api_key="test")
    return OpenAIProvider(base_url=fake.base_url, api_key="test")


def pydantic_ai_model(
    protocol: Protocol, fake: FakeProvider
) -> OpenAIChatModel | OpenAIResponsesModel | AnthropicModel:
    """A model per protocol; claude-haiku-4-5 is one Pydantic AI sends `output_config` to."""
    if protocol == "chat":
        return OpenAIChatModel("gpt-4.1-mini", provider=provider_for(protocol, fake))
    if protocol == "responses":
        return OpenAIResponsesModel("gpt-4.1-mini", provider=provider_for(protocol, fake))
    return AnthropicModel("claude-haiku-4-5", provider=provider_for(protocol, fake))


NATIVE_FORMAT = {  # where each protocol's request carries NativeOutput's JSON schema
    "chat": ("response_format", "json_schema", "schema"),
    "responses": ("text", "format", "schema"),
    "anthropic": ("output_config", "format", "schema"),
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pydantic_ai_native_output_gets_the_json_text(protocol: Protocol) -> None:
    with FakeProvider(protocol, [Reply.output(ARGS)]) as fake:
        agent = Agent(
            pydantic_ai_model(protocol, fake),
            output_type=NativeOutput(Claims),
            model_settings={"max_tokens": 1024},
        )
        result = run(agent)
    assert result.output == Claims(**ARGS)
    [request] = fake.requests
    assert "tools" not in request.body
    schema: Any = request.body
    for key in NATIVE_FORMAT[protocol]:
        schema = schema[key]
    assert schema["properties"]["claims"] == CLAIMS_SCHEMA["properties"]["claims"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pydantic_ai_prompted_output_gets_the_json_text(protocol: Protocol) -> None:
    with FakeProvider(protocol, [Reply.output(ARGS)]) as fake:
        agent = Agent(
            pydantic_ai_model(protocol, fake),
            output_type=PromptedOutput(Claims),
            model_settings={"max_tokens": 1024},
        )
        result = run(agent)
    assert result.output == Claims(**ARGS)
    [request] = fake.requests
    assert "tools" not in request.body
    assert "claims" in json.dumps(request.body)  # only the schema in the instructions says it


def test_responses_json_schema_format_is_answered_with_an_output_text_item() -> None:
    fmt = {"type": "json_schema", "name": "Claims", "schema": CLAIMS_SCHEMA, "strict": False}
    with FakeProvider("responses", [Reply.output(ARGS)]) as fake:
        response = openai_client(fake).responses.create(
            model="m", input="q", tools=RESPONSES_TOOLS, text={"format": fmt}
        )
    [item] = response.output
    assert item.type == "message"
    assert [c.type for c in item.content] == ["output_text"]
    assert json.loads(response.output_text) == ARGS


def test_anthropic_output_format_is_answered_with_a_text_block() -> None:
    fmt = {"format": {"type": "json_schema", "schema": CLAIMS_SCHEMA}}
    with FakeProvider("anthropic", [Reply.output(ARGS)]) as fake:
        message = ask_anthropic(
            anthropic_client(fake), tools=ANTHROPIC_TOOLS, extra_body={"output_config": fmt}
        )
    assert message.stop_reason == "end_turn"
    [block] = message.content
    assert block.type == "text" and json.loads(block.text) == ARGS


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pydantic_ai_reads_cache_and_reasoning_tokens(protocol: Protocol) -> None:
    reply = Reply.output(
        ARGS,
        usage=(1000, 300),
        reasoning="Two claims.",
        reasoning_tokens=120,
        cached_tokens=400,
        cache_write_tokens=100,
    )
    with FakeProvider(protocol, [reply]) as fake:
        agent = Agent(
            pydantic_ai_model(protocol, fake),
            output_type=Claims,
            model_settings={"max_tokens": 1024},
        )
        usage = run(agent).usage
    assert (usage.input_tokens, usage.output_tokens) == (1000, 300)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (400, 100)
    assert usage.output_reasoning_tokens == 120


def test_anthropic_counts_cache_tokens_beside_the_input() -> None:
    reply = Reply.output(ARGS, usage=(1000, 300), cached_tokens=400, cache_write_tokens=100)
    with FakeProvider("anthropic", [reply]) as fake:
        usage = ask_anthropic(anthropic_client(fake), tools=ANTHROPIC_TOOLS).usage
    assert (usage.input_tokens, usage.cache_read_input_tokens) == (500, 400)
    assert usage.cache_creation_input_tokens == 100
    assert usage.output_tokens_details is None  # no thinking, no breakdown
