"""Sources numbered in reading order: an answer cites S1 first, then S2, and so on.

The select stage numbers sources by retrieval (for a comparison, round-robin across the
sides), so an answer that reads one side, then the other, would cite S1, S3, S2, S4. Once
the draft is written, the answer stage renumbers: the sources the draft cites, in the
order it first cites them, then the rest in their order. The draft's citation markers are
rewritten to match, and nothing else in it; a marker naming no source of the run keeps
its id (the checks still see an unknown citation). The ids stay the same set, so the run's
other records keep their meaning: a renumbering is a permutation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..types import Draft, Source

_MARKER = re.compile(r"\[(S\d+(?:\s*[,;]\s*S\d+)*)\]")
_ID = re.compile(r"S\d+")


def _number(source_id: str) -> int:
    return int(source_id[1:])


def reading_order(draft: str, sources: Sequence[Source]) -> dict[str, str]:
    """Old id -> new id for every source: cited ones first, in the order of citing."""
    known = {s.id for s in sources}
    cited: list[str] = []
    for m in _MARKER.finditer(draft):
        for source_id in _ID.findall(m.group(1)):
            if source_id in known and source_id not in cited:
                cited.append(source_id)
    order = cited + [s.id for s in sources if s.id not in cited]
    ids = sorted(known, key=_number)
    return dict(zip(order, ids, strict=True))


def _markers(text: str, mapping: dict[str, str]) -> str:
    def marker(m: re.Match[str]) -> str:
        return "[" + _ID.sub(lambda i: mapping.get(i.group(), i.group()), m.group(1)) + "]"

    return _MARKER.sub(marker, text)


def renumbered(draft: str, sources: Sequence[Source]) -> tuple[str, tuple[Source, ...]]:
    """The draft and sources with sources numbered in reading order (`reading_order`)."""
    mapping = reading_order(draft, sources)
    if all(old == new for old, new in mapping.items()):
        return draft, tuple(sources)
    moved = [s.model_copy(update={"id": mapping[s.id]}) for s in sources]
    return _markers(draft, mapping), tuple(sorted(moved, key=lambda s: _number(s.id)))


def in_reading_order(draft: Draft, sources: Sequence[Source]) -> tuple[Draft, tuple[Source, ...]]:
    """`renumbered` for a whole draft: the spans its answerer named move with their
    sources, and each span's sentence keeps matching the draft's."""
    mapping = reading_order(draft.text, sources)
    text, moved = renumbered(draft.text, sources)
    rests = tuple(
        rest.model_copy(
            update={
                "text": _markers(rest.text, mapping),
                "spans": tuple(
                    span.model_copy(
                        update={"source_id": mapping.get(span.source_id, span.source_id)}
                    )
                    for span in rest.spans
                ),
            }
        )
        for rest in draft.rests
    )
    return draft.model_copy(update={"text": text, "rests": rests}), moved
