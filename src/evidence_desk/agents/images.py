"""What code knows of a picture's bytes before any model looks at it.

An image model's reply is bytes a provider sent; before a reviewer is asked about them
(`illustrator.py`) or a file is written, code reads them: a PNG or a JPEG by its signature,
its width and height from its own header (PNG: the `IHDR` chunk, its CRC checked; JPEG: the
first start-of-frame segment), the file complete (PNG ends on `IEND`, JPEG on its end
marker), each side within `MIN_SIDE`..`MAX_SIDE` pixels, at most `MAX_IMAGE_BYTES`. Nothing
here decodes pixels: a picture that passes is well-formed by its header, and what it shows is
the reviewer's to judge.

Invariant: `read_image` returns facts only for bytes that pass every check; anything else
raises `NotAnImage` with the reason, one sentence without its period.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from ..trust.teaching import PICTURE_SIDES

MAX_IMAGE_BYTES = 4 * 1024 * 1024
MIN_SIDE, MAX_SIDE = PICTURE_SIDES  # the bounds receipt verify re-checks

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_JPEG_START = b"\xff\xd8\xff"
_JPEG_END = b"\xff\xd9"
# Start-of-frame markers (baseline, progressive, lossless, arithmetic): not DHT, JPG, DAC.
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_SCAN = 0xDA


class NotAnImage(ValueError):
    """Bytes that are not a picture the desk may show; the message says why."""


@dataclass(frozen=True)
class ImageFacts:
    """A picture's kind and size, read from its header."""

    media_type: str
    width: int
    height: int


def read_image(data: bytes) -> ImageFacts:
    """The facts of `data` when it passes every check (see the module docstring)."""
    if len(data) > MAX_IMAGE_BYTES:
        raise NotAnImage(
            f"the image is {len(data):,} bytes, more than the {MAX_IMAGE_BYTES:,} a picture may be"
        )
    if data.startswith(PNG_SIGNATURE):
        facts = _png(data)
    elif data.startswith(_JPEG_START):
        facts = _jpeg(data)
    else:
        raise NotAnImage("the reply is not a PNG or JPEG image (its first bytes say otherwise)")
    for side in (facts.width, facts.height):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise NotAnImage(
                f"the image is {facts.width}x{facts.height} pixels; each side must be "
                f"{MIN_SIDE} to {MAX_SIDE}"
            )
    return facts


def _png(data: bytes) -> ImageFacts:
    header = data[8:33]
    if len(header) < 25 or header[:8] != b"\x00\x00\x00\x0dIHDR":
        raise NotAnImage("the PNG does not begin with its IHDR header")
    fields = header[8:21]
    (crc,) = struct.unpack(">I", header[21:25])
    if zlib.crc32(b"IHDR" + fields) != crc:
        raise NotAnImage("the PNG's IHDR header fails its checksum")
    width, height, depth, color = struct.unpack(">IIBB", fields[:10])
    if depth not in _PNG_DEPTHS.get(color, ()):
        raise NotAnImage(f"the PNG names colour type {color} with bit depth {depth}")
    if not data.endswith(_PNG_END):
        raise NotAnImage("the PNG is cut short: it does not end on its IEND chunk")
    return ImageFacts("image/png", width, height)


def _jpeg(data: bytes) -> ImageFacts:
    if not data.rstrip(b"\x00").endswith(_JPEG_END):
        raise NotAnImage("the JPEG is cut short: it does not end on its end marker")
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise NotAnImage("the JPEG's segments are broken")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _JPEG_FRAMES and length >= 7 and at + 9 <= len(data):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return ImageFacts("image/jpeg", width, height)
        if marker == _JPEG_SCAN or length < 2:
            break
        at += 2 + length
    raise NotAnImage("the JPEG has no frame header giving its size")
