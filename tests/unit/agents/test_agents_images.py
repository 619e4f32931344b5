"""Code's checks on a picture's bytes (`agents/images.py`), and the decision the illustrate
stage takes on a reviewer's verdict (`runs/illustrate.py`), judged by hand-made files."""

from __future__ import annotations

import struct
import zlib

import pytest

from evidence_desk.agents.images import MAX_IMAGE_BYTES, NotAnImage, read_image
from evidence_desk.runs.illustrate import picture_decision
from evidence_desk.testing.fakeimages import solid_png
from evidence_desk.types import ImageReview


def _jpeg(width: int, height: int, *, end: bool = True) -> bytes:
    """A JPEG's segments as a reader walks them: SOI, APP0, DQT, SOF0, SOS, data, EOI."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + bytes(65)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    sos = b"\xff\xda" + struct.pack(">H", 8) + b"\x01\x01\x00\x00\x3f\x00"
    return b"\xff\xd8" + app0 + dqt + sof + sos + b"\x12\x34" + (b"\xff\xd9" if end else b"")


def test_a_png_is_read_from_its_header() -> None:
    facts = read_image(solid_png(1024, 768))
    assert (facts.media_type, facts.width, facts.height) == ("image/png", 1024, 768)


def test_a_jpeg_is_read_from_its_frame_header() -> None:
    facts = read_image(_jpeg(1536, 1024))
    assert (facts.media_type, facts.width, facts.height) == ("image/jpeg", 1536, 1024)


def _bad_crc() -> bytes:
    png = bytearray(solid_png())
    png[29] ^= 0xFF  # a byte of the IHDR checksum
    return bytes(png)


def _bad_depth() -> bytes:
    fields = struct.pack(">IIBBBBB", 512, 512, 3, 2, 0, 0, 0)  # RGB at 3 bits: no such PNG
    ihdr = (
        struct.pack(">I", 13) + b"IHDR" + fields + struct.pack(">I", zlib.crc32(b"IHDR" + fields))
    )
    return solid_png()[:8] + ihdr + solid_png()[33:]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"GIF89a" + bytes(64), "not a PNG or JPEG"),
        (b"", "not a PNG or JPEG"),
        (_bad_crc(), "fails its checksum"),
        (_bad_depth(), "bit depth 3"),
        (solid_png()[:-5], "cut short"),
        (solid_png(255, 1024), "each side must be 256 to 4096"),
        (solid_png(4097, 256), "each side must be 256 to 4096"),
        (_jpeg(1024, 1024, end=False), "cut short"),
        (_jpeg(100, 1024), "each side must be 256 to 4096"),
        (b"\xff\xd8\xff\xd9", "no frame header"),
        (solid_png() + bytes(MAX_IMAGE_BYTES), "more than the 4,194,304"),
    ],
)
def test_bytes_that_fail_a_check_are_refused_with_the_reason(data: bytes, why: str) -> None:
    with pytest.raises(NotAnImage, match=why):
        read_image(data)


def _verdict(text: bool = False, only: bool = True, misleading: bool = False) -> ImageReview:
    return ImageReview(
        shows_text=text, depicts_only_the_lesson=only, misleading=misleading, reason="A canal."
    )


def test_a_picture_is_shown_only_when_the_reviewer_finds_nothing_wrong() -> None:
    assert picture_decision(_verdict())[0] is True
    for verdict in (_verdict(text=True), _verdict(only=False), _verdict(misleading=True)):
        shown, reason = picture_decision(verdict)
        assert shown is False and reason.startswith("Not shown: the reviewer found that it")
    shown, reason = picture_decision(_verdict(text=True, misleading=True))
    assert reason == (
        "Not shown: the reviewer found that it shows text and it is misleading (A canal)."
    )
