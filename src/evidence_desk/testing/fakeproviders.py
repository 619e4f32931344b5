"""Local HTTP servers that speak the OpenAI Chat Completions, OpenAI Responses and Anthropic
Messages protocols, so provider tests run against the real SDKs and Pydantic AI with no network.

A test scripts what the "model" answers with `Reply` values; `FakeProvider` serves them one per
request and records every request it receives as a `Captured`.

Token usage reported to clients, unless a reply overrides it with `usage=(input, output)`:
input = ceil(bytes of the raw request body / 4); output = ceil(characters the model wrote / 4),
where what it wrote is the tool call's JSON arguments string (`json.dumps(args)`, or the
verbatim string of `raw_arguments`) or the text of a text reply, plus its reasoning tokens
(ceil(characters of `reasoning` / 4) unless given), as the real APIs count them. A reply cut
off at the cap reports the request's whole cap as its output. `cached_tokens` of the input
are reported as read from the prompt cache (OpenAI: `cached_tokens` within the prompt
tokens; Anthropic: `cache_read_input_tokens` beside the rest).

The unhappy paths each protocol really has: a turn cut off at the output cap
(`Reply.truncated`: Chat `finish_reason: length`, Responses `status: incomplete` with
`incomplete_details.reason: max_output_tokens`, Anthropic `stop_reason: max_tokens`, with
the tool call's arguments cut short), a refusal (`Reply.refusal`: Chat `message.refusal`,
a Responses `refusal` content item, Anthropic `stop_reason: refusal`), a content filter
(`Reply.content_filter`: Chat `finish_reason: content_filter`, Responses
`incomplete_details.reason: content_filter`; Anthropic has none), and reasoning before the
answer (`reasoning=`: Chat `reasoning_content` as DeepSeek and vLLM send it, a Responses
`reasoning` item with a summary, an Anthropic `thinking` block with a signature).
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Protocol = Literal["chat", "responses", "anthropic"]
_ReplyKind = Literal["tool", "text", "raw", "error", "hang"]
# How the turn ended: finished, cut off at the output cap, refused, or filtered.
_Stop = Literal["complete", "cut_off", "refused", "filtered"]

# The endpoint each protocol scripts; every other path is answered with a 404.
_ENDPOINTS: dict[str, str] = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
}

_OPENAI_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "not_found"),
    429: ("requests", "rate_limit_exceeded"),
}

_ANTHROPIC_ERRORS: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
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
    stop: _Stop = "complete"
    reasoning: str = ""
    reasoning_tokens: int | None = None
    cached_tokens: int = 0

    @staticmethod
    def output(
        args: Mapping[str, Any],
        *,
        usage: tuple[int, int] | None = None,
        reasoning: str = "",
        reasoning_tokens: int | None = None,
        cached_tokens: int = 0,
    ) -> Reply:
        """Call the request's output tool with `args`, after thinking `reasoning` if given.

        The output tool is the first offered tool whose name starts with `final_result`
        (pydantic-ai's output tools), or else the first tool in the request.
        """
        return Reply(
            "tool",
            args=dict(args),
            usage=usage,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            cached_tokens=cached_tokens,
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
        before the cut), or with no `args` no call at all (the cap spent on `reasoning`)."""
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
        name: str, args: Mapping[str, Any], *, usage: tuple[int, int] | None = None
    ) -> Reply:
        """Call the tool `name`, offered or not."""
        return Reply("tool", tool_name=name, args=dict(args), usage=usage)

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
    def hang(seconds: float, then: Reply | None = None) -> Reply:
        """Wait `seconds` (to trip client timeouts), then answer `then`, or a 500 without it."""
        return Reply("hang", seconds=seconds, then=then)


Script = Sequence[Reply] | Callable[[dict[str, Any], int], Reply]


@dataclass(frozen=True)
class Captured:
    """One request the server received; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class _Response:
    status: int
    body: dict[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


class _ScriptError(Exception):
    """A scripted reply that cannot be answered for this request; served as a 500."""


class FakeProvider:
    """A local server speaking one provider protocol; use it as a context manager.

    `script` is either a list of replies, used one per scripted request (a 500 with the message
    "script exhausted" once they run out), or a callable given (request body, request index).
    Only POSTs to the protocol's endpoint without `"stream": true` consume the script, and the
    index counts those requests from 0. Every request is recorded in `requests`.
    """

    def __init__(
        self,
        protocol: Protocol,
        script: Script,
        *,
        models: Sequence[str] = ("fake-model",),
        models_error: int | None = None,
    ) -> None:
        if protocol not in _ENDPOINTS:
            raise ValueError(f"unknown protocol {protocol!r}; expected one of {list(_ENDPOINTS)}")
        self.protocol: Protocol = protocol
        self.models = list(models)
        self.models_error = models_error  # answer GETs (the model list) with this HTTP error
        self.requests: list[Captured] = []
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
        root = f"http://{host!s}:{port}"
        return root if self.protocol == "anthropic" else f"{root}/v1"

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
        try:
            parsed = json.loads(raw) if raw else {}
        except ValueError:
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        with self._lock:
            self.requests.append(Captured(method, path, headers, body))
        route = path.split("?", 1)[0]
        if method == "GET":
            if self.models_error is not None:
                return self._error(self.models_error, "scripted model-list error")
            return _Response(200, self._models_body())
        if route != _ENDPOINTS[self.protocol]:
            return self._error(404, f"Unknown request URL: {method} {route}")
        if not isinstance(parsed, dict):
            return self._error(400, "The request body is not a JSON object.")
        if body.get("stream") is True:
            return self._error(400, _STREAMING_REFUSED)
        try:
            return self._answer(self._next_reply(body), body, len(raw))
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

    def _answer(self, reply: Reply, body: dict[str, Any], body_size: int) -> _Response:
        if reply.kind == "hang":
            # Stopping the server ends a hang early so the test does not wait for it.
            self._stopping.wait(reply.seconds)
            return self._answer(reply.then or Reply.error(500, "hang ended"), body, body_size)
        if reply.kind == "error":
            return self._error(reply.status, reply.message, reply.headers)
        try:
            payload, written = self._completion(reply, body)
        except _ScriptError as exc:
            return self._error(500, str(exc))
        reasoning = (
            _tokens(len(reply.reasoning))
            if reply.reasoning_tokens is None
            else reply.reasoning_tokens
        )
        if reply.usage is not None:
            tokens = reply.usage
        elif reply.stop == "cut_off":
            tokens = (_tokens(body_size), _cap(body) or _tokens(len(written)) + reasoning)
        else:
            tokens = (_tokens(body_size), _tokens(len(written)) + reasoning)
        usage = _Usage(tokens[0], tokens[1], reasoning, min(reply.cached_tokens, tokens[0]))
        build = {"chat": _chat_body, "responses": _responses_body, "anthropic": _anthropic_body}
        return _Response(200, build[self.protocol](self, body, payload, usage))

    def _completion(self, reply: Reply, body: dict[str, Any]) -> tuple[_Turn, str]:
        """What the model says: a tool call or text, and the characters it wrote."""
        if reply.stop == "filtered" and self.protocol == "anthropic":
            raise _ScriptError("Anthropic has no content-filter stop; use Reply.refusal")
        extra: dict[str, Any] = {"stop": reply.stop, "reasoning": reply.reasoning}
        if reply.kind == "text" or (reply.kind == "raw" and self.protocol == "anthropic"):
            text = reply.content if reply.content or reply.stop != "cut_off" else None
            return _Turn(text=text, **extra), reply.content
        name = reply.tool_name or self._output_tool(body)
        if reply.kind == "raw":
            return _Turn(tool=name, arguments=reply.content, **extra), reply.content
        arguments = json.dumps(reply.args)
        args = dict(reply.args or {})
        if reply.stop == "cut_off":
            arguments = arguments[: len(arguments) // 2]
            args = dict(list(args.items())[: len(args) // 2])  # the keys before the cut
        return _Turn(tool=name, arguments=arguments, args=args, **extra), arguments

    def _output_tool(self, body: dict[str, Any]) -> str:
        names: list[str] = []
        for tool in body.get("tools") or []:
            # Chat nests the name under "function"; Responses and Anthropic do not.
            spec = tool.get("function", tool) if isinstance(tool, dict) else {}
            if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                names.append(spec["name"])
        if not names:
            raise _ScriptError("Reply.output needs a request that offers a tool; it offered none")
        return next((n for n in names if n.startswith(_OUTPUT_TOOL_PREFIX)), names[0])

    def _error(
        self, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> _Response:
        if self.protocol == "anthropic":
            kind = _ANTHROPIC_ERRORS.get(
                status, "api_error" if status >= 500 else "invalid_request_error"
            )
            body: dict[str, Any] = {
                "type": "error",
                "error": {"type": kind, "message": message},
                "request_id": self.new_id("req_"),
            }
        else:
            kind, code = _OPENAI_ERRORS.get(
                status, ("server_error" if status >= 500 else "invalid_request_error", None)
            )
            body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        return _Response(status, body, headers or {})

    def _models_body(self) -> dict[str, Any]:
        if self.protocol == "anthropic":
            data = [
                {
                    "type": "model",
                    "id": name,
                    "display_name": name,
                    "created_at": "2025-01-01T00:00:00Z",
                    "lifecycle": "active",
                }
                for name in self.models
            ]
            return {
                "data": data,
                "has_more": False,
                "first_id": self.models[0] if self.models else None,
                "last_id": self.models[-1] if self.models else None,
            }
        models: list[dict[str, Any]] = [
            {"id": name, "object": "model", "created": 0, "owned_by": "fake"}
            for name in self.models
        ]
        return {"object": "list", "data": models}

    def new_id(self, prefix: str) -> str:
        """A unique id in the provider's style, e.g. `chatcmpl-000001`."""
        return f"{prefix}{next(self._ids):06d}"


@dataclass(frozen=True)
class _Turn:
    text: str | None = None
    tool: str | None = None
    arguments: str = ""
    args: dict[str, Any] | None = None
    stop: _Stop = "complete"
    reasoning: str = ""


@dataclass(frozen=True)
class _Usage:
    input: int
    output: int
    reasoning: int = 0
    cached: int = 0


def _tokens(size: int) -> int:
    return math.ceil(size / 4)


def _cap(body: dict[str, Any]) -> int | None:
    """The request's output cap, under whichever name its protocol uses."""
    for name in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        if isinstance(body.get(name), int):
            return int(body[name])
    return None


def _chat_body(
    fake: FakeProvider, request: dict[str, Any], turn: _Turn, usage: _Usage
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    finish = "stop" if turn.tool is None else "tool_calls"
    if turn.stop == "refused":
        message.update(content=None, refusal=turn.text)
    elif turn.stop == "cut_off":
        finish = "length"
    elif turn.stop == "filtered":
        message["content"] = turn.text or None
        finish = "content_filter"
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning  # DeepSeek's and vLLM's field
    if turn.tool is not None:
        message["tool_calls"] = [
            {
                "id": fake.new_id("call_"),
                "type": "function",
                "function": {"name": turn.tool, "arguments": turn.arguments},
            }
        ]
    return {
        "id": fake.new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", ""),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": usage.input,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
            "prompt_tokens_details": {"cached_tokens": usage.cached},
            "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
        },
    }


def _responses_body(
    fake: FakeProvider, request: dict[str, Any], turn: _Turn, usage: _Usage
) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": fake.new_id("rs_"),
                "summary": [{"type": "summary_text", "text": turn.reasoning}],
            }
        )
    status, incomplete = "completed", None
    if turn.stop == "cut_off":
        status, incomplete = "incomplete", {"reason": "max_output_tokens"}
    elif turn.stop == "filtered":
        status, incomplete = "incomplete", {"reason": "content_filter"}
    if turn.tool is not None:
        items.append(
            {
                "type": "function_call",
                "id": fake.new_id("fc_"),
                "call_id": fake.new_id("call_"),
                "name": turn.tool,
                "arguments": turn.arguments,
                "status": "incomplete" if turn.stop == "cut_off" else "completed",
            }
        )
    elif turn.text is not None:
        content: dict[str, Any] = (
            {"type": "refusal", "refusal": turn.text}
            if turn.stop == "refused"
            else {"type": "output_text", "text": turn.text, "annotations": []}
        )
        items.append(
            {
                "type": "message",
                "id": fake.new_id("msg_"),
                "role": "assistant",
                "status": "completed" if status == "completed" else "incomplete",
                "content": [content] if turn.text or turn.stop != "filtered" else [],
            }
        )
    return {
        "id": fake.new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "model": request.get("model", ""),
        "status": status,
        "error": None,
        "incomplete_details": incomplete,
        "output": items,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools", []),
        "usage": {
            "input_tokens": usage.input,
            "output_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
            "input_tokens_details": {"cached_tokens": usage.cached, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        },
    }


def _anthropic_body(
    fake: FakeProvider, request: dict[str, Any], turn: _Turn, usage: _Usage
) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        signature = fake.new_id("sig_")
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": signature})
    if turn.tool is not None:
        blocks.append(
            {
                "type": "tool_use",
                "id": fake.new_id("toolu_"),
                "name": turn.tool,
                "input": turn.args or {},
            }
        )
    elif turn.text:
        blocks.append({"type": "text", "text": turn.text})
    stop = {"complete": "end_turn" if turn.tool is None else "tool_use"}.get(turn.stop)
    stop = stop or {"cut_off": "max_tokens", "refused": "refusal"}[turn.stop]
    body: dict[str, Any] = {
        "id": fake.new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": request.get("model", ""),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            # Anthropic counts cache reads beside the input tokens, not within them.
            "input_tokens": usage.input - usage.cached,
            "output_tokens": usage.output,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": usage.cached,
        },
    }
    if turn.stop == "refused":
        body["stop_details"] = {"type": "refusal", "category": None, "explanation": None}
    return body


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
                id_header = "request-id" if fake.protocol == "anthropic" else "x-request-id"
                self.send_header(id_header, fake.new_id("req_"))
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
