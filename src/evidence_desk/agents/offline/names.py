"""People named in a question, matched against the archive profile's entities.

`ArchiveProfile.entities` maps a lower-cased name to the windows in which the archive holds
documents by or about that person. A question may name someone in full ("Franklin D.
Roosevelt"), without middle initials ("Franklin Roosevelt"), by a common short form ("FDR")
or by last name only ("Roosevelt"). A last name shared by several entities is ambiguous and
yields all of their windows; a first name in front of it disambiguates, also when only the
windows' labels carry it.

A capitalised word right after a last name makes it part of another proper noun ("the
Monroe Doctrine", "Washington D.C."), and an all-lower-case last name in a question that
otherwise capitalises names ("a federal grant") is a common word: neither is a person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...types import TimeWindow

# Short forms people use; each maps to (first name, last name) of a profile entity.
_ALIASES: dict[str, tuple[str, str]] = {
    "fdr": ("franklin", "roosevelt"),
    "teddy roosevelt": ("theodore", "roosevelt"),
    "jfk": ("john", "kennedy"),
    "lbj": ("lyndon", "johnson"),
    "ike": ("dwight", "eisenhower"),
}
_PLACE_WORDS = """
    doctrine memorial monument street avenue county state city university college bridge
    tunnel river harbor harbour parkway airport hospital dc
"""
_NOT_A_PERSON_AFTER = frozenset(_PLACE_WORDS.split())
_TOKEN = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class EntityWindow:
    """One window of one person: the profile key it came from and the window."""

    key: str
    window: TimeWindow


@dataclass(frozen=True)
class NameMention:
    """A person named in the question: span, surface text and candidate windows."""

    start: int
    end: int
    text: str
    windows: tuple[EntityWindow, ...]


@dataclass(frozen=True)
class _Tok:
    text: str
    low: str
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(m.group(0), m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _name_tokens(key: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(key)]


def _match_full(toks: list[_Tok], i: int, name: list[str]) -> tuple[int, int]:
    """(question tokens matched, name parts skipped) for `name` at toks[i]; (0, 0) if none.

    Middle initials the question leaves out may be skipped; fewer skips is a better match
    ("George W. Bush" is "george w. bush", not "george h.w. bush").
    """
    j = i
    skipped = 0
    for k, part in enumerate(name):
        if j < len(toks) and toks[j].low == part:
            j += 1
        elif len(part) == 1 and 0 < k < len(name) - 1:
            skipped += 1  # a middle initial the question left out
        else:
            return 0, 0
    return j - i, skipped


class NameMatcher:
    """Finds profile entities in questions. Built once per profile."""

    def __init__(self, entities: dict[str, tuple[TimeWindow, ...]]) -> None:
        self._entities = {k.lower(): v for k, v in entities.items() if v}
        self._full = sorted(
            ((_name_tokens(k), k) for k in self._entities if len(_name_tokens(k)) > 1),
            key=lambda p: -len(p[0]),
        )
        self._by_last: dict[str, list[str]] = {}
        for key in self._entities:
            parts = _name_tokens(key)
            if parts:
                self._by_last.setdefault(parts[-1], []).append(key)

    def _windows(self, keys: list[str]) -> tuple[EntityWindow, ...]:
        out: dict[tuple[str, str], EntityWindow] = {}
        # Longer keys first: a window reached through "franklin d. roosevelt" keeps that name.
        for key in sorted(keys, key=len, reverse=True):
            for w in self._entities[key]:
                out.setdefault((w.start, w.end), EntityWindow(key, w))
        return tuple(sorted(out.values(), key=lambda e: e.window.start))

    def _narrow(self, windows: tuple[EntityWindow, ...], first: str) -> tuple[EntityWindow, ...]:
        """The windows whose key or label carries `first` (a first name), possibly none."""
        return tuple(
            e for e in windows
            if first in _name_tokens(e.key) or first in _name_tokens(e.window.label)
        )  # fmt: skip

    def _alias(self, toks: list[_Tok], i: int) -> tuple[int, tuple[EntityWindow, ...]]:
        for alias, (first, last) in _ALIASES.items():
            parts = alias.split()
            if [t.low for t in toks[i : i + len(parts)]] == parts:
                narrowed = self._narrow(self._windows(self._by_last.get(last, [])), first)
                if narrowed:
                    return len(parts), narrowed
        return 0, ()

    def _is_person(self, question: str, toks: list[_Tok], i: int) -> bool:
        """A bare last name is a person unless it reads as a common word or another name."""
        tok = toks[i]
        has_capitals = any(c.isupper() for c in question)
        if has_capitals and not tok.text[0].isupper():
            return False
        if i + 1 < len(toks):
            nxt = toks[i + 1]
            gap = question[tok.end : nxt.start]
            if nxt.low in _NOT_A_PERSON_AFTER and gap.strip() in ("", "."):
                return False
            if (
                has_capitals
                and gap == " "
                and nxt.text[0].isupper()
                and nxt.low not in self._by_last
            ):
                return False
        return True

    def _last_name(
        self, question: str, toks: list[_Tok], i: int
    ) -> tuple[int, tuple[EntityWindow, ...]]:
        """(tokens to step back for a first name, windows) of a bare last name at toks[i]."""
        keys = self._by_last.get(toks[i].low, [])
        if not keys or not self._is_person(question, toks, i):
            return 0, ()
        windows = self._windows(keys)
        if i > 0:  # a first name in front narrows an ambiguous last name
            narrowed = self._narrow(windows, toks[i - 1].low)
            if narrowed:
                return 1, narrowed
        return 0, windows

    def _match_at(
        self, question: str, toks: list[_Tok], i: int
    ) -> tuple[int, int, tuple[EntityWindow, ...]]:
        """(first token, end token, windows) of a name at toks[i]; no windows if there is none."""
        n, windows = self._alias(toks, i)
        if n:
            return i, i + n, windows
        best: tuple[int, int, str] | None = None
        for parts, key in self._full:
            n, skipped = _match_full(toks, i, parts)
            if n and (best is None or (n, -skipped) > (best[0], -best[1])):
                best = (n, skipped, key)
        if best is not None:
            return i, i + best[0], self._windows([best[2]])
        back, windows = self._last_name(question, toks, i)
        return i - back, i + 1, windows

    def find(self, question: str) -> list[NameMention]:
        """People named in `question`, in order of appearance, without overlaps."""
        toks = _tokens(question)
        out: list[NameMention] = []
        i = 0
        while i < len(toks):
            first, end, windows = self._match_at(question, toks, i)
            if not windows:
                i += 1
                continue
            if out and toks[first].start < out[-1].end:
                first = i  # never overlap the previous mention
            a, b = toks[first].start, toks[end - 1].end
            out.append(NameMention(a, b, question[a:b], windows))
            i = end
        return out
