"""A claim's text taken apart: citation markers, quoted spans and the framing around them.

The auditor judges quoted text and framing differently: a quote found verbatim in a cited
passage is evidence by itself, while the framing ("In his 1934 address, Roosevelt said:")
must be backed by the passages or the source's metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = re.compile(r"\s*\[(?:S\d+(?:\s*[,;]\s*S\d+)*)\]")
QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


@dataclass(frozen=True)
class ClaimParts:
    """`body` is the claim without markers; `framing` is the body outside its quotes."""

    body: str
    quotes: tuple[str, ...]
    framing: str


def parse_claim(text: str) -> ClaimParts:
    """Split a claim into its body, its quoted spans and the framing words."""
    body = " ".join(MARKER.sub("", text).split())
    quotes = tuple(m.group(1) or m.group(2) for m in QUOTE.finditer(body))
    framing = " ".join(QUOTE.sub(" ", body).split())
    return ClaimParts(body=body, quotes=quotes, framing=framing)


def plain(text: str) -> str:
    """The claim as prose for embedding: no markers, no quote characters."""
    return " ".join(re.sub(r"[\"“”]", "", MARKER.sub("", text)).split())
