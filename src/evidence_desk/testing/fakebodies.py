"""What the fake servers answer, before any protocol writes it: turns, usage, problems.

`fakeproviders.FakeProvider` turns a scripted `Reply` into a `Turn` (the tool calls or text
the "model" wrote, how it ended) and a `Usage`, or into a `Said` (an error), and hands it to
its protocol's `Wire`, which writes it as that protocol does: `fakechat.py` (OpenAI Chat
Completions), `fakeresponses.py` (OpenAI Responses), `fakeanthropic.py` (Anthropic
Messages). A `Wire` is the whole of what differs between them on the wire.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .fakerules import Protocol, response_format, tool_names

# How the turn ended: finished, cut off at the output cap, refused, or filtered.
Stop = Literal["complete", "cut_off", "refused", "filtered"]


class ScriptError(Exception):
    """A scripted reply that cannot be answered for this request; served as a 500."""


LIMIT_SIZES = {
    "requests": 500,
    "tokens": 200_000,
    "input-tokens": 160_000,
    "output-tokens": 40_000,
}


@dataclass(frozen=True)
class RateLimit:
    """What a scripted 429 says about waiting: `retry_after` seconds, and for each limit named
    in `resets` the seconds until it resets; the limits in `exhausted` report none left."""

    retry_after: float | None = None
    resets: Mapping[str, float] = field(default_factory=dict)
    exhausted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Call:
    name: str
    arguments: str  # the JSON arguments string (cut short for a cut-off turn)
    args: dict[str, Any] = field(default_factory=dict)  # Anthropic's `input`
    as_object: bool = False  # Chat: send `args` itself as `arguments`


@dataclass(frozen=True)
class Cite:
    """A citation of a scripted reply: text blocks `start` to `end` (exclusive) of the
    request's search result number `result` (its `search_result_index`, from 0). The
    server says what they hold unless `cited_text` or `source` says otherwise."""

    result: int
    start: int = 0
    end: int = 1
    cited_text: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CitedText:
    """A text block of a scripted Anthropic reply and what it cites."""

    text: str
    cites: tuple[Cite, ...] = ()


@dataclass(frozen=True)
class Turn:
    text: str | None = None
    calls: tuple[Call, ...] = ()
    stop: Stop = "complete"
    reasoning: str = ""
    blocks: tuple[dict[str, Any], ...] = ()  # Anthropic text blocks with their citations


@dataclass(frozen=True)
class Usage:
    input: int
    output: int
    reasoning: int = 0
    cached: int = 0
    written: int = 0  # input tokens written to the prompt cache


def limit_values(
    rate: RateLimit, limits: Sequence[str], who: str, reset: Callable[[float], str]
) -> Iterator[tuple[str, dict[str, str]]]:
    """For each limit `rate` resets: its name, and its size, what is left and when it resets
    (written by `reset`), as a protocol's rate-limit headers give them."""
    for limit, seconds in rate.resets.items():
        if limit not in limits:
            raise ScriptError(f"{who} reports no {limit!r} limit: {tuple(limits)}")
        size = LIMIT_SIZES[limit]
        left = 0 if limit in rate.exhausted else size // 2
        yield limit, {"limit": str(size), "remaining": str(left), "reset": reset(seconds)}


def tokens_of(size: int) -> int:
    return math.ceil(size / 4)


def cap_of(body: dict[str, Any]) -> int | None:
    """The request's output cap, under whichever name its protocol uses."""
    for name in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        if isinstance(body.get(name), int):
            return int(body[name])
    return None


def answers_in_text(protocol: Protocol, body: dict[str, Any]) -> bool:
    """Whether the output is the reply's text: no tools are offered, or a JSON response
    format is asked for (`NativeOutput`, or `PromptedOutput`'s JSON mode)."""
    fmt = response_format(protocol, body)
    wants_json = isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object")
    return wants_json or not tool_names(body)


# The errors whose wire shape differs by protocol (status, type, code, message, headers).
Problem = Literal["quota", "context", "unknown_model", "rate_limit"]

NewId = Callable[[str], str]


@dataclass(frozen=True)
class Said:
    """An error answer before its protocol writes it: the status, the message, and, where the
    status's usual ones do not fit, the error's `kind` (its type) and OpenAI `code`."""

    status: int
    message: str
    kind: str | None = None
    code: str | None = None
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Wire:
    """One protocol as it is written on the wire: where it is served, how it writes an
    answer, an error, the model list and rate-limit headers, and what it says for each
    `Problem`."""

    endpoint: str  # the path it scripts; every other path is answered with a 404
    base_path: str  # what the SDK's `base_url` ends with
    id_header: str  # the response header carrying the request id
    body: Callable[[NewId, dict[str, Any], Turn, Usage], dict[str, Any]]
    error: Callable[[NewId, Said], dict[str, Any]]
    models: Callable[[Sequence[str]], dict[str, Any]]
    rate_headers: Callable[[RateLimit], dict[str, str]]
    problem: Callable[[Problem, str, tuple[int, int], RateLimit], Said]
