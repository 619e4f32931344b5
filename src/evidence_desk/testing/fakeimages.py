"""The OpenAI Images API as the fake servers speak it: `POST /v1/images/generations`.

`fakeproviders.FakeProvider` serves it beside Chat Completions and Responses (both OpenAI
protocols), from the same script: `Reply.image(data)` answers with `data` as the image's
base64 (any bytes: a test can send what is not a picture), `Reply.image(b64=...)` with that
text verbatim, and `Reply.error(...)`, `Reply.rate_limited(...)`, `Reply.hang(...)` as on any
endpoint, in OpenAI's error shape. Any other reply to an images request is a 500.

The body is what the real API sends: for a `gpt-image-*` model `data[0].b64_json` with the
model's `background`, `output_format`, `quality`, `size` and token `usage` (image tokens out,
text tokens in); for `dall-e-*` and other models `data[0].b64_json` with a `revised_prompt`.

A validating server (`validate=True`) also refuses, with a 400 in OpenAI's shape, what the
real API refuses (`IMAGE_RULES`): no prompt; `response_format` sent to a `gpt-image-*` model
("Unknown parameter: 'response_format'.": those models always answer in base64); a size the
model does not make.

`solid_png` writes a small valid PNG (one colour) with `zlib` and `struct`, for the tests'
pictures.
"""

from __future__ import annotations

import base64
import struct
import time
import zlib
from typing import Any

from .fakerules import Protocol, Rule

ENDPOINT = "/v1/images/generations"
PROTOCOLS: tuple[Protocol, ...] = ("chat", "responses")  # OpenAI's servers serve it

SIZES = {
    "gpt-image": ("1024x1024", "1536x1024", "1024x1536", "auto"),
    "dall-e-3": ("1024x1024", "1792x1024", "1024x1792"),
    "dall-e-2": ("256x256", "512x512", "1024x1024"),
}
IMAGE_OUTPUT_TOKENS = 1056  # gpt-image-1's output tokens for a 1024x1024 image at low quality


def solid_png(
    width: int = 1024, height: int = 1024, rgb: tuple[int, int, int] = (40, 90, 160)
) -> bytes:
    """A valid PNG of one colour: 8-bit RGB, one IDAT chunk, every CRC right."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    row = b"\x00" + bytes(rgb) * width  # filter type 0, then the pixels
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(row * height, 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _family(model: str) -> str:
    return next((f for f in SIZES if model.startswith(f)), "")


def _check_prompt(protocol: Protocol, body: dict[str, Any]) -> str | None:
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return "'prompt' is a required property and must be a non-empty string."
    return None


def _check_response_format(protocol: Protocol, body: dict[str, Any]) -> str | None:
    if _family(str(body.get("model", ""))) == "gpt-image" and "response_format" in body:
        return "Unknown parameter: 'response_format'."
    return None


def _check_size(protocol: Protocol, body: dict[str, Any]) -> str | None:
    sizes = SIZES.get(_family(str(body.get("model", ""))))
    size = body.get("size")
    if sizes is None or size is None or size in sizes:
        return None
    return f"Invalid value: '{size}'. Supported values are: {', '.join(repr(s) for s in sizes)}."


IMAGE_RULES: tuple[Rule, ...] = (
    Rule("image_prompt_required", PROTOCOLS, _check_prompt, "missing_required_parameter"),
    Rule(
        "no_response_format_for_gpt_image", PROTOCOLS, _check_response_format, "unknown_parameter"
    ),
    Rule("image_size", PROTOCOLS, _check_size, "invalid_value"),
)


def broken_image_rule(protocol: Protocol, body: dict[str, Any]) -> tuple[Rule, str] | None:
    """The first of `IMAGE_RULES` an images request breaks, with why; None if none."""
    for rule in IMAGE_RULES:
        if (why := rule.check(protocol, body)) is not None:
            return rule, why
    return None


def images_body(request: dict[str, Any], b64: str) -> dict[str, Any]:
    """The Images API's answer carrying one image as base64 `b64`."""
    model = str(request.get("model", ""))
    created = int(time.time())
    if _family(model) != "gpt-image":
        return {
            "created": created,
            "data": [{"b64_json": b64, "revised_prompt": request.get("prompt", "")}],
        }
    prompt_tokens = -(-len(str(request.get("prompt", ""))) // 4)
    return {
        "created": created,
        "data": [{"b64_json": b64}],
        "background": "opaque",
        "output_format": request.get("output_format") or "png",
        "quality": "low",
        "size": request.get("size") or "1024x1024",
        "usage": {
            "input_tokens": prompt_tokens,
            "input_tokens_details": {"image_tokens": 0, "text_tokens": prompt_tokens},
            "output_tokens": IMAGE_OUTPUT_TOKENS,
            "total_tokens": prompt_tokens + IMAGE_OUTPUT_TOKENS,
        },
    }


def encoded(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
