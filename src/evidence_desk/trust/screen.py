"""Text in a source that speaks to a model: the one sign of prompt injection code can see.

Archive documents and fetched pages are data, and the prompts say so (`agents/prompts.py`).
But a model can still be steered by a passage that gives it orders, and a steered auditor
can call a claim supported. So a claim that cites a source whose selected passages contain
such text is never grounded, and the gate holds the whole answer for an editor.

What counts, matched case-insensitively:

* an order to drop earlier instructions: "ignore / disregard / forget / override (all) (the)
  previous / prior / above / earlier / preceding / your / system instructions / prompts /
  rules / directions";
* talk of the model's own controls: "system prompt", "developer mode", "jailbreak";
* the closing and control tags that delimit a prompt: `</passage>`, `</source>`,
  `</sources>`, `<instructions>`, `</instructions>`, `<system>`, `</system>`.

Plain prose about these topics ("the system was prompt", "ignore the noise") does not match.
The list is deliberately short: every false match holds an answer, and no list can catch
an order phrased as ordinary prose. It is a tripwire, not the defence.
"""

from __future__ import annotations

import re

_DIRECTED = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+)?"
    r"(?:previous|prior|above|earlier|preceding|your|system)\s+"
    r"(?:instructions?|prompts?|rules|directions)\b"
    r"|\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak"
    r"|<\s*/\s*(?:passage|sources?|instructions|system)\s*>|<\s*(?:instructions|system)\s*>",
    re.IGNORECASE,
)


def model_directed(text: str) -> tuple[str, ...]:
    """The phrases of `text` that address a model, in order, each once (lower-cased)."""
    found = (" ".join(m.group(0).lower().split()) for m in _DIRECTED.finditer(text))
    return tuple(dict.fromkeys(found))
