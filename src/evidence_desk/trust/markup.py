"""Markup outside quotes: readers get plain text, so an answer's own words carry none.

A sentence whose words outside its quotes hold markup is not grounded (the gate drops it,
or holds the answer when it also quotes), and its checks name what was found. Markup inside
a verbatim quote is the source's own text; renderers escape everything either way.

What counts: an HTML tag, closing tag, comment, doctype or processing instruction
(`<script>`, `<img src=x onerror=...>`, `</b>`, `<!-- -->`); a character entity (`&lt;`,
`&#60;`, `&#x3c;`); a `javascript:`, `vbscript:` or `data:` URL; a markdown link or image
(`[text](url)`, `![alt](src)`). Citation markers such as `[S1]` are not markup, nor is a
lone `<` in prose ("3 < 5").
"""

from __future__ import annotations

import re

from .claims import DraftClaim

_MARKUP = re.compile(
    r"<\s*/?\s*[A-Za-z][^<>]*>|<!--|-->|<![A-Za-z\[]|<\?"
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});"
    r"|\b(?:javascript|vbscript|data)\s*:"
    r"|!?\[[^\[\]\n]*\]\((?:[^()\n]|\([^()\n]*\))*\)",
    re.IGNORECASE,
)


def markup(claim: DraftClaim) -> tuple[str, ...]:
    """The pieces of markup in the claim's text outside its quotes, in order, each once."""
    text = claim.text
    found: list[str] = []
    cursor = 0
    for a, b in [*claim.quote_spans, (len(text), len(text))]:
        found.extend(m.group(0) for m in _MARKUP.finditer(text, cursor, a))
        cursor = b
    return tuple(dict.fromkeys(found))
