"""Local HTTP servers that speak the OpenAI Chat Completions, OpenAI Responses and Anthropic
Messages protocols, so provider tests run against the real SDKs and Pydantic AI with no network.

This module is the script and the server, alike for every protocol; how each protocol writes
an answer, an error, its model list and its headers is its `Wire`, one module each
(`fakechat.py`, `fakeresponses.py`, `fakeanthropic.py`), and the rules the real APIs enforce
are in `fakerules.py`.

A test scripts what the "model" answers with `Reply` values; `FakeProvider` serves them one per
request and records every request it receives as a `Captured` (with the time it arrived, so a
test can measure how long a client waited between tries).

How the output is answered: `Reply.output` calls the request's output tool, or, when the
request offers no tools or asks for a structured response format (Pydantic AI's
`NativeOutput`: Chat `response_format` `json_schema`, Responses `text.format` `json_schema`,
Anthropic `output_config.format`; `PromptedOutput`: no tools, the schema in the instructions,
perhaps with a `json_object` format), writes the arguments as the reply's JSON text (for
Responses an `output_text` item).

Token usage reported to clients, unless a reply overrides it with `usage=(input, output)`:
input = ceil(bytes of the raw request body / 4); output = ceil(characters the model wrote / 4),
where what it wrote is the tool calls' JSON arguments (`json.dumps(args)`, or the verbatim
string of `raw_arguments`) or the text of a text reply, plus its reasoning tokens
(ceil(characters of `reasoning` / 4) unless given), as the real APIs count them. A reply cut
off at the cap reports the request's whole cap as its output. Of the input, `cached_tokens`
are reported as read from the prompt cache and `cache_write_tokens` as written to it (OpenAI:
`cached_tokens` and `cache_write_tokens` within the prompt tokens; Anthropic:
`cache_read_input_tokens` and `cache_creation_input_tokens` beside the rest), and reasoning
tokens within the output (Chat and Responses `reasoning_tokens`, Anthropic
`output_tokens_details.thinking_tokens`).

The unhappy paths each protocol really has, each in its own wire shape:

* a turn cut off at the output cap (`Reply.truncated`: Chat `finish_reason: length`,
  Responses `status: incomplete` with `incomplete_details.reason: max_output_tokens`,
  Anthropic `stop_reason: max_tokens`, with the tool call's arguments or the JSON text cut
  short);
* a refusal (`Reply.refusal`: Chat `message.refusal`, a Responses `refusal` content item,
  Anthropic `stop_reason: refusal`) and a content filter (`Reply.content_filter`: Chat
  `finish_reason: content_filter`, Responses `incomplete_details.reason: content_filter`;
  Anthropic has none);
* reasoning before the answer (`reasoning=`: Chat `reasoning_content` as DeepSeek and vLLM
  send it, a Responses `reasoning` item with a summary, an Anthropic `thinking` block with a
  signature);
* several tool calls in one turn (`Reply.several`: Chat `tool_calls`, Responses
  `function_call` items, Anthropic `tool_use` blocks, in the order given), and tool
  arguments as a JSON object instead of a string (`object_arguments=True`, Chat only, as
  some OpenAI-compatible servers send them);
* quota used up (`Reply.quota_exceeded`: OpenAI 429 `insufficient_quota`, which is not a
  rate limit; Anthropic 400 "Your credit balance is too low", or `Reply.error(402)` for its
  `billing_error`);
* the context window exceeded (`Reply.context_exceeded`: OpenAI 400
  `context_length_exceeded`, Anthropic 400 "prompt is too long: N tokens > M maximum");
* an unknown model (`Reply.unknown_model`: OpenAI 404 `model_not_found`, Anthropic 404
  `not_found_error` "model: NAME");
* a rate limit with the headers that say how long to wait (`Reply.rate_limited`: OpenAI
  `retry-after-ms`, `retry-after` and `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
  with Go durations such as `6m0s`, `1s`, `20ms`; Anthropic `retry-after` in whole seconds
  and `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,
  reset}` with RFC 3339 reset times);
* any other HTTP error in the provider's error shape (`Reply.error`: 500, 503, 529, ...)
  and a hang past the client's timeout (`Reply.hang`).

`FakeProvider(..., validate=True)` also rejects, as the real APIs do, a request that breaks
one of `RULES` (`fakerules.py`), with a 400 in the provider's own error shape whose message
starts with the rule's name; it is recorded in `rejected` and uses no scripted reply:

* `strict_schema`: a tool or `json_schema` response format with `strict: true` (Anthropic:
  a `strict` tool or any `output_config.format`) whose schema is not strict-compatible: every
  object schema, at any depth (`properties`, `$defs`, `items`, `anyOf`, ...), needs
  `additionalProperties: false`, and on OpenAI every property listed in `required`;
* `no_sampling_when_reasoning`: `temperature` or `top_p` other than 1 sent to an OpenAI
  model while it reasons (the o1/o3/o4 series; the GPT-5 family but `gpt-5-chat`, and a
  GPT-5.1 to 5.4 mainline model only when `reasoning_effort` is not `none`, their default);
* `max_completion_tokens_when_reasoning`: `max_tokens` sent on Chat to such a model;
* `max_tokens_required`: an Anthropic request without `max_tokens`;
* `no_forced_tool_when_thinking`: an Anthropic `tool_choice` of type `any` or `tool` while
  thinking is on (`thinking` of type `enabled` or `adaptive`, or a model that thinks by
  default and is not told `disabled`);
* `temperature_1_when_thinking`: an Anthropic `temperature` other than 1 while thinking;
* `tool_choice_names_an_offered_tool`: a `tool_choice` naming a tool the request does not
  offer;
* `tool_choice_needs_tools`: a forced `tool_choice` (`"required"`, Anthropic `any`, or a
  named tool) in a request that offers no tools;
* `search_result_shape`: an Anthropic `search_result` block without a string `source` and
  `title`, or whose `content` is not a non-empty list of non-empty text blocks;
* `citations_all_or_none`: search results of one request with citations enabled on some
  and not on others;
* `no_citations_with_output_format`: cited search results with an `output_config.format`.

Images (OpenAI): the Chat and Responses servers also serve the Images API
(`POST /v1/images/generations`, `fakeimages.py`) from the same script: `Reply.image(data)`
answers with `data` as the image (any bytes), and errors, rate limits and hangs as anywhere.

Citations (Anthropic): `Reply.cited_text(...)` answers with text blocks (`CitedText`), each
citing text blocks of the request's `search_result` blocks as the Messages API does: a
`search_result_location` with the result's `search_result_index` (counted across the
request's messages and tool results), its `source` and `title`, `start_block_index` and
`end_block_index` (exclusive), and `cited_text`, the text of those blocks concatenated; a
`Cite` (`fakebodies.py`) may override `cited_text` or `source`, to script a server that
cites what the result does not hold.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from . import fakeanthropic, fakechat, fakeimages, fakeresponses
from .fakeanthropic import cited_block
from .fakebodies import (
    Call,
    CitedText,
    Problem,
    RateLimit,
    Said,
    ScriptError,
    Stop,
    Turn,
    Usage,
    Wire,
    answers_in_text,
    cap_of,
    tokens_of,
)
from .fakerules import (
    Protocol,
    broken_rule,
    search_results,
    tool_names,
)

_ReplyKind = Literal["tool", "text", "raw", "several", "error", "hang", "cited", "image"]

WIRES: dict[Protocol, Wire] = {
    "chat": fakechat.WIRE,
    "responses": fakeresponses.WIRE,
    "anthropic": fakeanthropic.WIRE,
}

# Pydantic AI streams an Anthropic request whose default max_tokens is the model's large output
# limit (e.g. 64000 for claude-haiku-4-5), even from `run_sync`; a small max_tokens avoids that.
_STREAMING_REFUSED = (
    "Streaming is not scripted by this fake server. For Anthropic models with a large output "
    "limit, set model_settings={'max_tokens': 4096} so the request is not streamed."
)

# pydantic-ai names its output tools `final_result` or `final_result_<Type>`.
_OUTPUT_TOOL_PREFIX = "final_result"


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one HTTP request; build it with the static constructors."""

    kind: _ReplyKind
    tool_name: str | None = None
    args: Mapping[str, Any] | None = None
    content: str = ""
    status: int = 200
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    then: Reply | None = None
    usage: tuple[int, int] | None = None
    stop: Stop = "complete"
    reasoning: str = ""
    reasoning_tokens: int | None = None
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    object_arguments: bool = False
    parts: tuple[Reply, ...] = ()
    problem: Problem | None = None
    context: tuple[int, int] = (0, 0)  # a context overflow's (prompt tokens, window)
    rate: RateLimit | None = None
    cited: tuple[CitedText, ...] = ()

    @staticmethod
    def cited_text(*blocks: CitedText | str, usage: tuple[int, int] | None = None) -> Reply:
        """Answer (Anthropic) with these text blocks, in order, each with its citations of
        the request's search results (a plain string: a block that cites nothing)."""
        texts = tuple(b if isinstance(b, CitedText) else CitedText(b) for b in blocks)
        return Reply("cited", cited=texts, usage=usage)

    @staticmethod
    def image(data: bytes = b"", *, b64: str | None = None) -> Reply:
        """Answer an Images API request with `data` as its one image (any bytes, base64
        encoded), or with the text `b64` as its `b64_json`, verbatim."""
        return Reply("image", content=fakeimages.encoded(data) if b64 is None else b64)

    @staticmethod
    def output(
        args: Mapping[str, Any],
        *,
        usage: tuple[int, int] | None = None,
        reasoning: str = "",
        reasoning_tokens: int | None = None,
        cached_tokens: int = 0,
        cache_write_tokens: int = 0,
        object_arguments: bool = False,
    ) -> Reply:
        """Answer the request's output with `args`, after thinking `reasoning` if given.

        The output tool is the first offered tool whose name starts with `final_result`
        (pydantic-ai's output tools), or else the first tool in the request. A request that
        offers no tools or asks for a structured response format (`NativeOutput`,
        `PromptedOutput`) gets `args` as the reply's JSON text instead. `object_arguments`:
        send the tool call's arguments as a JSON object, not a string (Chat only).
        """
        return Reply(
            "tool",
            args=dict(args),
            usage=usage,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            cached_tokens=cached_tokens,
            cache_write_tokens=cache_write_tokens,
            object_arguments=object_arguments,
        )

    @staticmethod
    def truncated(
        args: Mapping[str, Any] | None = None,
        *,
        reasoning: str = "",
        usage: tuple[int, int] | None = None,
    ) -> Reply:
        """A turn cut off at the request's output cap: the output tool call with the first
        half of its JSON arguments (Anthropic, whose `input` is an object: only the keys
        before the cut), or the first half of the JSON text where `output` would answer in
        text; with no `args` no answer at all (the cap spent on `reasoning`)."""
        kind: _ReplyKind = "text" if args is None else "tool"
        return Reply(
            kind,
            args=None if args is None else dict(args),
            usage=usage,
            stop="cut_off",
            reasoning=reasoning,
        )

    @staticmethod
    def refusal(message: str = "I can't help with that.") -> Reply:
        """The model refuses, saying `message` (Chat `refusal`, a Responses `refusal` item,
        Anthropic `stop_reason: refusal` after the text it wrote)."""
        return Reply("text", content=message, stop="refused")

    @staticmethod
    def content_filter(partial: str = "") -> Reply:
        """The provider's content filter stops the turn after `partial` text (Chat and
        Responses; Anthropic has no such stop, and the server answers a 500 there)."""
        return Reply("text", content=partial, stop="filtered")

    @staticmethod
    def tool_call(
        name: str,
        args: Mapping[str, Any],
        *,
        usage: tuple[int, int] | None = None,
        object_arguments: bool = False,
    ) -> Reply:
        """Call the tool `name`, offered or not (`object_arguments` as in `output`)."""
        return Reply(
            "tool", tool_name=name, args=dict(args), usage=usage, object_arguments=object_arguments
        )

    @staticmethod
    def several(*calls: Reply, usage: tuple[int, int] | None = None) -> Reply:
        """One turn with several tool calls, in this order: each an `output`, `tool_call` or
        (not on Anthropic) `raw_arguments` reply. Their usage and reasoning are ignored."""
        for call in calls:
            if call.kind not in ("tool", "raw") or call.stop != "complete":
                raise ValueError(f"Reply.several takes tool calls, not a {call.kind!r} reply")
        return Reply("several", parts=tuple(calls), usage=usage)

    @staticmethod
    def text(content: str, *, usage: tuple[int, int] | None = None) -> Reply:
        """Answer with plain assistant text."""
        return Reply("text", content=content, usage=usage)

    @staticmethod
    def raw_arguments(arguments: str, *, usage: tuple[int, int] | None = None) -> Reply:
        """Call the output tool with this JSON arguments string, verbatim (it may be malformed).

        Anthropic's `tool_use.input` must be an object, so there the string is a text block.
        """
        return Reply("raw", content=arguments, usage=usage)

    @staticmethod
    def error(
        status: int, message: str = "scripted error", headers: Mapping[str, str] | None = None
    ) -> Reply:
        """Answer with an HTTP error in the provider's own error shape, with extra headers."""
        return Reply("error", status=status, message=message, headers=dict(headers or {}))

    @staticmethod
    def quota_exceeded() -> Reply:
        """The account's quota or credit is used up: OpenAI's 429 `insufficient_quota` (not a
        rate limit: waiting does not help), Anthropic's 400 "credit balance is too low"."""
        return Reply("error", problem="quota")

    @staticmethod
    def context_exceeded(tokens: int = 210_000, maximum: int = 200_000) -> Reply:
        """The prompt of `tokens` tokens is longer than the model's window of `maximum`:
        OpenAI's 400 `context_length_exceeded`, Anthropic's 400 "prompt is too long"."""
        return Reply("error", problem="context", context=(tokens, maximum))

    @staticmethod
    def unknown_model() -> Reply:
        """The provider knows no model by the request's name: OpenAI's 404
        `model_not_found`, Anthropic's 404 `not_found_error`."""
        return Reply("error", problem="unknown_model")

    @staticmethod
    def rate_limited(
        retry_after: float | None = None,
        *,
        resets: Mapping[str, float] | None = None,
        exhausted: Sequence[str] | None = None,
    ) -> Reply:
        """A 429 rate limit. `retry_after` seconds: OpenAI sends them as `retry-after-ms` and
        as `retry-after` rounded up to whole seconds, Anthropic as `retry-after` alone.
        `resets`: the seconds until each limit resets (OpenAI: `requests`, `tokens`; Anthropic
        also `input-tokens`, `output-tokens`), as OpenAI's durations or Anthropic's RFC 3339
        times (whole seconds, rounded up); the limits in `exhausted` (all of them unless
        given) report none remaining, the others half."""
        named = dict(resets or {})
        used_up = tuple(named if exhausted is None else exhausted)
        return Reply("error", problem="rate_limit", rate=RateLimit(retry_after, named, used_up))

    @staticmethod
    def hang(seconds: float, then: Reply | None = None) -> Reply:
        """Wait `seconds` (to trip client timeouts), then answer `then`, or a 500 without it."""
        return Reply("hang", seconds=seconds, then=then)


Script = Sequence[Reply] | Callable[[dict[str, Any], int], Reply]


@dataclass(frozen=True)
class Captured:
    """One request the server received; header names are lower-cased, `at` is when it
    arrived (`time.monotonic()`)."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float = 0.0


@dataclass(frozen=True)
class Rejection:
    """A request the validating server refused: the rule it broke and the message it sent."""

    rule: str
    message: str
    body: dict[str, Any]


@dataclass(frozen=True)
class _Response:
    status: int
    body: dict[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


class FakeProvider:
    """A local server speaking one provider protocol; use it as a context manager.

    `script` is either a list of replies, used one per scripted request (a 500 with the message
    "script exhausted" once they run out), or a callable given (request body, request index).
    Only POSTs to the protocol's endpoint without `"stream": true` consume the script, and the
    index counts those requests from 0. Every request is recorded in `requests`. With
    `validate`, a request that breaks one of `RULES` is answered with a 400 instead (see the
    module docstring), recorded in `rejected`, and uses no reply.
    """

    def __init__(
        self,
        protocol: Protocol,
        script: Script,
        *,
        models: Sequence[str] = ("fake-model",),
        models_error: int | None = None,
        validate: bool = False,
    ) -> None:
        if protocol not in WIRES:
            raise ValueError(f"unknown protocol {protocol!r}; expected one of {list(WIRES)}")
        self.protocol: Protocol = protocol
        self.wire = WIRES[protocol]
        self.models = list(models)
        self.models_error = models_error  # answer GETs (the model list) with this HTTP error
        self.validate = validate
        self.requests: list[Captured] = []
        self.rejected: list[Rejection] = []
        self._script = script if callable(script) else list(script)
        self._lock = threading.Lock()
        self._scripted = 0
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._idle = threading.Condition()
        self._inflight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """What the SDK takes as `base_url`: with `/v1` for OpenAI, without it for Anthropic."""
        if self._server is None:
            raise RuntimeError("FakeProvider is not running; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.wire.base_path}"

    def __enter__(self) -> FakeProvider:
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},  # how long `shutdown` can wait for the loop
            name=f"fake-{self.protocol}",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()
        # Let answers in progress (woken hangs included) finish before the port closes.
        with self._idle:
            self._idle.wait_for(lambda: self._inflight == 0, timeout=5)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @contextmanager
    def _in_flight(self) -> Iterator[None]:
        with self._idle:
            self._inflight += 1
        try:
            yield
        finally:
            with self._idle:
                self._inflight -= 1
                self._idle.notify_all()

    def _handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> _Response:
        """Record one request and build its response."""
        arrived = time.monotonic()
        try:
            parsed = json.loads(raw) if raw else {}
        except ValueError:
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        with self._lock:
            self.requests.append(Captured(method, path, headers, body, arrived))
        route = path.split("?", 1)[0]
        if method == "GET":
            if self.models_error is not None:
                return self._error(self.models_error, "scripted model-list error")
            return _Response(200, self.wire.models(self.models))
        images = route == fakeimages.ENDPOINT and self.protocol in fakeimages.PROTOCOLS
        if route != self.wire.endpoint and not images:
            return self._error(404, f"Unknown request URL: {method} {route}")
        if not isinstance(parsed, dict):
            return self._error(400, "The request body is not a JSON object.")
        rules = fakeimages.broken_image_rule if images else broken_rule
        broken = rules(self.protocol, body) if self.validate else None
        if broken is not None:
            rule, why = broken
            with self._lock:
                self.rejected.append(Rejection(rule.name, why, body))
            return self._said(Said(400, f"{rule.name}: {why}", "invalid_request_error", rule.code))
        if body.get("stream") is True:
            return self._error(400, _STREAMING_REFUSED)
        try:
            return self._answer(self._next_reply(body), body, len(raw), images=images)
        except Exception as exc:
            # A broken script or request must reach the test as an answer, not a dropped socket.
            return self._error(500, f"fake server could not answer: {exc!r}")

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            index = self._scripted
            self._scripted += 1
        if callable(self._script):
            return self._script(body, index)
        if index >= len(self._script):
            return Reply.error(500, "script exhausted")
        return self._script[index]

    def _answer(
        self, reply: Reply, body: dict[str, Any], body_size: int, *, images: bool = False
    ) -> _Response:
        if reply.kind == "hang":
            # Stopping the server ends a hang early so the test does not wait for it.
            self._stopping.wait(reply.seconds)
            then = reply.then or Reply.error(500, "hang ended")
            return self._answer(then, body, body_size, images=images)
        try:
            if reply.kind == "error":
                return self._problem(reply, body)
            if images or reply.kind == "image":
                return self._image(reply, body, images)
            payload, written = self._completion(reply, body)
        except ScriptError as exc:
            return self._error(500, str(exc))
        reasoning = (
            tokens_of(len(reply.reasoning))
            if reply.reasoning_tokens is None
            else reply.reasoning_tokens
        )
        if reply.usage is not None:
            tokens = reply.usage
        elif reply.stop == "cut_off":
            tokens = (tokens_of(body_size), cap_of(body) or tokens_of(len(written)) + reasoning)
        else:
            tokens = (tokens_of(body_size), tokens_of(len(written)) + reasoning)
        cached = min(reply.cached_tokens, tokens[0])
        usage = Usage(
            tokens[0],
            tokens[1],
            reasoning,
            cached,
            min(reply.cache_write_tokens, tokens[0] - cached),
        )
        return _Response(200, self.wire.body(self.new_id, body, payload, usage))

    def _image(self, reply: Reply, body: dict[str, Any], images: bool) -> _Response:
        """An Images API answer (`fakeimages.py`); an image only answers an images request."""
        if not images:
            raise ScriptError("Reply.image answers an Images API request only")
        if reply.kind != "image":
            raise ScriptError(
                f"an Images API request needs Reply.image, not a {reply.kind!r} reply"
            )
        return _Response(200, fakeimages.images_body(body, reply.content))

    def _completion(self, reply: Reply, body: dict[str, Any]) -> tuple[Turn, str]:
        """What the model says: tool calls or text, and the characters it wrote."""
        if reply.stop == "filtered" and self.protocol == "anthropic":
            raise ScriptError("Anthropic has no content-filter stop; use Reply.refusal")
        extra: dict[str, Any] = {"stop": reply.stop, "reasoning": reply.reasoning}
        if reply.kind == "cited":
            if self.protocol != "anthropic":
                raise ScriptError("cited text blocks are an Anthropic reply")
            blocks = tuple(cited_block(b, search_results(body)) for b in reply.cited)
            return Turn(blocks=blocks, **extra), "".join(b.text for b in reply.cited)
        if reply.kind == "several":
            calls = tuple(self._call(part, body) for part in reply.parts)
            return Turn(calls=calls, **extra), "".join(c.arguments for c in calls)
        if reply.kind == "text" or (reply.kind == "raw" and self.protocol == "anthropic"):
            text = reply.content if reply.content or reply.stop != "cut_off" else None
            return Turn(text=text, **extra), reply.content
        if (
            reply.kind == "tool"
            and reply.tool_name is None
            and answers_in_text(self.protocol, body)
        ):
            text = json.dumps(reply.args)
            if reply.stop == "cut_off":
                text = text[: len(text) // 2]
            return Turn(text=text, **extra), text
        call = self._call(reply, body)
        return Turn(calls=(call,), **extra), call.arguments

    def _call(self, reply: Reply, body: dict[str, Any]) -> Call:
        """One tool call: to the tool `reply` names, or the request's output tool."""
        name = reply.tool_name or self._output_tool(body)
        if reply.kind == "raw":
            if self.protocol == "anthropic":
                raise ScriptError("Anthropic's tool_use input must be an object, not a string")
            return Call(name, reply.content)
        if reply.object_arguments and self.protocol != "chat":
            raise ScriptError("object_arguments is a Chat Completions variant")
        arguments = json.dumps(reply.args)
        args = dict(reply.args or {})
        if reply.stop == "cut_off":
            arguments = arguments[: len(arguments) // 2]
            args = dict(list(args.items())[: len(args) // 2])  # the keys before the cut
        return Call(name, arguments, args, reply.object_arguments)

    def _output_tool(self, body: dict[str, Any]) -> str:
        names = tool_names(body)
        if not names:
            raise ScriptError("a tool call needs a request that offers a tool; it offered none")
        return next((n for n in names if n.startswith(_OUTPUT_TOOL_PREFIX)), names[0])

    def _problem(self, reply: Reply, body: dict[str, Any]) -> _Response:
        """An error reply, in the shape this protocol sends it."""
        if reply.problem is None:
            return self._error(reply.status, reply.message, reply.headers)
        model = str(body.get("model", ""))
        rate = reply.rate or RateLimit()
        return self._said(self.wire.problem(reply.problem, model, reply.context, rate))

    def _error(
        self, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> _Response:
        """An error with the status's usual type, as the protocol writes it."""
        return self._said(Said(status, message, headers=headers or {}))

    def _said(self, said: Said) -> _Response:
        return _Response(said.status, self.wire.error(self.new_id, said), said.headers)

    def new_id(self, prefix: str) -> str:
        """A unique id in the provider's style, e.g. `chatcmpl-000001`."""
        return f"{prefix}{next(self._ids):06d}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Keep-alive connections park their threads on a read; never join them on close.
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test) is expected; anything else is reported.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_PUT(self) -> None:
            self._serve()

        def do_DELETE(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            with fake._in_flight():
                self._respond()

        def _respond(self) -> None:
            raw = self._read_body()
            headers = {name.lower(): value for name, value in self.headers.items()}
            response = fake._handle(self.command, self.path, headers, raw)
            payload = json.dumps(response.body).encode()
            try:
                self.send_response(response.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header(fake.wire.id_header, fake.new_id("req_"))
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
            except ConnectionError:
                self.close_connection = True

        def _read_body(self) -> bytes:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            return self.rfile.read(int(self.headers.get("content-length") or 0))

    return Handler
