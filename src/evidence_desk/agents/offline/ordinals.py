"""A person's "first" or "last" address: one day the archive profile already knows.

"In his last annual address, ... George Washington", "Wilson's first annual message", "the
final State of the Union in the archive": an ordinal word (`first`, `earliest`; `last`,
`final`, `latest`) right before an address noun (`address`, `message`, `speech`, `State of
the Union`, each optionally after `annual`) names one document, and its date needs no
search. The profile's windows run from a person's first to last document date
(`archive/entities.py`), so "first" is the first day of the person's earliest window and
"last" the last day of their latest one. Without a person named, the archive's own first
and last dates (`ArchiveProfile.min_date`, `max_date`) stand in.

An ordinal belongs to the person named nearest to it in the question, unless another name
the profile does not know (two capitalised words in a row, "Harry Truman") stands between
them; a last name several people share ("Roosevelt") gives each of them their own day. With
nobody the profile knows named, an ordinal is the archive's ("the first address"), unless
a possessive comes before it ("his first annual message": someone's the profile does not
know), and then it stays unresolved. Once resolved, its words are time words, so the
planner keeps them out of the key terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...types import TimeWindow
from ..base import ArchiveProfile
from .names import EntityWindow, NameMention
from .timeexpr import TimeMention

_NOUN = r"(?:address(?:es)?|messages?|speech(?:es)?)"
_ORDINAL = re.compile(
    r"\b(?P<which>first|earliest|last|final|latest)\s+(?:annual\s+)?"
    rf"(?:state\s+of\s+the\s+union(?:\s+{_NOUN})?|{_NOUN})\b"
    r"(?:\s+(?:in|of)\s+the\s+archive\b)?",
    re.I,
)
_LAST = frozenset({"last", "final", "latest"})
_POSSESSIVE_BEFORE = re.compile(r"(?:\b(?:his|her|their|its|your|my|our)|['’]s)\s+$", re.I)
_OTHER_NAME = re.compile(r"\b[A-Z][a-z]+\.?\s+(?:[A-Z]\.\s+)?[A-Z][a-z]+\b")


@dataclass(frozen=True)
class OrdinalMention:
    """ "first annual message", "last State of the Union": its span and which end it means."""

    start: int
    end: int
    text: str
    last: bool  # last, final, latest; else first, earliest

    @property
    def label(self) -> str:
        return " ".join(self.text.split())


def find_ordinals(question: str) -> list[OrdinalMention]:
    """Every "first/last <address noun>" of `question`, in order."""
    return [
        OrdinalMention(m.start(), m.end(), m.group(0), m.group("which").lower() in _LAST)
        for m in _ORDINAL.finditer(question)
    ]


def _day(iso: str, label: str) -> TimeWindow:
    return TimeWindow(start=iso[:10], end=iso[:10], label=label)


def person_days(mention: NameMention, ordinal: OrdinalMention) -> NameMention:
    """The mention narrowed to one day per person: their first or last document date."""
    by_key: dict[str, list[TimeWindow]] = {}
    for e in mention.windows:
        by_key.setdefault(e.key, []).append(e.window)
    days: list[EntityWindow] = []
    for key, windows in by_key.items():
        if ordinal.last:
            w = max(windows, key=lambda x: x.end)
            day = w.end
        else:
            w = min(windows, key=lambda x: x.start)
            day = w.start
        days.append(EntityWindow(key, _day(day, f"{w.label}, {ordinal.label} ({day[:10]})")))
    return replace(mention, windows=tuple(sorted(days, key=lambda e: e.window.start)))


def _distance(a: OrdinalMention, n: NameMention) -> int:
    return max(n.start - a.end, a.start - n.end, 0)


def _between(question: str, a: OrdinalMention, n: NameMention) -> str:
    return question[a.end : n.start] if a.end <= n.start else question[n.end : a.start]


def bind_to_names(
    question: str, ordinals: Sequence[OrdinalMention], names: Sequence[NameMention]
) -> tuple[list[NameMention], list[OrdinalMention]]:
    """(the names, each narrowed by the ordinal nearest to it; the ordinals used).

    Each ordinal goes to its nearest name (the earlier one on a tie) unless an unknown name
    stands between them; a name given two keeps the nearer.
    """
    if not names:
        return list(names), []
    chosen: dict[int, OrdinalMention] = {}
    for o in ordinals:
        i = min(range(len(names)), key=lambda k: (_distance(o, names[k]), k))
        if _OTHER_NAME.search(_between(question, o, names[i])):
            continue
        held = chosen.get(i)
        if held is None or _distance(o, names[i]) < _distance(held, names[i]):
            chosen[i] = o
    narrowed = [person_days(n, chosen[i]) if i in chosen else n for i, n in enumerate(names)]
    return narrowed, sorted(chosen.values(), key=lambda o: o.start)


def archive_days(
    question: str, ordinals: Sequence[OrdinalMention], profile: ArchiveProfile
) -> list[TimeMention]:
    """Ordinals with no person to belong to, on the archive's first or last date.

    An ordinal after a possessive (someone's address) or one the profile cannot date (no
    `min_date` / `max_date`) is left out.
    """
    out: list[TimeMention] = []
    for o in ordinals:
        if _POSSESSIVE_BEFORE.search(question[: o.start]):
            continue
        iso = profile.max_date if o.last else profile.min_date
        if iso:
            out.append(TimeMention(o.start, o.end, _day(iso, f"{o.label} ({iso[:10]})"), o.text))
    return out
